// Custom float formats as dtypes (core/dtype/custom_dtype.h): named once, one id per format,
// usable wherever an experiment takes a dtype, and refused where a real framework or library
// type is needed. The arithmetic itself is checked against an independent oracle in
// MatmulGolden (tests/data/matmul/gen_matmul.py's custom cases).
#include "core/dtype/custom_dtype.h"
#include "core/accumulate/accumulation_spec.h"

#include <algorithm>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/framework_check.h"
#include "core/experiment/spec/matmul_json.h"
#include "core/promote/numpy_types.h"
#include "core/promote/torch_cuda_recorded.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

TEST(CustomDType, ANamedFormatIsAFloatDTypeWithTheRowsOfTheTable) {
  auto t = parse_dtype("e5m7");
  ASSERT_TRUE(t) << t.error();
  EXPECT_TRUE(is_custom(*t));
  EXPECT_TRUE(is_float(*t));
  const DTypeInfo& row = info(*t);
  EXPECT_EQ(row.id, *t);
  EXPECT_EQ(row.name, "e5m7b15:ieee");
  EXPECT_EQ(short_name(*t), "e5m7");
  EXPECT_EQ(row.storage_bits, 16);  // 13 bits, stored in two bytes
  EXPECT_EQ(row.format, (FloatFormat{5, 7, 15, Specials::IEEE}));
  EXPECT_NE(row.defined_by.find("5 exponent bits (bias 15)"), std::string_view::npos) << row.defined_by;
  const FrameworkNames& fw = framework_names(*t);
  EXPECT_TRUE(fw.torch.empty() && fw.numpy.empty() && fw.jax.empty() && fw.tf.empty());
  EXPECT_FALSE(is_custom(DType::float16));
  EXPECT_FALSE(is_custom(DType::bcomplex32));
}

TEST(CustomDType, EverySpellingOfAFormatIsOneId) {
  const DType t = *parse_dtype("e4m4b5:fnuz");
  EXPECT_EQ(*parse_dtype("E4M4B5_FNUZ"), t);
  EXPECT_EQ(*parse_dtype("e4m4b5-fnuz"), t);
  EXPECT_EQ(*parse_dtype(name(t)), t);  // what files store
  EXPECT_EQ(*parse_dtype(short_name(t)), t);
  EXPECT_EQ(info(t).format, (FloatFormat{4, 4, 5, Specials::FNUZ}));
  const DType finite = *parse_dtype("e3m3:finite");
  EXPECT_NE(finite, t);
  EXPECT_EQ(short_name(finite), "e3m3:finite");
  EXPECT_EQ(info(finite).format.specials, Specials::None);
  const auto all = custom_dtypes();
  EXPECT_NE(std::find(all.begin(), all.end(), t), all.end());
  EXPECT_NE(std::find(all.begin(), all.end(), finite), all.end());
}

TEST(CustomDType, ASpellingOfATableFormatIsThatRow) {
  EXPECT_EQ(*parse_dtype("e5m10"), DType::float16);
  EXPECT_EQ(*parse_dtype("e8m7"), DType::bfloat16);
  EXPECT_EQ(*parse_dtype("e8m10"), DType::tf32);
  EXPECT_EQ(*parse_dtype("e11m52"), DType::float64);
  EXPECT_EQ(*parse_dtype("e4m3:fn"), DType::float8_e4m3fn);
  EXPECT_EQ(*parse_dtype("e4m3b11:fnuz"), DType::float8_e4m3b11fnuz);
  EXPECT_EQ(*parse_dtype("e2m1:finite"), DType::float4_e2m1fn);
  EXPECT_EQ(*parse_dtype("e5m2"), DType::float8_e5m2);  // (an alias of the table, first)
  EXPECT_EQ(*custom_dtype(FloatFormat{3, 2, 3, Specials::None}), DType::float6_e3m2fn);
  EXPECT_EQ(*custom_dtype(FloatFormat{8, 0, 127, Specials::E8M0}), DType::float8_e8m0fnu);
  EXPECT_FALSE(custom_dtype(FloatFormat{8, 0, 100, Specials::E8M0}));  // no name reads it back
}

// Bug: the custom spelling's digits went to std::stoi, which throws past int's range (the CLI's
// `cast --to e99999999999m2` ended in std::terminate), and e0 shifted by -1 for its bias.
TEST(CustomDType, BadSpellingsAreErrorsNotCrashes) {
  for (const char* bad : {"e99999999999m2", "e5m99999999999", "e0m3", "e12m3", "e5m53", "e3m0:ieee",
                          "e2m1b-99999999999", "e2m1b99999999", "e5m2b2000"}) {
    auto t = parse_dtype(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_NE(t.error().find("invalid custom format"), std::string::npos) << bad << ": " << t.error();
    EXPECT_FALSE(parse_float_format(bad)) << bad;
  }
  // Not a custom spelling at all: the table's error, which offers custom formats too.
  auto unknown = parse_dtype("e5");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("custom float formats such as e5m7"), std::string::npos) << unknown.error();
}

TEST(CustomDType, ThreadsNamingTheSameFormatsGetTheSameIds) {
  const char* const spellings[] = {"e6m11", "e7m3b40", "e3m6:fn", "e5m9:finite", "e9m5b200:fnuz", "e2m6"};
  constexpr size_t kCount = std::size(spellings);
  std::vector<std::vector<DType>> seen(6, std::vector<DType>(kCount));  // [thread][spelling]
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] {
      for (size_t j = 0; j < kCount; ++j) {  // each thread in its own order
        const size_t k = (i + j) % kCount;
        seen[i][k] = *parse_dtype(spellings[k]);
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& ids : seen) EXPECT_EQ(ids, seen[0]);
  EXPECT_EQ(std::set<DType>(seen[0].begin(), seen[0].end()).size(), kCount);
  for (size_t j = 0; j < kCount; ++j)
    EXPECT_EQ(info(seen[0][j]).format, parse_float_format(spellings[j])->format) << spellings[j];
}

TEST(CustomDType, AccumulationSpecsTakeCustomFormatsAndReadBack) {
  for (const char* spec :
       {"e6m9:pairwise:32", "e4m3b9:fnuz:kahan:rtz", "e5m8:chunked:64", "e8m12:fn:sequential", "e6m9:multiterm:16:3"}) {
    auto a = experiment::parse_accumulation(spec);
    ASSERT_TRUE(a) << spec << ": " << a.error();
    EXPECT_TRUE(is_custom(a->format)) << spec;
    auto again = experiment::parse_accumulation(experiment::accumulation_spec(*a));
    ASSERT_TRUE(again) << experiment::accumulation_spec(*a) << ": " << again.error();
    EXPECT_EQ(experiment::accumulation_spec(*again), experiment::accumulation_spec(*a));
    EXPECT_EQ(again->format, a->format);
    EXPECT_EQ(again->kind, a->kind);
  }
  EXPECT_FALSE(experiment::parse_accumulation("e5m7:fnuz:sideways"));
}

TEST(CustomDType, AnExperimentFileNamesItsCustomFormatsAndRunsThem) {
  const nlohmann::json j = {{"experiment", "linear"},
                            {"m", 8u},
                            {"n", 8u},
                            {"k", 64u},
                            {"input", "e5m7"},
                            {"weight", "e3m4:finite"},
                            {"output", "e5m7"},
                            {"accumulate", "e6m9:pairwise:16"}};
  auto spec = experiment::matmul_spec_from_json(j);
  ASSERT_TRUE(spec) << spec.error();
  const nlohmann::json written = experiment::to_json(*spec);
  EXPECT_EQ(written["input"], "e5m7b15:ieee");
  EXPECT_EQ(written["weight"], "e3m4b3:finite");
  EXPECT_EQ(written["accumulate"], "e6m9:pairwise:16");
  auto read_back = experiment::matmul_spec_from_json(written);
  ASSERT_TRUE(read_back) << read_back.error();
  EXPECT_EQ(read_back->config.input, spec->config.input);
  EXPECT_EQ(read_back->config.weight, spec->config.weight);
  EXPECT_EQ(read_back->config.accumulate.format, spec->config.accumulate.format);
  auto run = experiment::run_spec(*spec);
  ASSERT_TRUE(run) << run.error();
  ASSERT_TRUE(run->result);
  EXPECT_GT(run->result->total.stats.count, 0u);
  EXPECT_GT(run->result->total.stats.max_abs, 0.0);  // 8 bits of input precision: never exact
}

// Against the table's own format, on data that stays well inside both ranges: a custom format
// that differs only in its specials rounds every value the same, so the experiment gives the same
// bits through the custom path as through the table's.
TEST(CustomDType, ACustomTwinOfATableFormatGivesTheSameBits) {
  auto run = [](const char* input, const char* accumulate) {
    experiment::MatmulConfig c;
    c.op = experiment::MatmulOp::Linear;
    c.m = 12, c.n = 10, c.k = 96, c.seed = 3;
    c.input = c.weight = *parse_dtype(input);
    c.output = DType::float32;
    c.accumulate = *experiment::parse_accumulation(accumulate);
    auto r = experiment::run_matmul(c, {});
    EXPECT_TRUE(r) << r.error();
    return test::values_of(r->result);
  };
  EXPECT_EQ(run("e8m7:finite", "e8m7:finite:sequential"), run("bfloat16", "bf16:sequential"));
  EXPECT_EQ(run("e5m10:fn", "e5m10:fn:pairwise:8"), run("float16", "f16:pairwise:8"));
}

TEST(CustomDType, NoFrameworkHasOne) {
  const DType t = *parse_dtype("e5m7");
  // (The engines' tables are indexed by the table's ids: a custom id must not read past them.)
  EXPECT_FALSE(promote::numpy::has_dtype(t));
  EXPECT_FALSE(promote::torch::recorded_cuda_has_dtype(t));
  const nlohmann::json j = {
      {"experiment", "linear"}, {"m", 4u}, {"n", 4u}, {"k", 16u}, {"input", "e5m7"}, {"weight", "float32"},
      {"framework", "torch"}};
  auto spec = experiment::matmul_spec_from_json(j);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error(),
            "torch has no e5m7b15:ieee (a custom format: leave the framework out to run its arithmetic alone)");
  nlohmann::json bias = {{"experiment", "linear"},
                         {"m", 4u},
                         {"n", 4u},
                         {"k", 16u},
                         {"input", "float32"},
                         {"weight", "float32"},
                         {"bias", "e5m7"},
                         {"framework", "numpy"}};
  auto with_bias = experiment::matmul_spec_from_json(bias);
  ASSERT_FALSE(with_bias);
  EXPECT_NE(with_bias.error().find("numpy has no e5m7b15:ieee"), std::string::npos) << with_bias.error();
}

}  // namespace
}  // namespace pl
