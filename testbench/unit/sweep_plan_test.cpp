// Sweep files: what they expand to, and the one clear error each bad file gets.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "config_error_of.hpp"
#include "program/sweep/sweep_plan.hpp"

namespace rnicsim::sweep {
namespace {

namespace fs = std::filesystem;
using config::config_error_of;

const std::string kConfigs = std::string(RNICSIM_SOURCE_DIR) + "/configs/";

// A sweep file in a folder of its own; "base" paths are relative to it.
class SweepFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("sweep_plan_test_" + std::to_string(getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  // Writes `members` (JSON object text without braces) with a base and collect.
  std::string write(const std::string& members, const std::string& base = "seed_pipeline.json") {
    const fs::path file = folder_ / "sweep.json";
    const bool own_collect = members.find("\"collect\"") != std::string::npos;
    std::ofstream(file) << "{\"base\": \"" << kConfigs << base << "\", "
                        << (own_collect ? "" : "\"collect\": {\"gbps\": \"/paths/rdma/steady_gbps\"}, ")
                        << members << "}";
    return file.string();
  }
  // The points, each checked as a sweep checks them; identity(i) is what
  // point i's identity hashes.
  std::vector<Point> plan(const std::string& members, const std::string& base = "seed_pipeline.json") {
    const SweepFile sweep = read_sweep_file(write(members, base));
    std::vector<Point> points = plan_points(sweep);
    identities_.clear();
    for (Point& point : points) identities_.push_back(check_point(sweep, point, "test-build"));
    return points;
  }
  const Json& identity(std::size_t i) const { return identities_.at(i); }
  std::string error_of(const std::string& members, const std::string& base = "seed_pipeline.json") {
    const std::string file = write(members, base);
    return config_error_of([&] { plan_points(read_sweep_file(file)); });
  }
  std::string file() const { return (folder_ / "sweep.json").string(); }

 private:
  fs::path folder_;
  std::vector<Json> identities_;
};

TEST_F(SweepFileTest, ProductVariesTheLastAxisFastestAndRepetitionsAreAdjacent) {
  const auto points = plan(
      R"("axes": [{"key": "link.gbps", "values": [50, 100]},
                  {"key": "workload.count", "values": [8, 16, 32]}],
         "repetitions": 2)");
  ASSERT_EQ(points.size(), 12u);
  EXPECT_EQ(points[0].folder, "gbps=50,count=8,seed=1");
  EXPECT_EQ(points[1].folder, "gbps=50,count=8,seed=2");
  EXPECT_EQ(points[2].folder, "gbps=50,count=16,seed=1");
  EXPECT_EQ(points[11].folder, "gbps=100,count=32,seed=2");
  EXPECT_EQ(points[11].index, 11u);
  EXPECT_EQ(points[11].seed, 2u);
  // The command line runs the base with the point's keys, plots left to the sweep.
  const std::vector<std::string> expected{
      "run",    kConfigs + "seed_pipeline.json", "--set", "output.plot=false",
      "--set",  "link.gbps=100",                 "--set", "workload.count=32",
      "--set",  "seed=2"};
  EXPECT_EQ(points[11].arguments, expected);
  EXPECT_EQ(identity(11)["config"]["link"]["gbps"], 100);
  EXPECT_EQ(identity(11)["config"]["seed"], 2);
  for (const Point& point : points) EXPECT_EQ(point.invalid, "");
  // The identity is a hash of the build, the configuration and perf's words.
  EXPECT_EQ(identity(11)["program"], "test-build");
  EXPECT_EQ(points[11].identity.size(), 16u);
  EXPECT_NE(points[11].identity, points[10].identity);
  Point again = points[11];
  const SweepFile sweep = read_sweep_file(file());
  check_point(sweep, again, "test-build");
  EXPECT_EQ(again.identity, points[11].identity);
  check_point(sweep, again, "another-build");
  EXPECT_NE(again.identity, points[11].identity);
}

TEST_F(SweepFileTest, ZipTakesTheIthValueOfEachAxis) {
  const auto points = plan(
      R"("axes": [{"key": "link.gbps", "values": [25, 50, 100]},
                  {"key": "workload.count", "values": [8, 16, 32]}],
         "combine": "zip")");
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[1].folder, "gbps=50,count=16,seed=1");
  EXPECT_NE(error_of(R"("axes": [{"key": "link.gbps", "values": [25, 50]},
                                 {"key": "workload.count", "values": [8, 16, 32]}],
                        "combine": "zip")")
                .find("axes[1]: workload.count: zip needs axes of one length"),
            std::string::npos);
}

TEST_F(SweepFileTest, RangesGiveStepsAndLogScales) {
  auto values = [&](const std::string& range) {
    return plan_points(read_sweep_file(write(R"("axes": [{"key": "link.gbps", "range": )" + range +
                                             "}]")))
        .size();
  };
  EXPECT_EQ(values(R"({"from": 10, "to": 100, "step": 10})"), 10u);
  EXPECT_EQ(values(R"({"from": 10, "to": 105, "step": 10})"), 10u);
  // Decimal steps reach their end despite rounding: 0.1 + 9 x 0.1 is not 1.0 exactly.
  EXPECT_EQ(values(R"({"from": 0.1, "to": 1.0, "step": 0.1})"), 10u);
  EXPECT_EQ(values(R"({"from": 1, "to": 1024, "factor": 2})"), 11u);
  const SweepFile sweep = read_sweep_file(
      write(R"("axes": [{"key": "workload.count", "range": {"from": 4, "to": 64, "factor": 4}}])"));
  EXPECT_EQ(sweep.axes[0].values, (std::vector<Json>{4, 16, 64}));
  EXPECT_TRUE(sweep.axes[0].values[1].is_number_integer());
}

TEST_F(SweepFileTest, IntegerRangesCountExactlyAndDecimalOnesAreTidy) {
  auto values = [&](const std::string& range) {
    return read_sweep_file(write(R"("axes": [{"key": "host.memory_bytes", "range": )" + range + "}]"))
        .axes[0]
        .values;
  };
  // Beyond 2^53 a double would miss these; integers count them exactly.
  EXPECT_EQ(values(R"({"from": 4000000000000, "to": 4000000005000, "step": 1000})").size(), 6u);
  EXPECT_EQ(values(R"({"from": 9007199254740993, "to": 9007199254740995, "step": 1})"),
            (std::vector<Json>{9007199254740993, 9007199254740994, 9007199254740995}));
  // A log scale stops before it would pass 2^63.
  EXPECT_EQ(values(R"({"from": 1, "to": 9223372036854775807, "factor": 2})").size(), 63u);
  EXPECT_EQ(values(R"({"from": 0.1, "to": 0.3, "step": 0.1})"), (std::vector<Json>{0.1, 0.2, 0.3}));
  // A whole-number decimal is that integer for an integer key.
  const auto points = plan(R"("axes": [{"key": "workload.count", "range": {"from": 8.0, "to": 16.0, "step": 8.0}}])");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].invalid, "");
  EXPECT_EQ(identity(1)["config"]["workload"]["count"], 16);
}

TEST_F(SweepFileTest, ASeedAxisGivesEachPointItsSeed) {
  const auto points = plan(R"("axes": [{"key": "seed", "range": {"from": 5, "to": 7, "step": 1}}])");
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2].seed, 7u);
  EXPECT_EQ(points[2].folder, "seed=7");
  EXPECT_EQ(identity(2)["config"]["seed"], 7);
}

TEST_F(SweepFileTest, BadFilesNameTheMemberAndTheReason) {
  const std::string f = file();
  auto expect = [&](const std::string& members, const std::string& message) {
    const std::string error = error_of(members);
    EXPECT_NE(error.find(message), std::string::npos) << error;
    EXPECT_EQ(error.rfind(f + ": ", 0), 0u) << error;
  };
  expect(R"("axes": [{"key": "link.gbpz", "values": [1]}])",
         "axes[0].key: link.gbpz: unknown key (did you mean 'link.gbps'?)");
  expect(R"("axes": [{"key": "link", "values": [1]}])", "axes[0].key: link: is a section");
  expect(R"("axes": [{"key": "link.gbps", "values": []}])",
         "axes[0]: link.gbps: the axis has no values");
  expect(R"("axes": [])", "axes: expected a non-empty list");
  expect(R"("axes": [{"key": "link.gbps", "range": {"from": 10, "to": 1, "step": 1}}])",
         "axes[0].range.to: is below from (10 > 1)");
  expect(R"("axes": [{"key": "link.gbps", "range": {"from": 1, "to": 10, "step": 0}}])",
         "axes[0].range.step: must be > 0, got 0");
  expect(R"("axes": [{"key": "link.gbps", "range": {"from": 1, "to": 10, "factor": 1}}])",
         "axes[0].range.factor: must be > 1, got 1");
  expect(R"("axes": [{"key": "link.gbps", "range": {"from": 0, "to": 10, "factor": 2}}])",
         "axes[0].range.from: must be > 0 on a log scale");
  expect(R"("axes": [{"key": "link.gbps", "range": {"from": 1, "to": 10}}])",
         "axes[0].range: needs exactly one of step (a linear range) and factor");
  expect(R"("axes": [{"key": "link.gbps", "range": {"from": 1, "to": 1e9, "step": 1}}])",
         "axes[0].range: gives more than 100000 values");
  expect(R"("axes": [{"key": "link.gbps", "values": [1, 1]}])", "the value 1 appears twice");
  expect(R"("axes": [{"key": "link.gbps", "values": [1], "range": {}}])",
         "axes[0]: needs exactly one of values");
  expect(R"("axes": [{"key": "link.gbps", "valuez": [1]}])",
         "axes[0].valuez: unknown member (expected key, values, range)");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}, {"key": "link.gbps", "values": [2]}])",
         "axes[1].key: link.gbps is varied twice");
  expect(R"("axes": [{"key": "--size", "values": [64]}])",
         "axes[0].key: --size: a perftest option needs a perf sweep");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}], "combine": "cross")",
         "combine: expected \"product\"");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}], "repetitions": 0)",
         "repetitions: expected an integer from 1 to 10000, got 0");
  expect(R"("axes": [{"key": "seed", "values": [1, 2]}], "repetitions": 2)",
         "repetitions: the seed is an axis already");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}], "typo": 1)",
         "typo: unknown member");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}], "set": {"link.gbps": 5})",
         "set.link.gbps: is also an axis");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}],
            "pareto": {"x": "link.gbps", "y": "nothing"})",
         "pareto.y: nothing: neither an axis key nor a collected metric");
  expect(R"("axes": [{"key": "experiment", "values": ["dma"]}])",
         "a sweep varies keys of one experiment");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}], "set": {"experiment": "dma"})",
         "set.experiment: a sweep runs its base's experiment");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}], "set": {"workload.count": "abc"})",
         "set.workload.count: expected an integer");
  expect(R"("axes": [{"key": "link.gbps", "values": [1]}], "collect": {"x": ".:/a"})",
         "collect.x: \".\" is not the name of a file in the run folder");
  expect(R"("axes": [{"key": "link.gbps", "range": {"from": 0, "to": 18446744073709551615, "step": 1}}])",
         "axes[0].range.to: is beyond 2^63");
}

TEST_F(SweepFileTest, AProductOfAMillionPointsIsRefused) {
  EXPECT_NE(error_of(R"("axes": [{"key": "link.gbps", "range": {"from": 1, "to": 2000, "step": 1}},
                                 {"key": "workload.count", "range": {"from": 2, "to": 2000, "step": 1}}])")
                .find("axes: the product has more than 1000000 points"),
            std::string::npos);
}

TEST_F(SweepFileTest, APointTheConfigurationRefusesIsInvalidAloneAndTheOthersRun) {
  const auto points = plan(R"("axes": [{"key": "link.gbps", "values": [100, -5, 50]}])");
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].invalid, "");
  EXPECT_EQ(points[2].invalid, "");
  EXPECT_NE(points[1].invalid.find("link.gbps"), std::string::npos) << points[1].invalid;
  EXPECT_NE(points[1].invalid.find("-5"), std::string::npos) << points[1].invalid;
  EXPECT_TRUE(points[1].identity.empty());
}

TEST_F(SweepFileTest, AScalarForAListKeyIsAOneElementList) {
  const auto points =
      plan(R"("axes": [{"key": "translation_test.cache_entries", "values": [512, 2048]}])",
           "translation_sweep.json");
  EXPECT_EQ(identity(1)["config"]["translation_test"]["cache_entries"], Json::array({2048}));
  EXPECT_EQ(points[1].folder, "cache_entries=2048,seed=1");
}

TEST_F(SweepFileTest, AxesEndingAlikeAreLabelledByMoreOfTheirKey) {
  const SweepFile sweep = read_sweep_file(
      write(R"("axes": [{"key": "nodes.a.pcie.lanes", "values": [8]},
                        {"key": "nodes.b.pcie.lanes", "values": [16]},
                        {"key": "link.gbps", "values": [100]}])",
            "cx5_100g.json"));
  EXPECT_EQ(sweep.axes[0].label, "a.pcie.lanes");
  EXPECT_EQ(sweep.axes[1].label, "b.pcie.lanes");
  EXPECT_EQ(sweep.axes[2].label, "gbps");
}

TEST_F(SweepFileTest, APerfSweepVariesPerftestOptionsAndKeys) {
  const std::string base = kConfigs + "cx5_100g.json";
  const auto points = plan(R"("perf": {"test": "write_bw", "args": ["-n", "100"]},
                              "axes": [{"key": "--size", "values": [64, 4096]},
                                       {"key": "link.gbps", "values": [25, 100]}])",
                           "cx5_100g.json");
  ASSERT_EQ(points.size(), 4u);
  const std::vector<std::string> expected{"perf", "write_bw", base,      "-n",
                                          "100",  "--size=4096", "--set", "link.gbps=100",
                                          "--set", "seed=1"};
  EXPECT_EQ(points[3].arguments, expected);
  EXPECT_EQ(points[3].folder, "size=4096,gbps=100,seed=1");
  EXPECT_EQ(identity(3)["perf"], Json::array({"write_bw", "-n", "100", "--size=4096"}));
  EXPECT_EQ(identity(3)["config"]["experiment"], "perf");
  // A size perftest refuses fails its point alone.
  const auto bad = plan(R"("perf": {"test": "write_bw"},
                           "axes": [{"key": "--size", "values": [64, 0]}])",
                        "cx5_100g.json");
  EXPECT_EQ(bad[0].invalid, "");
  EXPECT_NE(bad[1].invalid.find("--size=0"), std::string::npos) << bad[1].invalid;
  EXPECT_NE(error_of(R"("perf": {"test": "write_bw"}, "axes": [{"key": "--json", "values": ["x"]}])",
                     "cx5_100g.json")
                .find("--json: not a perftest option taking a value"),
            std::string::npos);
  EXPECT_NE(error_of(R"("perf": {"test": "write_bw", "args": ["--out", "x"]},
                        "axes": [{"key": "--size", "values": [64]}])",
                     "cx5_100g.json")
                .find("perf.args: --out: the sweep gives each point its own folder"),
            std::string::npos);
}

TEST_F(SweepFileTest, AMissingBaseOrMalformedFileIsAnError) {
  EXPECT_NE(error_of(R"("axes": [{"key": "link.gbps", "values": [1]}])", "no_such.json")
                .find("base: "),
            std::string::npos);
  std::ofstream(file()) << "{\"base\": ";
  EXPECT_NE(config_error_of([&] { read_sweep_file(file()); }).find(file()), std::string::npos);
  EXPECT_NE(config_error_of([&] { read_sweep_file(file() + ".missing"); }).find(".missing"),
            std::string::npos);
}

TEST_F(SweepFileTest, LongFolderNamesAreCutAndHashed) {
  std::string values = "[";
  const std::string long_text(150, 'x');
  values += "\"a" + long_text + "\", \"b" + long_text + "\"]";
  const auto points =
      plan(R"("axes": [{"key": "faults.script", "values": )" + values + "}]", "cx5_100g.json");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_LE(points[0].folder.size(), 200u);
  EXPECT_NE(points[0].folder, points[1].folder);
}

}  // namespace
}  // namespace rnicsim::sweep
