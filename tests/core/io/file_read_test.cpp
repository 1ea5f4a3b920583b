// A path the user names that is not a readable file -- a directory, nothing, an unparsable
// document -- is a clear error from every reader, never an exception: reading a directory makes
// libstdc++'s filebuf throw, and nlohmann's stream parser let it through (`precision-lab run /tmp`
// ended in std::terminate).
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/accumulate/accumulation_spec.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/io/file_read.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/scenario/scenario.h"

namespace pl::io {
namespace {

namespace fs = std::filesystem;

// A folder of its own per test and process (ctest runs each test in a process of its own, two
// at a time).
struct Scratch {
  fs::path dir = fs::temp_directory_path() /
                 ("pl_file_read_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
                  std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir / "a.json"); }  // a directory with a file's name
  ~Scratch() { fs::remove_all(dir); }
};

template <class E>
void expect_error(const E& e, const std::string& contains) {
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find(contains), std::string::npos) << e.error();
}

TEST(FileRead, ADirectoryIsAnErrorFromEveryReader) {
  Scratch s;
  const std::string d = (s.dir / "a.json").string();
  const std::string said = d + " is a directory, not a file";
  EXPECT_EQ(not_a_file(d).error(), said);
  expect_error(read_json_file(d), said);
  expect_error(read_file(d, 1 << 20), said);
  expect_error(read_npy(d), said);
  expect_error(list_safetensors_file(d), said);
  expect_error(read_safetensors_file(d, "x"), said);
  expect_error(scenario::load_scenario(d), said);
}

TEST(FileRead, MissingTooLargeAndMalformedAreNamed) {
  Scratch s;
  const std::string missing = (s.dir / "none.json").string();
  // Why it cannot be opened is said (it was "cannot open X" alone).
  expect_error(read_json_file(missing), "cannot open " + missing + ": No such file or directory");
  expect_error(scenario::load_scenario(missing), "cannot open " + missing + ": No such file or directory");
  const std::string bad = (s.dir / "bad.json").string();
  std::ofstream(bad) << "{\"experiment\": ";
  expect_error(read_json_file(bad), bad + " is not valid JSON");
  // Where it stops parsing, as the parser says it (the bare sentence left a file to be searched).
  expect_error(read_json_file(bad), "is not valid JSON: line 1, column 16: syntax error while parsing value");
  const std::string comma = (s.dir / "comma.json").string();
  std::ofstream(comma) << "{\n  \"m\": 3,\n}\n";
  expect_error(read_json_file(comma), "is not valid JSON: line 3, column 1:");
  // A number past double's range is the parser's out_of_range, not a parse_error: said, not
  // std::terminate (the experiment fuzzer's input "4e2026").
  const auto huge = parse_json_strictly("4e2026", "huge.json");
  expect_error(huge, "huge.json is not valid JSON: number overflow parsing '4e2026'");
  expect_error(read_file(bad, 4), bad + " is 15 bytes (limit 4)");
  const std::string good = (s.dir / "good.json").string();
  std::ofstream(good) << "{\"m\": 3}";
  auto j = read_json_file(good);
  ASSERT_TRUE(j) << j.error();
  EXPECT_EQ((*j)["m"], 3);
}

// A deep document was parsed whole and failed as "out of memory ... a smaller shape may fit"; a
// key given twice was merged (the last one won). Both are refused while parsing, saying why.
TEST(FileRead, DeepDocumentsAndRepeatedKeysAreRefused) {
  Scratch s;
  const std::string deep = (s.dir / "deep.json").string();
  std::ofstream(deep) << std::string(100000, '[') << std::string(100000, ']');
  expect_error(read_json_file(deep), deep + " is nested deeper than 64");
  const std::string twice = (s.dir / "twice.json").string();
  std::ofstream(twice) << R"({"experiment": "matmul", "m": 8, "m": 4096})";
  expect_error(read_json_file(twice), twice + " gives the key 'm' twice in one object");
  // The same key in two objects is fine.
  EXPECT_TRUE(parse_json_strictly(R"({"a": {"k": 1}, "b": {"k": 2}, "k": [{"k": 3}]})", "x"));
  EXPECT_TRUE(parse_json_strictly(std::string(64, '[') + std::string(64, ']'), "x"));
  EXPECT_FALSE(parse_json_strictly(std::string(65, '[') + std::string(65, ']'), "x"));
  // Bug: the parser ends its input at a NUL byte: {...}\0{"garbage": read as the object alone.
  const std::string nul = (s.dir / "nul.json").string();
  std::ofstream(nul) << R"({"experiment": "dot"})" << '\0' << R"({"garbage":)";
  expect_error(read_json_file(nul), nul + " holds a NUL byte at offset 21: it is not JSON text");
}

// A key repeated far from its first place in a large object (a tokenizer.json's vocabulary
// dropped on the window) is found, and a large object of distinct keys reads.
TEST(FileRead, RepeatedKeysAreFoundInALargeObject) {
  std::string text = "{";
  for (int i = 0; i < 50000; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  EXPECT_TRUE(parse_json_strictly(text + "\"end\": 0}", "vocab.json"));
  expect_error(parse_json_strictly(text + "\"k7\": 0}", "vocab.json"),
               "vocab.json gives the key 'k7' twice in one object");
}

// A 10 MB name was searched for its nearest dtype (seconds) and quoted whole in the message.
TEST(FileRead, HugeNamesAreRefusedByLength) {
  const std::string huge(10'000'000, 'f');
  const auto d = parse_dtype(huge);
  ASSERT_FALSE(d);
  EXPECT_LT(d.error().size(), 200u);
  EXPECT_NE(d.error().find("(10000000 characters) is not a dtype name"), std::string::npos);
  const auto a = experiment::parse_accumulation(huge);
  ASSERT_FALSE(a);
  EXPECT_LT(a.error().size(), 200u);
}

}  // namespace
}  // namespace pl::io
