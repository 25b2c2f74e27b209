// The fuzz targets' bodies (fuzz_targets.cpp) on every committed input, in
// the main g++ build: testbench/fuzz/corpus/<target>/ (the seeds and what
// merges added) and testbench/fuzz/regressions/<target>/ (minimized
// findings). The folder's name picks the body; a property a file violates
// aborts the test, naming the file. The repository is found through the
// environment variable RNICSIM_SOURCE_DIR, else the path the build gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.hpp"

namespace {

namespace fs = std::filesystem;

using Body = void (*)(const std::uint8_t*, std::size_t);

fs::path fuzz_dir() {
  if (const char* env = std::getenv("RNICSIM_SOURCE_DIR"); env != nullptr && *env != '\0') {
    return fs::path(env) / "testbench" / "fuzz";
  }
#ifdef RNICSIM_SOURCE_DIR
  return fs::path(RNICSIM_SOURCE_DIR) / "testbench" / "fuzz";
#else
  return {};
#endif
}

// parse_frame or fuzz_parse_frame -> its body; nullptr for another name.
Body body_for(std::string name) {
  if (name.rfind("fuzz_", 0) == 0) name.erase(0, 5);
  if (name == "parse_frame") return fuzz_parse_frame_one;
  if (name == "request_checks") return fuzz_request_checks_one;
  return nullptr;
}

// Runs every file of <fuzz dir>/<kind>/<target> through the target's body;
// the number of files run.
std::size_t run_folder(const std::string& kind, const std::string& target) {
  const fs::path folder = fuzz_dir() / kind / target;
  if (!fs::is_directory(folder)) return 0;
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  const Body body = body_for(target);
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    bytes.shrink_to_fit();  // no spare capacity: ASan sees a read past the end
    const std::string name = file.string();
    rnicsim::fuzz::set_input_name(name.c_str());
    body(bytes.data(), bytes.size());
    rnicsim::fuzz::set_input_name(nullptr);
  }
  return files.size();
}

TEST(FuzzRegression, SourceDirectoryIsFound) {
  ASSERT_TRUE(fs::is_directory(fuzz_dir() / "corpus"))
      << "no " << fuzz_dir() / "corpus"
      << ": set RNICSIM_SOURCE_DIR to the repository";
}

// Every folder under corpus/ and regressions/ names a target.
TEST(FuzzRegression, EveryFolderNamesATarget) {
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path root = fuzz_dir() / kind;
    if (!fs::is_directory(root)) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(root)) {
      if (!entry.is_directory()) continue;
      EXPECT_NE(body_for(entry.path().filename().string()), nullptr)
          << entry.path() << " names no fuzz target (parse_frame, request_checks)";
    }
  }
}

TEST(FuzzRegression, ParseFrameCorpus) { EXPECT_GT(run_folder("corpus", "parse_frame"), 0u); }

TEST(FuzzRegression, RequestChecksCorpus) { EXPECT_GT(run_folder("corpus", "request_checks"), 0u); }

TEST(FuzzRegression, ParseFrameRegressions) {
  run_folder("regressions", "parse_frame");
  run_folder("regressions", "fuzz_parse_frame");
}

TEST(FuzzRegression, RequestChecksRegressions) {
  run_folder("regressions", "request_checks");
  run_folder("regressions", "fuzz_request_checks");
}

}  // namespace
