// How blocks read a loaded configuration: node sections, the unread-key
// error, the effective configuration and the seeds of random streams.
#include "config/run_config.hpp"

#include <gtest/gtest.h>

#include <string>

#include "unit/config_error_of.hpp"

namespace rnicsim::config {
namespace {

// A node section ("pcie") and a shared one ("link").
Schema node_schema() {
  Schema schema;
  schema.add(integer_key("seed", 1, "", "seed"));
  schema.add(integer_key("pcie.lanes", 8, "lanes", "width").one_of_integers({1, 2, 4, 8, 16}));
  schema.add(integer_key("pcie.mps_bytes", 256, "bytes", "max payload").at_least(128));
  schema.add(integer_key("pcie.completion_bytes", 64, "bytes", "completion payload").at_least(64));
  schema.add(number_key("link.gbps", 100, "Gbit/s", "line rate").greater_than(0));
  schema.add_node_section("pcie");
  schema.add_check({"pcie.completion_bytes", "pcie.mps_bytes"}, [](const Json& doc) {
    if (integer_at(doc, "pcie.completion_bytes") <= integer_at(doc, "pcie.mps_bytes")) {
      return std::optional<Violation>();
    }
    return std::optional<Violation>(Violation{"pcie.completion_bytes", "exceeds pcie.mps_bytes"});
  });
  return schema;
}

LoadedConfig loaded_from(const std::string& text) {
  LoadedConfig loaded;
  loaded.file = "t.json";
  loaded.given = Json::parse(text);
  loaded.effective = validate(loaded.given, node_schema(), loaded.file);
  return loaded;
}

TEST(RunConfig, NodesShareTheSectionAndDifferWhereTheyOverrideIt) {
  RunConfig run(loaded_from(R"({"pcie": {"lanes": 16}, "nodes": {"b": {"pcie": {"lanes": 4}}}})"));
  const Section a = run.node_section("a", "pcie");
  const Section b = run.node_section("b", "pcie");
  EXPECT_EQ(a.integer("lanes"), 16U);
  EXPECT_EQ(b.integer("lanes"), 4U);
  EXPECT_EQ(b.integer("mps_bytes"), 256U);  // the default, shared
  EXPECT_EQ(a.instance(), "nodes.a.pcie");
  EXPECT_EQ(b.path("lanes"), "nodes.b.pcie.lanes");
  EXPECT_NO_THROW(run.require_all_read("test"));
  // The effective configuration holds what each node used, nothing else:
  // where the nodes agree once, where they differ node by node.
  EXPECT_EQ(run.used(), Json::parse(R"({"pcie": {"mps_bytes": 256},
                                       "nodes": {"a": {"pcie": {"lanes": 16}},
                                                 "b": {"pcie": {"lanes": 4}}}})"));
}

TEST(RunConfig, WhatEveryNodeAgreesOnIsRecordedOnceInTheSharedSection) {
  RunConfig run(loaded_from(R"({"nodes": {"a": {"pcie": {"lanes": 4}}}})"));
  EXPECT_EQ(run.node_section("a", "pcie").integer("lanes"), 4U);
  EXPECT_EQ(run.used(), Json::parse(R"({"pcie": {"lanes": 4}})"));
}

TEST(RunConfig, AnEmptyNodeTheExperimentDoesNotBuildIsNamed) {
  RunConfig run(loaded_from(R"({"nodes": {"z": {}}})"));
  run.node_section("a", "pcie").integer("lanes");
  EXPECT_EQ(config_error_of([&] { run.require_all_read("dma"); }),
            "t.json: nodes.z: the dma experiment has no node z (its nodes: a)");
}

TEST(RunConfig, SharedSectionsAreRecordedWhereTheyAre) {
  RunConfig run(loaded_from(R"({"link": {"gbps": 25}})"));
  EXPECT_EQ(run.section("link").number("gbps"), 25);
  EXPECT_EQ(run.used(), Json::parse(R"({"link": {"gbps": 25}})"));
}

TEST(RunConfig, AGivenKeyNoBlockReadsIsAnErrorNamingItAndWhoGaveIt) {
  RunConfig from_file(loaded_from(R"({"link": {"gbps": 25}, "pcie": {"lanes": 4}})"));
  from_file.node_section("a", "pcie").integer("lanes");
  EXPECT_EQ(config_error_of([&] { from_file.require_all_read("dma"); }),
            "t.json: link.gbps: no block of the dma experiment reads it");

  LoadedConfig loaded = loaded_from(R"({"link": {"gbps": 25}})");
  loaded.set_by["link.gbps"] = "link.gbps=25";
  RunConfig from_set(loaded);
  EXPECT_EQ(config_error_of([&] { from_set.require_all_read("dma"); }),
            "--set link.gbps=25: link.gbps: no block of the dma experiment reads it");
}

TEST(RunConfig, KeysLeftAtTheirDefaultNeedNoReader) {
  RunConfig run(loaded_from(R"({})"));
  EXPECT_NO_THROW(run.require_all_read("dma"));
  EXPECT_EQ(run.used(), Json::object());
}

TEST(RunConfig, ANodeTheExperimentDoesNotBuildIsNamed) {
  RunConfig run(loaded_from(R"({"nodes": {"c": {"pcie": {"lanes": 4}}}})"));
  run.node_section("a", "pcie").integer("lanes");
  run.node_section("b", "pcie").integer("lanes");
  EXPECT_EQ(config_error_of([&] { run.require_all_read("perf"); }),
            "t.json: nodes.c.pcie.lanes: the perf experiment has no node c (its nodes: a, b)");
}

TEST(RunConfig, AnOverriddenKeyTheNodeNeverReadsIsAnError) {
  RunConfig run(loaded_from(R"({"nodes": {"a": {"pcie": {"mps_bytes": 512}}}})"));
  run.node_section("a", "pcie").integer("lanes");
  EXPECT_EQ(config_error_of([&] { run.require_all_read("dma"); }),
            "t.json: nodes.a.pcie.mps_bytes: no block of the dma experiment reads it");
}

TEST(RunConfig, StreamSeedsDependOnTheRunSeedAndTheInstancePath) {
  RunConfig run(loaded_from(R"({"seed": 7})"));
  const std::uint64_t a = run.node_section("a", "pcie").stream_seed();
  const std::uint64_t b = run.node_section("b", "pcie").stream_seed();
  EXPECT_NE(a, b);
  EXPECT_EQ(a, stream_seed(7, "nodes.a.pcie"));
  EXPECT_NE(run.node_section("a", "pcie").stream_seed("pages"), a);
  EXPECT_EQ(run.node_section("a", "pcie").stream_seed("pages"), stream_seed(7, "nodes.a.pcie.pages"));
  EXPECT_NE(stream_seed(8, "nodes.a.pcie"), a);
  EXPECT_EQ(run.used()["seed"], 7);  // a stream seed reads the run's seed
}

TEST(NodeConfig, RulesBetweenKeysHoldOnEveryNodesView) {
  EXPECT_EQ(config_error_of([] {
              validate(Json::parse(R"({"nodes": {"b": {"pcie": {"mps_bytes": 128,
                                                                "completion_bytes": 256}}}})"),
                       node_schema(), "t.json");
            }),
            "t.json: nodes.b.pcie.completion_bytes: exceeds pcie.mps_bytes");
  // The shared section may break nothing that a node then mends for itself alone.
  EXPECT_EQ(config_error_of([] {
              validate(Json::parse(R"({"pcie": {"completion_bytes": 512},
                                       "nodes": {"b": {"pcie": {"mps_bytes": 512}}}})"),
                       node_schema(), "t.json");
            }),
            "t.json: pcie.completion_bytes: exceeds pcie.mps_bytes");
}

TEST(NodeConfig, NodeKeysAreCheckedLikeTheirSectionsKeys) {
  const auto error = [](const std::string& text) {
    return config_error_of([&] { validate(Json::parse(text), node_schema(), "t.json"); });
  };
  EXPECT_EQ(error(R"({"nodes": {"b": {"pcie": {"lanes": 3}}}})"),
            "t.json: nodes.b.pcie.lanes: must be one of 1, 2, 4, 8, 16 (got 3)");
  EXPECT_EQ(error(R"({"nodes": {"b": {"link": {"gbps": 3}}}})"),
            "t.json: nodes.b.link: only node sections can be given per node (pcie)");
  EXPECT_EQ(error(R"({"nodes": {"B": {}}})"),
            "t.json: nodes.B: a node name is a lower-case letter followed by lower-case "
            "letters, digits or '_' (got \"B\")");
  EXPECT_EQ(error(R"({"nodes": {"b": 1}})"),
            "t.json: nodes.b: is a node, not a value: expected an object holding node sections "
            "(pcie), got 1");
  EXPECT_EQ(error(R"({"nodes": {"b": {"pcie": {"lane": 2}}}})"),
            "t.json: nodes.b.pcie.lane: unknown key (did you mean 'nodes.b.pcie.lanes'?)");
}

TEST(NodeConfig, SetGivesOneNodesKey) {
  Json doc = Json::object();
  apply_override(doc, "nodes.b.pcie.lanes=4", node_schema());
  EXPECT_EQ(doc, Json::parse(R"({"nodes": {"b": {"pcie": {"lanes": 4}}}})"));
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "nodes.b.pcie.lanes=3", node_schema()); }),
            "--set nodes.b.pcie.lanes=3: nodes.b.pcie.lanes: must be one of 1, 2, 4, 8, 16 (got 3)");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "nodes.b.link.gbps=3", node_schema()); }),
            "--set nodes.b.link.gbps=3: nodes.b.link.gbps: only node sections can be given per "
            "node (pcie)");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "nodes.b.pcie=3", node_schema()); }),
            "--set nodes.b.pcie=3: nodes.b.pcie: is a section, not a value: set one of its keys "
            "(lanes, mps_bytes, completion_bytes), e.g. --set nodes.b.pcie.lanes=8");
}

}  // namespace
}  // namespace rnicsim::config
