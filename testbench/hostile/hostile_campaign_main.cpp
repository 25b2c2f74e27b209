// hostile_campaign: runs one hostile-peer campaign (campaign.hpp) and writes
// its figures as JSON; what scripts/run_hostile_campaign records in
// results/hostile.
//
//   hostile_campaign [--frames N] [--seed S] [--interval-ns T] [--replay]
//                    [--json PATH] CAPTURE...
//
// Exit 0 when the campaign passed, 1 when a check failed, 2 for bad arguments.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <systemc>  // declares sc_main extern "C"

#include "common/systemc_banner.hpp"
#include "hostile/campaign.hpp"

namespace {

bool parse_number(const std::string& text, std::uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  try {
    out = std::stoull(text);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

int usage(const std::string& why) {
  std::cerr << "hostile_campaign: " << why
            << "\nusage: hostile_campaign [--frames N] [--seed S] [--interval-ns T] [--replay] "
               "[--json PATH] CAPTURE...\n";
  return 2;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  using rnicsim::hostile::CampaignOptions;
  CampaignOptions options;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](std::uint64_t& out) {
      if (i + 1 >= argc) return false;
      return parse_number(argv[++i], out);
    };
    std::uint64_t interval_ns = 0;
    if (arg == "--frames") {
      if (!value(options.frames)) return usage("--frames needs a whole number");
    } else if (arg == "--seed") {
      if (!value(options.seed)) return usage("--seed needs a whole number");
    } else if (arg == "--interval-ns") {
      if (!value(interval_ns) || interval_ns == 0) return usage("--interval-ns needs a number > 0");
      options.interval_ps = interval_ns * 1000;
    } else if (arg == "--replay") {
      options.source = CampaignOptions::Source::kReplay;
    } else if (arg == "--json") {
      if (i + 1 >= argc) return usage("--json needs a path");
      json_path = argv[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      return usage("unknown option " + arg);
    } else {
      if (!std::ifstream(arg)) return usage(arg + ": cannot be read");
      options.captures.push_back(arg);
    }
  }
  const rnicsim::hostile::CampaignResult result = rnicsim::hostile::run_campaign(options);
  const std::string text = result.to_json().dump(2) + "\n";
  if (!json_path.empty()) {
    const std::string partial = json_path + ".partial";
    std::ofstream(partial) << text;
    if (std::rename(partial.c_str(), json_path.c_str()) != 0) {
      std::cerr << "hostile_campaign: " << json_path << ": cannot be written\n";
      return 1;
    }
  }
  std::cout << text;
  return result.passed() ? 0 : 1;
}
