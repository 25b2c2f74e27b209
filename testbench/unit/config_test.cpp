// The messages asserted here are what a CLI user reads, so they are compared
// exactly: a reworded or misplaced error is a regression.
#include "config/config.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "unit/config_error_of.hpp"

namespace rnicsim::config {
namespace {


// One key of each kind, nested one and two levels deep.
Schema test_schema() {
  Schema schema;
  schema.add(make_key(ValueKind::kBoolean, "trace.enabled", false, "", "Write a VCD trace."));
  KeySpec lanes = make_key(ValueKind::kInteger, "link.lanes", 4, "lanes", "Serial lanes.");
  lanes.min = 1;
  schema.add(lanes);
  KeySpec gbps = make_key(ValueKind::kNumber, "link.gbps", 100, "Gbit/s", "Line rate.");
  gbps.min = 0;
  gbps.min_exclusive = true;
  gbps.max = 400;
  schema.add(gbps);
  KeySpec framing =
      make_key(ValueKind::kString, "link.phy.framing", "ethernet", "", "Frame format.");
  framing.choices = {"none", "ethernet"};
  schema.add(framing);
  return schema;
}

template <typename Action>
std::string logic_error_of(Action&& action) {
  try {
    action();
  } catch (const std::logic_error& error) {
    return error.what();
  }
  return "no logic_error thrown";
}

std::string validate_error(const std::string& json_text) {
  return config_error_of([&] { validate(Json::parse(json_text), test_schema(), "t.json"); });
}

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    do {
      dir_ = std::filesystem::temp_directory_path() /
             ("rnicsim_config_test_" + std::to_string(random()));
    } while (!std::filesystem::create_directory(dir_));
  }

  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::string write_file(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    out << text;
    return path;
  }

  std::filesystem::path dir_;
};

TEST(ConfigErrorTest, WhatNamesSourceKeyAndReason) {
  const ConfigError with_key("a.json", "link.gbps", "must be > 0 (got 0)");
  EXPECT_STREQ(with_key.what(), "a.json: link.gbps: must be > 0 (got 0)");
  EXPECT_EQ(with_key.source(), "a.json");
  EXPECT_EQ(with_key.key(), "link.gbps");
  EXPECT_EQ(with_key.reason(), "must be > 0 (got 0)");
  const ConfigError without_key("a.json", "", "cannot open file: x");
  EXPECT_STREQ(without_key.what(), "a.json: cannot open file: x");
}

TEST_F(ConfigFileTest, ReadsJsonFile) {
  const std::string path = write_file("ok.json", "{\"link\": {\"gbps\": 25}}\n");
  EXPECT_EQ(read_json_file(path), Json::parse(R"({"link": {"gbps": 25}})"));
}

TEST_F(ConfigFileTest, MissingFileNamesFileAndSystemReason) {
  const std::string path = (dir_ / "absent.json").string();
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path + ": cannot open file: " + std::strerror(ENOENT));
}

TEST_F(ConfigFileTest, DirectoryIsUnreadable) {
  const std::string path = dir_.string();
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path + ": cannot open file: " + std::strerror(EISDIR));
}

TEST_F(ConfigFileTest, MalformedJsonGivesLineAndColumn) {
  const std::string path = write_file("bad.json",
                                      "{\n"
                                      "  \"link\": {\n"
                                      "    \"gbps\": ,\n"
                                      "  }\n"
                                      "}\n");
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path +
                ": malformed JSON at line 3, column 13: unexpected ','; expected '[', '{', or a "
                "literal");
}

TEST_F(ConfigFileTest, TruncatedJsonPointsPastTheEnd) {
  const std::string path = write_file("truncated.json", "{\n  \"a\": 1");
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path + ": malformed JSON at line 2, column 9: unexpected end of input; expected '}'");
}

TEST_F(ConfigFileTest, EmptyFileIsMalformed) {
  const std::string path = write_file("empty.json", "");
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path +
                ": malformed JSON at line 1, column 1: unexpected end of input; expected '[', "
                "'{', or a literal");
}

TEST(ConfigValidateTest, TopLevelMustBeAnObject) {
  EXPECT_EQ(validate_error("[1, 2]"), "t.json: expected an object at the top level, got an array");
}

TEST(ConfigValidateTest, UnknownKeyWithSuggestion) {
  EXPECT_EQ(validate_error(R"({"link": {"gbpss": 25}})"),
            "t.json: link.gbpss: unknown key (did you mean 'link.gbps'?)");
  // A swap is two edits, the farthest a suggestion reaches.
  EXPECT_EQ(validate_error(R"({"link": {"gpbs": 25}})"),
            "t.json: link.gpbs: unknown key (did you mean 'link.gbps'?)");
  EXPECT_EQ(validate_error(R"({"link": {"gbpsxyz": 25}})"), "t.json: link.gbpsxyz: unknown key");
}

TEST(ConfigValidateTest, UnknownSectionWithSuggestion) {
  EXPECT_EQ(validate_error(R"({"lnk": {"gbps": 25}})"),
            "t.json: lnk: unknown key (did you mean 'link'?)");
}

TEST(ConfigValidateTest, UnknownKeyWithoutSuggestion) {
  EXPECT_EQ(validate_error(R"({"link": {"latency_ns": 5}})"),
            "t.json: link.latency_ns: unknown key");
}

TEST(ConfigValidateTest, DottedMemberNameIsRejected) {
  EXPECT_EQ(validate_error(R"({"link.gbps": 25})"),
            "t.json: link.gbps: a key name must be non-empty and contain no '.'");
}

TEST(ConfigValidateTest, SectionGivenAValueSaysItIsASection) {
  EXPECT_EQ(validate_error(R"({"link": 5})"),
            "t.json: link: is a section, not a value: expected an object holding its keys "
            "(lanes, gbps, phy.framing), got 5");
  EXPECT_EQ(validate_error(R"({"link": {"phy": "ethernet"}})"),
            "t.json: link.phy: is a section, not a value: expected an object holding its keys "
            "(framing), got a string (\"ethernet\")");
}

TEST(ConfigValidateTest, ValueMustNotBeAnObject) {
  EXPECT_EQ(validate_error(R"({"link": {"gbps": {"value": 25}}})"),
            "t.json: link.gbps: expected a number, got an object");
}

TEST(ConfigValidateTest, WrongTypeNamesExpectedAndFound) {
  EXPECT_EQ(validate_error(R"({"trace": {"enabled": 1}})"),
            "t.json: trace.enabled: expected a boolean, got 1");
  EXPECT_EQ(validate_error(R"({"link": {"lanes": "4"}})"),
            "t.json: link.lanes: expected an integer, got a string (\"4\")");
  EXPECT_EQ(validate_error(R"({"link": {"gbps": "abc"}})"),
            "t.json: link.gbps: expected a number, got a string (\"abc\")");
  EXPECT_EQ(validate_error(R"({"link": {"gbps": null}})"),
            "t.json: link.gbps: expected a number, got null");
  EXPECT_EQ(validate_error(R"({"link": {"phy": {"framing": true}}})"),
            "t.json: link.phy.framing: expected a string, got a boolean (true)");
  EXPECT_EQ(validate_error(R"({"link": {"phy": {"framing": ["none"]}}})"),
            "t.json: link.phy.framing: expected a string, got an array");
}

TEST(ConfigValidateTest, IntegerRejectsFractionalAndWholeFloats) {
  EXPECT_EQ(validate_error(R"({"link": {"lanes": 2.5}})"),
            "t.json: link.lanes: expected an integer, got 2.5");
  EXPECT_EQ(validate_error(R"({"link": {"lanes": 2.0}})"),
            "t.json: link.lanes: expected an integer, got 2.0");
}

TEST(ConfigValidateTest, InclusiveMinimum) {
  const Json effective = validate(Json::parse(R"({"link": {"lanes": 1}})"), test_schema(), "t");
  EXPECT_EQ(at_path(effective, "link.lanes"), 1);
  EXPECT_EQ(validate_error(R"({"link": {"lanes": 0}})"),
            "t.json: link.lanes: must be >= 1 (got 0)");
  EXPECT_EQ(validate_error(R"({"link": {"lanes": -3}})"),
            "t.json: link.lanes: must be >= 1 (got -3)");
}

TEST(ConfigValidateTest, ExclusiveMinimumAndMaximum) {
  EXPECT_EQ(validate_error(R"({"link": {"gbps": 0}})"), "t.json: link.gbps: must be > 0 (got 0)");
  EXPECT_EQ(validate_error(R"({"link": {"gbps": -0.5}})"),
            "t.json: link.gbps: must be > 0 (got -0.5)");
  EXPECT_EQ(validate_error(R"({"link": {"gbps": 400.5}})"),
            "t.json: link.gbps: must be <= 400 (got 400.5)");
  EXPECT_EQ(validate_error(R"({"link": {"gbps": 401}})"),
            "t.json: link.gbps: must be <= 400 (got 401)");
  const Schema schema = test_schema();
  EXPECT_EQ(
      at_path(validate(Json::parse(R"({"link": {"gbps": 0.001}})"), schema, "t"), "link.gbps"),
      0.001);
  EXPECT_EQ(at_path(validate(Json::parse(R"({"link": {"gbps": 400}})"), schema, "t"), "link.gbps"),
            400);
}

TEST(ConfigValidateTest, FractionalBoundsPrintCompactly) {
  Schema schema;
  KeySpec load = make_key(ValueKind::kNumber, "host.load", 0.5, "", "Offered load.");
  load.min = 0.25;
  load.max = 0.95;
  schema.add(load);
  EXPECT_EQ(
      config_error_of([&] { validate(Json::parse(R"({"host": {"load": 0.2}})"), schema, "t"); }),
      "t: host.load: must be >= 0.25 (got 0.2)");
  EXPECT_EQ(
      config_error_of([&] { validate(Json::parse(R"({"host": {"load": 1}})"), schema, "t"); }),
      "t: host.load: must be <= 0.95 (got 1)");
}

TEST(ConfigValidateTest, IntegerListChecksEveryElement) {
  Schema schema;
  schema.add(integer_list_key("run.sizes", Json::array({64, 128}), "bytes", "Sizes.").at_least(1));
  const auto error_of = [&schema](const std::string& text) {
    return config_error_of([&] { validate(Json::parse(text), schema, "t.json"); });
  };
  EXPECT_EQ(validate(Json::parse(R"({"run": {"sizes": [1, 4096]}})"), schema, "t.json")
                .at("run").at("sizes"),
            Json::array({1, 4096}));
  EXPECT_EQ(error_of(R"({"run": {"sizes": [8, 0, 16]}})"),
            "t.json: run.sizes: must be >= 1 (got 0 at index 1)");
  EXPECT_EQ(error_of(R"({"run": {"sizes": []}})"),
            "t.json: run.sizes: expected a non-empty list of integers, got an array");
  EXPECT_EQ(error_of(R"({"run": {"sizes": [8, 1.5]}})"),
            "t.json: run.sizes: expected a non-empty list of integers, got an array");
  EXPECT_EQ(error_of(R"({"run": {"sizes": 64}})"),
            "t.json: run.sizes: expected a non-empty list of integers, got 64");
}

TEST(ConfigValidateTest, StringMustBeAChoice) {
  EXPECT_EQ(validate_error(R"({"link": {"phy": {"framing": "foo"}}})"),
            "t.json: link.phy.framing: must be one of \"none\", \"ethernet\" (got \"foo\")");
  const Json effective =
      validate(Json::parse(R"({"link": {"phy": {"framing": "none"}}})"), test_schema(), "t");
  EXPECT_EQ(at_path(effective, "link.phy.framing"), "none");
}

TEST(ConfigValidateTest, FirstErrorInKeyOrderWins) {
  // "lanes" sorts before "phy", whatever the order in the text.
  EXPECT_EQ(validate_error(R"({"link": {"phy": {"framing": "foo"}, "lanes": 0}})"),
            "t.json: link.lanes: must be >= 1 (got 0)");
}

TEST(ConfigValidateTest, EmptyDocumentGetsEveryDefault) {
  const Json effective = validate(Json::object(), test_schema(), "t");
  EXPECT_EQ(effective, Json::parse(R"({
    "trace": {"enabled": false},
    "link": {"lanes": 4, "gbps": 100, "phy": {"framing": "ethernet"}}
  })"));
  EXPECT_EQ(effective, test_schema().defaults());
}

TEST(ConfigValidateTest, DocumentValuesOverrideDefaults) {
  const Json effective =
      validate(Json::parse(R"({"link": {"gbps": 25.5, "phy": {}}, "trace": {"enabled": true}})"),
               test_schema(), "t");
  EXPECT_EQ(effective, Json::parse(R"({
    "trace": {"enabled": true},
    "link": {"lanes": 4, "gbps": 25.5, "phy": {"framing": "ethernet"}}
  })"));
}

TEST(ConfigOverrideTest, NumberIsParsedAsJson) {
  Json doc = Json::object();
  apply_override(doc, "link.gbps=25", test_schema());
  EXPECT_EQ(doc, Json::parse(R"({"link": {"gbps": 25}})"));
  EXPECT_TRUE(at_path(doc, "link.gbps").is_number_integer());
}

TEST(ConfigOverrideTest, BareWordIsAString) {
  Json doc = Json::object();
  apply_override(doc, "link.phy.framing=none", test_schema());
  EXPECT_EQ(doc, Json::parse(R"({"link": {"phy": {"framing": "none"}}})"));
}

TEST(ConfigOverrideTest, TrueIsABoolean) {
  Json doc = Json::object();
  apply_override(doc, "trace.enabled=true", test_schema());
  EXPECT_EQ(at_path(doc, "trace.enabled"), true);
}

// A string key that takes any text.
Schema name_schema() {
  Schema schema;
  schema.add(string_key("run.name", "x", "Run name."));
  return schema;
}

TEST(ConfigOverrideTest, QuotedJsonStringStaysAString) {
  Json doc = Json::object();
  apply_override(doc, "run.name=\"42\"", name_schema());
  EXPECT_EQ(at_path(doc, "run.name"), "42");
}

TEST(ConfigOverrideTest, ValueAfterFirstEqualsIsKept) {
  Json doc = Json::object();
  apply_override(doc, "run.name=a=b", name_schema());
  EXPECT_EQ(at_path(doc, "run.name"), "a=b");
}

TEST(ConfigOverrideTest, ReplacesExistingValueAndKeepsSiblings) {
  Json doc = Json::parse(R"({"link": {"lanes": 2, "gbps": 50}})");
  apply_override(doc, "link.gbps=12.5", test_schema());
  EXPECT_EQ(doc, Json::parse(R"({"link": {"lanes": 2, "gbps": 12.5}})"));
}

TEST(ConfigOverrideTest, MissingEqualsOrPath) {
  Json doc = Json::object();
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.gbps", test_schema()); }),
            "--set link.gbps: expected key.path=value");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "=5", test_schema()); }),
            "--set =5: expected key.path=value");
  EXPECT_EQ(doc, Json::object());
}

TEST(ConfigOverrideTest, UnknownPath) {
  Json doc = Json::object();
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.gbs=5", test_schema()); }),
            "--set link.gbs=5: link.gbs: unknown key (did you mean 'link.gbps'?)");
  EXPECT_EQ(doc, Json::object());
}

TEST(ConfigOverrideTest, SectionGivenAValueSaysItIsASection) {
  Json doc = Json::object();
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link=5", test_schema()); }),
            "--set link=5: link: is a section, not a value: set one of its keys (lanes, gbps, "
            "phy.framing), e.g. --set link.lanes=4");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.phy={}", test_schema()); }),
            "--set link.phy={}: link.phy: is a section, not a value: set one of its keys "
            "(framing), e.g. --set link.phy.framing=\"ethernet\"");
  EXPECT_EQ(doc, Json::object());
}

TEST(ConfigOverrideTest, ValueIsCheckedAndBlamedOnTheSet) {
  Json doc = Json::object();
  const Schema schema = test_schema();
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.gbps=-5", schema); }),
            "--set link.gbps=-5: link.gbps: must be > 0 (got -5)");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.lanes=fast", schema); }),
            "--set link.lanes=fast: link.lanes: expected an integer, got a string (\"fast\")");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.phy.framing=token", schema); }),
            "--set link.phy.framing=token: link.phy.framing: must be one of \"none\", "
            "\"ethernet\" (got \"token\")");
  EXPECT_EQ(doc, Json::object());
}

TEST(ConfigOverrideTest, NumberOutOfRangeIsAnErrorNotAString) {
  Json doc = Json::object();
  const Schema schema = test_schema();
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.gbps=1e400", schema); }),
            "--set link.gbps=1e400: link.gbps: number 1e400 is out of range for a double");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.gbps=-1e400", schema); }),
            "--set link.gbps=-1e400: link.gbps: number -1e400 is out of range for a double");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.lanes=99999999999999999999", schema); }),
            "--set link.lanes=99999999999999999999: link.lanes: number 99999999999999999999 is "
            "out of range for a 64-bit integer");
  EXPECT_EQ(doc, Json::object());
}

TEST(ConfigOverrideTest, IntermediateMustBeAnObject) {
  Json doc = Json::parse(R"({"link": {"phy": 3}})");
  EXPECT_EQ(config_error_of([&] { apply_override(doc, "link.phy.framing=none", test_schema()); }),
            "--set link.phy.framing=none: link.phy.framing: expected an object at link.phy");
}

TEST_F(ConfigFileTest, LoadAppliesOverridesInOrderThenValidates) {
  const std::string path = write_file("run.json", R"({"link": {"lanes": 2}})");
  const Json effective =
      load(path, {"link.gbps=50", "link.gbps=200", "trace.enabled=true"}, test_schema());
  EXPECT_EQ(effective, Json::parse(R"({
    "trace": {"enabled": true},
    "link": {"lanes": 2, "gbps": 200, "phy": {"framing": "ethernet"}}
  })"));
}

TEST_F(ConfigFileTest, LoadBlamesABadOverrideValueOnTheSet) {
  const std::string path = write_file("run.json", "{}");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.gbps=fast"}, test_schema()); }),
            "--set link.gbps=fast: link.gbps: expected a number, got a string (\"fast\")");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.lanes=2", "link.gbps=-5"}, test_schema()); }),
            "--set link.gbps=-5: link.gbps: must be > 0 (got -5)");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.gbps=1e400"}, test_schema()); }),
            "--set link.gbps=1e400: link.gbps: number 1e400 is out of range for a double");
}

TEST_F(ConfigFileTest, LoadBlamesTheFileForItsOwnValuesEvenWhenASetReplacesThem) {
  const std::string path = write_file("run.json", R"({"link": {"gbps": -1}})");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.gbps=5"}, test_schema()); }),
            path + ": link.gbps: must be > 0 (got -1)");
}

TEST_F(ConfigFileTest, LoadBlamesASectionValueOnTheFile) {
  const std::string path = write_file("run.json", R"({"link": 5})");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.gbps=5"}, test_schema()); }),
            path + ": link: is a section, not a value: expected an object holding its keys "
                   "(lanes, gbps, phy.framing), got 5");
}

TEST_F(ConfigFileTest, LoadBlamesNonObjectFileBeforeOverrides) {
  const std::string path = write_file("run.json", "[]");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.gbps=5"}, test_schema()); }),
            path + ": expected an object at the top level, got an array");
}

TEST(ConfigAtPathTest, FindsNestedValueOrThrows) {
  const Json doc = test_schema().defaults();
  EXPECT_EQ(at_path(doc, "link.phy.framing"), "ethernet");
  EXPECT_EQ(at_path(doc, "link.phy"), Json::parse(R"({"framing": "ethernet"})"));
  try {
    at_path(doc, "link.phy.speed");
    FAIL() << "no out_of_range thrown";
  } catch (const std::out_of_range& error) {
    EXPECT_STREQ(error.what(), "no key link.phy.speed");
  }
  EXPECT_THROW(at_path(doc, "link.gbps.value"), std::out_of_range);
}

TEST(ConfigSchemaTest, FindReturnsDeclaredKey) {
  const Schema schema = test_schema();
  ASSERT_NE(schema.find("link.gbps"), nullptr);
  EXPECT_EQ(schema.find("link.gbps")->unit, "Gbit/s");
  EXPECT_EQ(schema.find("link"), nullptr);
  EXPECT_EQ(schema.keys().size(), 4U);
}

TEST(ConfigSchemaTest, DuplicateKeyIsALogicError) {
  Schema schema = test_schema();
  EXPECT_EQ(
      logic_error_of([&] { schema.add(make_key(ValueKind::kNumber, "link.gbps", 1, "", "")); }),
      "config key 'link.gbps' declared twice");
}

TEST(ConfigSchemaTest, KeyThatIsAlsoASectionIsALogicError) {
  Schema schema = test_schema();
  EXPECT_EQ(
      logic_error_of([&] { schema.add(make_key(ValueKind::kString, "link.phy", "", "", "")); }),
      "config key 'link.phy' clashes with 'link.phy.framing': a key cannot also be a "
      "section");
  EXPECT_EQ(logic_error_of(
                [&] { schema.add(make_key(ValueKind::kNumber, "link.gbps.peak", 1, "", "")); }),
            "config key 'link.gbps.peak' clashes with 'link.gbps': a key cannot also be a "
            "section");
  // Sharing a name prefix without a '.' boundary is no clash.
  schema.add(make_key(ValueKind::kNumber, "link.gbps_peak", 1, "", ""));
  EXPECT_NE(schema.find("link.gbps_peak"), nullptr);
}

TEST(ConfigSchemaTest, EmptyPathSegmentIsALogicError) {
  Schema schema;
  EXPECT_EQ(
      logic_error_of([&] { schema.add(make_key(ValueKind::kNumber, "link..gbps", 1, "", "")); }),
      "config key 'link..gbps': empty path segment");
}

TEST(ConfigSchemaTest, BadDefaultIsALogicError) {
  Schema schema;
  KeySpec lanes = make_key(ValueKind::kInteger, "link.lanes", 0, "", "");
  lanes.min = 1;
  EXPECT_EQ(logic_error_of([&] { schema.add(lanes); }),
            "config key 'link.lanes': bad default: must be >= 1 (got 0)");
  EXPECT_EQ(
      logic_error_of([&] { schema.add(make_key(ValueKind::kInteger, "link.lanes", 2.0, "", "")); }),
      "config key 'link.lanes': bad default: expected an integer, got 2.0");
  KeySpec framing = make_key(ValueKind::kString, "link.framing", "foo", "", "");
  framing.choices = {"none"};
  EXPECT_EQ(logic_error_of([&] { schema.add(framing); }),
            "config key 'link.framing': bad default: must be one of \"none\" (got \"foo\")");
  EXPECT_TRUE(schema.keys().empty());
}

TEST(ConfigSchemaTest, ConstraintOfTheWrongKindIsALogicError) {
  Schema schema;
  KeySpec name = make_key(ValueKind::kString, "run.name", "x", "", "");
  name.min = 1;
  EXPECT_EQ(logic_error_of([&] { schema.add(name); }),
            "config key 'run.name': min/max need an integer or number key");
  KeySpec lanes = make_key(ValueKind::kInteger, "link.lanes", 1, "", "");
  lanes.choices = {"1"};
  EXPECT_EQ(logic_error_of([&] { schema.add(lanes); }),
            "config key 'link.lanes': choices need a string key");
}

TEST(ConfigMarkdownTest, TableListsKeysInDeclarationOrder) {
  Schema schema;
  KeySpec gbps = make_key(ValueKind::kNumber, "link.gbps", 100, "Gbit/s", "Line rate | per port.");
  gbps.min = 0;
  gbps.max = 1e6;
  schema.add(gbps);
  KeySpec framing = make_key(ValueKind::kString, "link.framing", "none", "", "Frame format.");
  framing.choices = {"none", "ethernet"};
  schema.add(framing);
  schema.add(make_key(ValueKind::kBoolean, "trace.enabled", false, "", "Write a VCD trace."));
  KeySpec lanes = make_key(ValueKind::kInteger, "link.lanes", 4, "", "Serial lanes.");
  lanes.min = 0;
  lanes.min_exclusive = true;
  schema.add(lanes);
  EXPECT_EQ(markdown_table(schema),
            "| key | type | unit | default | range | meaning |\n"
            "| --- | --- | --- | --- | --- | --- |\n"
            "| link.gbps | number | Gbit/s | 100 | >= 0, <= 1000000 | Line rate \\| per port. |\n"
            "| link.framing | string |  | \"none\" | one of none, ethernet | Frame format. |\n"
            "| trace.enabled | boolean |  | false |  | Write a VCD trace. |\n"
            "| link.lanes | integer |  | 4 | > 0 | Serial lanes. |\n");
}

// What nlohmann's own parser lets through or turns into an exception that is
// not a parse error; each must be one ConfigError naming the file, the key's
// path and the position.
TEST_F(ConfigFileTest, NumberBeyondADoubleIsOutOfRange) {
  const std::string path = write_file("big.json", "{\n  \"link\": {\"gbps\": 1e400}\n}\n");
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path + ": link.gbps: number 1e400 is out of range for a double (line 2, column 20)");
  const std::string negative = write_file("negative.json", R"({"link": {"gbps": -1e400}})");
  EXPECT_EQ(config_error_of([&] { load(negative, {}, test_schema()); }),
            negative +
                ": link.gbps: number -1e400 is out of range for a double (line 1, column 19)");
}

TEST_F(ConfigFileTest, NumbersThatWouldSilentlyChangeAreOutOfRange) {
  const std::string tiny = write_file("tiny.json", R"({"link": {"gbps": 1e-400}})");
  EXPECT_EQ(config_error_of([&] { read_json_file(tiny); }),
            tiny + ": link.gbps: number 1e-400 is out of range for a double (line 1, column 19)");
  const std::string wide = write_file("wide.json", R"({"link": {"lanes": 123456789012345678901}})");
  EXPECT_EQ(config_error_of([&] { read_json_file(wide); }),
            wide + ": link.lanes: number 123456789012345678901 is out of range for a 64-bit "
                   "integer (line 1, column 20)");
  // Zero and the largest 64-bit integers are fine.
  const std::string fine = write_file(
      "fine.json", R"({"a": 0.0, "b": 0e5, "c": -0, "d": 18446744073709551615, "e": 1e-300})");
  EXPECT_EQ(read_json_file(fine).at("d").get<std::uint64_t>(), 18446744073709551615ULL);
}

TEST_F(ConfigFileTest, NumberInsideAListNamesItsIndex) {
  const std::string path = write_file("list.json", "{\"run\": {\"sizes\": [1,\n  2,\n  -1e999]}}");
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path + ": run.sizes[2]: number -1e999 is out of range for a double (line 3, column 3)");
}

TEST_F(ConfigFileTest, DuplicateKeyNamesItsPathAndBothPlaces) {
  const std::string path = write_file("dup.json",
                                      "{\n"
                                      "  \"link\": {\"gbps\": 10,\n"
                                      "           \"gbps\": 20}\n"
                                      "}\n");
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path + ": link.gbps: duplicate key (line 3, column 12; first at line 2, column 12)");
}

TEST_F(ConfigFileTest, DuplicateSectionIsNotMergedOrReplaced) {
  const std::string path =
      write_file("dup.json", R"({"link":{"gbps":10},"link":{"propagation_ns":5}})");
  EXPECT_EQ(config_error_of([&] { load(path, {}, test_schema()); }),
            path + ": link: duplicate key (line 1, column 21; first at line 1, column 2)");
}

TEST_F(ConfigFileTest, DuplicateKeyInsideAListAndSameNameInTwoObjects) {
  const std::string path = write_file("dup.json", R"({"a": [{"x": 1}, {"x": 2, "x": 3}]})");
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path + ": a[1].x: duplicate key (line 1, column 27; first at line 1, column 19)");
  // The same name in sibling objects, or a key named like a string value, is no duplicate.
  const std::string fine = write_file("fine.json", R"({"a": {"x": "y"}, "b": {"x": 1, "y": "x"}})");
  EXPECT_EQ(read_json_file(fine), Json::parse(R"({"a": {"x": "y"}, "b": {"x": 1, "y": "x"}})"));
}

TEST_F(ConfigFileTest, EscapedNulInAKeyIsPrintedEscaped) {
  const std::string path = write_file("nul.json", R"({"link": {"gb\u0000ps": 10}})");
  const std::string message = config_error_of([&] { load(path, {}, test_schema()); });
  EXPECT_EQ(message, path + ": link.gb\\u0000ps: a key name must not contain control characters "
                            "(line 1, column 11)");
  EXPECT_EQ(message.find('\0'), std::string::npos);
}

TEST_F(ConfigFileTest, ControlCharacterInAKeyKeepsTheMessageOnOneLine) {
  const std::string path = write_file("ctl.json", R"({"li\nnk": {"gbps": 10}, "x\u007f": 1})");
  EXPECT_EQ(config_error_of([&] { read_json_file(path); }),
            path + ": li\\nnk: a key name must not contain control characters (line 1, column 2)");
  const std::string del = write_file("del.json", R"({"x\u007f": 1})");
  EXPECT_EQ(config_error_of([&] { read_json_file(del); }),
            del + ": x\\u007f: a key name must not contain control characters (line 1, column 2)");
}

TEST_F(ConfigFileTest, RawNulByteIsMalformed) {
  const std::string in_key = write_file("nul.json", std::string("{\"gb\0ps\": 1}", 12));
  EXPECT_EQ(config_error_of([&] { read_json_file(in_key); }),
            in_key + ": malformed JSON at line 1, column 5: NUL byte (JSON text cannot contain one)");
  // nlohmann alone stops reading at the NUL and accepts the document.
  const std::string after = write_file("after.json", std::string("{}\n\0garbage", 11));
  EXPECT_EQ(config_error_of([&] { load(after, {}, test_schema()); }),
            after + ": malformed JSON at line 2, column 1: NUL byte (JSON text cannot contain one)");
}

TEST(ConfigParseTest, ParsesLikeNlohmannOtherwise) {
  const std::string text = R"({"a": [1, -2, 2.5, "s\"x", true, null, {}, []], "b": {"c": {"d": 1e3}}})";
  EXPECT_EQ(parse_json_text(text, "t"), Json::parse(text));
  EXPECT_EQ(parse_json_text("7", "t"), Json(7));
  EXPECT_EQ(config_error_of([] { parse_json_text("{} x", "t"); }),
            "t: malformed JSON at line 1, column 4: invalid literal; last read: '{} x'; expected end "
            "of input");
}

TEST(ConfigPrintableTest, EscapesControlCharactersOnly) {
  EXPECT_EQ(printable("a.b_c-d \"e\" \\ é"), "a.b_c-d \"e\" \\ é");
  EXPECT_EQ(printable(std::string("a\0b\nc\td\re\x1f\x7f", 11)), "a\\u0000b\\nc\\td\\re\\u001f\\u007f");
  const ConfigError error(std::string("f\nile", 5), std::string("k\0y", 3), "bad\n");
  EXPECT_STREQ(error.what(), "f\\nile: k\\u0000y: bad\\n");
}

TEST(ConfigIntegerRulesTest, OneOfIntegersAndPowerOfTwo) {
  Schema schema;
  schema.add(integer_key("pcie.lanes", 8, "lanes", "width").one_of_integers({1, 2, 4, 8}));
  schema.add(integer_key("pcie.mps", 256, "bytes", "MPS").at_least(128).at_most(4096).power_of_two());
  schema.add(integer_list_key("run.sizes", Json::array({64}), "bytes", "sizes").power_of_two());
  const auto error_of = [&schema](const std::string& text) {
    return config_error_of([&] { validate(Json::parse(text), schema, "t.json"); });
  };
  EXPECT_EQ(error_of(R"({"pcie": {"lanes": 3}})"),
            "t.json: pcie.lanes: must be one of 1, 2, 4, 8 (got 3)");
  EXPECT_EQ(error_of(R"({"pcie": {"lanes": -8}})"),
            "t.json: pcie.lanes: must be one of 1, 2, 4, 8 (got -8)");
  EXPECT_EQ(error_of(R"({"pcie": {"lanes": 18446744073709551615}})"),
            "t.json: pcie.lanes: must be one of 1, 2, 4, 8 (got 18446744073709551615)");
  EXPECT_EQ(error_of(R"({"pcie": {"mps": 384}})"), "t.json: pcie.mps: must be a power of two (got 384)");
  EXPECT_EQ(error_of(R"({"pcie": {"mps": 8192}})"), "t.json: pcie.mps: must be <= 4096 (got 8192)");
  EXPECT_EQ(error_of(R"({"run": {"sizes": [64, 96]}})"),
            "t.json: run.sizes: must be a power of two (got 96 at index 1)");
  EXPECT_EQ(error_of(R"({"run": {"sizes": [0]}})"),
            "t.json: run.sizes: must be a power of two (got 0 at index 0)");
  const Json effective =
      validate(Json::parse(R"({"pcie": {"lanes": 4, "mps": 4096}, "run": {"sizes": [1, 1024]}})"),
               schema, "t.json");
  EXPECT_EQ(at_path(effective, "pcie.lanes"), 4);
  EXPECT_EQ(markdown_table(schema),
            "| key | type | unit | default | range | meaning |\n"
            "| --- | --- | --- | --- | --- | --- |\n"
            "| pcie.lanes | integer | lanes | 8 | one of 1, 2, 4, 8 | width |\n"
            "| pcie.mps | integer | bytes | 256 | >= 128, <= 4096, power of two | MPS |\n"
            "| run.sizes | integer list | bytes | [64] | power of two | sizes |\n");
}

TEST(ConfigIntegerRulesTest, MisusedRulesAreLogicErrors) {
  Schema schema;
  EXPECT_EQ(logic_error_of([&] { schema.add(number_key("a.x", 1, "", "").power_of_two()); }),
            "config key 'a.x': integer choices and powers of two need an integer key");
  EXPECT_EQ(logic_error_of([&] {
              schema.add(integer_key("a.y", 1, "", "").one_of_integers({1, 2}).at_most(4));
            }),
            "config key 'a.y': integer choices replace min/max; give one or the other");
  EXPECT_EQ(logic_error_of([&] { schema.add(integer_key("a.z", 3, "", "").power_of_two()); }),
            "config key 'a.z': bad default: must be a power of two (got 3)");
  EXPECT_TRUE(schema.keys().empty());
}

// test_schema() plus a rule between keys: link.lanes must not exceed link.gbps.
Schema schema_with_rule() {
  Schema schema = test_schema();
  schema.add_check({"link.lanes", "link.gbps"}, [](const Json& doc) -> std::optional<Violation> {
    if (at_path(doc, "link.lanes").get<double>() <= at_path(doc, "link.gbps").get<double>()) {
      return std::nullopt;
    }
    return Violation{"link.lanes", "must not exceed link.gbps"};
  });
  return schema;
}

TEST(ConfigRuleTest, ValidateChecksRulesBetweenKeys) {
  const Schema schema = schema_with_rule();
  EXPECT_EQ(config_error_of(
                [&] { validate(Json::parse(R"({"link": {"lanes": 8, "gbps": 4}})"), schema, "t"); }),
            "t: link.lanes: must not exceed link.gbps");
  // Defaults take part: lanes defaults to 4.
  EXPECT_EQ(config_error_of([&] { validate(Json::parse(R"({"link": {"gbps": 2}})"), schema, "t"); }),
            "t: link.lanes: must not exceed link.gbps");
  EXPECT_NO_THROW(validate(Json::parse(R"({"link": {"gbps": 4}})"), schema, "t"));
}

TEST_F(ConfigFileTest, BrokenRuleIsBlamedOnTheLastSetGivingOneOfItsKeys) {
  const Schema schema = schema_with_rule();
  const std::string path = write_file("run.json", R"({"link": {"lanes": 8}})");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.gbps=4"}, schema); }),
            "--set link.gbps=4: link.lanes: must not exceed link.gbps");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.gbps=2", "trace.enabled=true", "link.lanes=3"}, schema); }),
            "--set link.lanes=3: link.lanes: must not exceed link.gbps");
  EXPECT_EQ(config_error_of([&] { load(path, {"link.gbps=4", "trace.enabled=true"}, schema); }),
            "--set link.gbps=4: link.lanes: must not exceed link.gbps");
  // No --set touches the rule's keys: the file is to blame.
  const std::string slow = write_file("slow.json", R"({"link": {"lanes": 8, "gbps": 4}})");
  EXPECT_EQ(config_error_of([&] { load(slow, {"trace.enabled=true"}, schema); }),
            slow + ": link.lanes: must not exceed link.gbps");
  EXPECT_NO_THROW(load(slow, {"link.gbps=16"}, schema));
}

TEST(ConfigRuleTest, RuleNamingAnUndeclaredKeyIsALogicError) {
  Schema schema = test_schema();
  schema.add_check({"link.nope"}, [](const Json&) { return std::optional<Violation>(); });
  EXPECT_EQ(logic_error_of([&] { validate(Json::object(), schema, "t"); }),
            "a rule between keys names 'link.nope', which is not a key");
  Schema other = test_schema();
  other.add_check({"link.gbps"}, [](const Json&) {
    return std::optional<Violation>(Violation{"link.lanes", "x"});
  });
  EXPECT_EQ(logic_error_of([&] { validate(Json::object(), other, "t"); }),
            "a rule between keys reports 'link.lanes', which it does not list");
}

TEST(ConfigRuleTest, ReadersAssertWhatLoadChecked) {
  EXPECT_NO_THROW(require_checked(std::nullopt, "reader"));
  EXPECT_EQ(logic_error_of([] { require_checked(Violation{"a.b", "must be 1"}, "reader"); }),
            "reader: unchecked configuration: a.b: must be 1");
}

}  // namespace
}  // namespace rnicsim::config
