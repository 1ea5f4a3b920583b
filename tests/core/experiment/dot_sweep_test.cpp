// The dot-product sweep: the deterministic bounds are theorems, so no measurement may
// exceed them; the command-line model spellings parse or are refused with a reason.
#include <atomic>
#include <cmath>

#include <gtest/gtest.h>

#include "core/accumulate/accumulation_spec.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/figure/experiment_figures.h"
#include "core/util/thread_limit.h"

namespace pl::experiment {
namespace {

Accumulation parsed(const std::string& spec) {
  auto a = parse_accumulation(spec);
  EXPECT_TRUE(a) << a.error();
  return a ? *a : Accumulation{};
}

// One reader of lengths for the command line and the window; they disagreed about 0 and about
// an empty item.
TEST(DotSweep, LengthsFromTextAreWholeNumbersFromOneTo2To24) {
  auto ok = parse_lengths("16,256,16777216");
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(*ok, (std::vector<size_t>{16, 256, size_t{1} << 24}));
  for (const char* bad : {"", "0", "16,0", "16,,32", "16,", "-4", "1e3", "16777217", "abc", " 16"}) {
    auto r = parse_lengths(bad);
    EXPECT_FALSE(r) << "'" << bad << "'";
    if (!r) {
      EXPECT_NE(r.error().find("is not a length from 1 to 16777216"), std::string::npos) << r.error();
    }
  }
}

TEST(DotSweep, NoMeasurementExceedsItsDeterministicBound) {
  DotSweepConfig c;
  c.lengths = {1, 17, 300, 2048};
  c.a_dtype = DType::float16;
  c.b_dtype = DType::float8_e4m3fn;
  c.trials = 16;
  c.seed = 7;
  for (const char* m : {"f32:sequential", "f32:pairwise:8", "f32:kahan", "f16:sequential", "bf16:sequential:rtz",
                        "f16:chunked:64", "f16:pairwise:16:up"})
    c.models.push_back(parsed(m));
  ASSERT_EQ(check(c).error(), "");
  const auto rows = dot_sweep(c);
  ASSERT_EQ(rows.size(), c.lengths.size() * c.models.size());
  for (const auto& r : rows) {
    EXPECT_EQ(r.stats.count, 16u) << describe(r.model);
    EXPECT_LE(r.max_scaled, r.bounds.deterministic) << "K=" << r.length << " " << describe(r.model);
  }
}

// Bug: in a format too narrow for N(0,1) draws (e1m1: 1 is its largest finite) every trial's
// rounded inputs held an Inf, its reference was not finite, and the row read "-" in every column,
// its NaN/Inf column included, without a word. The trials are counted and said.
TEST(DotSweep, TrialsWithoutAFiniteReferenceAreCountedAndSaid) {
  DotSweepConfig c;
  c.lengths = {16, 64};
  c.a_dtype = *parse_dtype("e1m1");
  c.b_dtype = DType::bfloat16;
  c.trials = 4;
  c.models = {parsed("f32:sequential"), parsed("f16:sequential")};
  ASSERT_EQ(check(c).error(), "");
  const auto rows = dot_sweep(c);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.unreferenced, 4u);
    EXPECT_EQ(r.stats.count, 0u);
  }
  EXPECT_EQ(unreferenced_notes(rows),
            (std::vector<std::string>{
                "K = 16: 4 of 4 trials' inputs held an Inf or a NaN once rounded, so they have no reference and are "
                "left out",
                "K = 64: 4 of 4 trials' inputs held an Inf or a NaN once rounded, so they have no reference and are "
                "left out"}));
  EXPECT_EQ(to_json(rows[0])["trials_without_reference"], 4);
  c.a_dtype = DType::float16;
  const auto fine = dot_sweep(c);
  EXPECT_EQ(fine[0].unreferenced, 0u);
  EXPECT_TRUE(unreferenced_notes(fine).empty());
}

// Kahan's bound is 2u + K u^2 only when the products are exact: the model rounds each product
// into the accumulator before it adds it, and float32 x float32 products are not exact in
// float32, so the bound takes that rounding too (2u + K u^2 alone is passed by such sums).
TEST(DotSweep, KahansBoundHoldsWhenTheProductsRound) {
  DotSweepConfig c;
  c.lengths = {3};
  c.a_dtype = c.b_dtype = DType::float32;
  c.trials = 100000;
  c.seed = 1;
  c.models = {parsed("f32:kahan")};
  const auto rows = dot_sweep(c);
  ASSERT_EQ(rows.size(), 1u);
  const double u = 0x1p-24;
  EXPECT_GT(rows[0].max_scaled, 2 * u + 3 * u * u) << "no trial passed 2u + K u^2: the test shows nothing";
  EXPECT_LE(rows[0].max_scaled, rows[0].bounds.deterministic);
  // Where the products are exact (bfloat16 inputs), the bound stays 2u + K u^2.
  c.a_dtype = c.b_dtype = DType::bfloat16;
  c.trials = 16;
  EXPECT_EQ(dot_sweep(c)[0].bounds.deterministic, 2 * u + 3 * u * u);
}

// A chunked sum's terms carry a rounding from their chunk and one from the outer sum: the bound is
// (1 + gamma_inner)(1 + gamma_outer) - 1. It was gamma_inner + gamma_outer, short by their product.
TEST(DotSweep, AChunkedBoundHoldsBothRoundingsProduct) {
  const Accumulation m = parsed("f16:chunked:128");
  const double u = 0x1p-11, uo = 0x1p-24;
  const double gi = 128 * u / (1 - 128 * u), go = 32 * uo / (1 - 32 * uo);
  EXPECT_EQ(accumulation_bounds(m, 4096).deterministic, gi + go + gi * go);
}

// Sums of 4096 draws into float8_e3m4 (largest finite 15.5) run past it to Inf: the row showed
// an error of 0 with nothing to say no trial was compared. Now the tables say how many.
TEST(DotSweep, SumsThatOverflowAreCountedNotShownAsExact) {
  DotSweepConfig c;
  c.lengths = {16, 4096};
  c.sum = true;
  c.trials = 16;
  c.models = {parsed("float8_e3m4:sequential")};
  ASSERT_EQ(check(c).error(), "");
  const auto rows = dot_sweep(c);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(not_finite_text(rows[0].stats), "-");
  const size_t bad = rows[1].stats.nan + rows[1].stats.inf;
  EXPECT_GT(bad, 0u);
  EXPECT_EQ(not_finite_text(rows[1].stats), std::to_string(bad) + " of 16");
  // The figure leaves those sums out and says so; it does not call them an error of 0.
  const figure::Figure f = figure::dot_sweep_figure(rows, c);
  EXPECT_NE(f.subtitle.find("NaN or Inf sums are left out"), std::string::npos) << f.subtitle;
  if (bad == 16) {
    EXPECT_EQ(f.subtitle.find("exactly 0"), std::string::npos) << f.subtitle;
    EXPECT_TRUE(std::isnan(f.series[0].y[1]));
  }
  // An accumulator that cannot hold a sum at all is refused.
  const auto scale_format = parse_accumulation("e8m0fnu:sequential");
  ASSERT_FALSE(scale_format);
  EXPECT_NE(scale_format.error().find("no sign and no zero"), std::string::npos) << scale_format.error();
}

TEST(DotSweep, SameSeedSameNumbersAndCancelStops) {
  DotSweepConfig c;
  c.lengths = {64};
  c.models = {parsed("f16:sequential")};
  c.trials = 8;
  const auto a = dot_sweep(c), b = dot_sweep(c);
  EXPECT_EQ(a[0].max_scaled, b[0].max_scaled);
  c.seed = 1;
  EXPECT_NE(dot_sweep(c)[0].max_scaled, a[0].max_scaled);
  std::atomic<bool> cancel{true};
  EXPECT_TRUE(dot_sweep(c, {}, &cancel).empty());
}

// The trials are drawn and summed a batch at a time, on every core: any batch size and thread
// count gives the same numbers, stochastic streams included, dot products and sums alike.
TEST(DotSweep, BatchesAndThreadsChangeNoNumber) {
  for (bool sum : {false, true}) {
    DotSweepConfig c;
    c.lengths = {64, 1000};
    c.models = {parsed("f16:sequential"), parsed("bf16:pairwise:8:stochastic"), parsed("e5m7:kahan")};
    c.trials = 10;
    c.sum = sum;
    c.seed = 3;
    const auto whole = dot_sweep(c);                     // one batch: 10 trials of 16 KB at most
    for (double batch_bytes : {16.0 * 1000 * 3, 1.0}) {  // 3 trials a batch at K = 1000; one at a time
      const auto batched = dot_sweep(c, {}, nullptr, batch_bytes);
      ASSERT_EQ(batched.size(), whole.size());
      for (size_t r = 0; r < whole.size(); ++r) {
        EXPECT_EQ(batched[r].scaled_errors, whole[r].scaled_errors) << r << " batch " << batch_bytes;
        EXPECT_EQ(batched[r].stats.max_abs, whole[r].stats.max_abs);
      }
    }
    const ThreadLimit one(1);
    const auto single = dot_sweep(c);
    for (size_t r = 0; r < whole.size(); ++r) EXPECT_EQ(single[r].scaled_errors, whole[r].scaled_errors) << r;
  }
}

TEST(DotSweep, ModelSpellings) {
  EXPECT_EQ(parsed("f64").kind, AccumKind::Float64);
  const Accumulation p = parsed("float16:pairwise:16:rtz");
  EXPECT_EQ(p.kind, AccumKind::Pairwise);
  EXPECT_EQ(p.format, DType::float16);
  EXPECT_EQ(p.block, 16);
  EXPECT_EQ(p.rounding, Rounding::TowardZero);
  EXPECT_EQ(parsed("f16:chunked:128").chunk, 128);
  for (const char* bad : {"f64:kahan", "f32:sideways", "f32:kahan:4", "int8:sequential", "f32:pairwise:0",
                          "f16:chunked:x", "flaot32:sequential"}) {
    const auto a = parse_accumulation(bad);
    ASSERT_FALSE(a) << bad;
    EXPECT_NE(a.error(), "") << bad;
  }
}

// accumulation_spec spells what parse_accumulation reads back.
TEST(DotSweep, SpecRoundTrips) {
  for (const char* spec : {"f64", "i32", "f32:blas", "bf16:sequential:rtz", "f16:pairwise:16", "f32:kahan",
                           "f16:chunked:32", "e4m3:sequential"}) {
    const Accumulation a = parsed(spec);
    EXPECT_EQ(describe(parsed(accumulation_spec(a))), describe(a)) << spec << " -> " << accumulation_spec(a);
  }
}

// A config the window builds in code (signed integers in its JSON) reads back as itself.
// (The Experiment panel's dot sweep once failed here: "'trials': must be an integer ...".)
TEST(DotSweep, ConfigJsonRoundTrips) {
  DotSweepConfig c;
  c.lengths = {16, 1024};
  c.models = {parsed("f16:sequential"), parsed("f32:chunked:32")};
  c.trials = 32;
  c.seed = 5;
  auto back = dot_config_from_json(to_json(c));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(to_json(*back), to_json(c));
  EXPECT_FALSE(to_json(c).contains("backend"));  // the CPU, the default, is not written
  c.backend = BackendChoice::Auto;
  back = dot_config_from_json(to_json(c));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->backend, BackendChoice::Auto);
}

// Bug: "accumulate": [] ran the default f32:sequential without a word ("lengths": [] was refused).
TEST(DotSweep, AnEmptyListOfModelsIsRefused) {
  const auto refused = dot_config_from_json(nlohmann::json::parse(R"({"experiment": "dot", "accumulate": []})"));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("'accumulate': must be a model or a list of models, not an empty list"),
            std::string::npos)
      << refused.error();
}

// Bug: the command line took 1,000,001 trials (a file, at most 1,000,000) and a model twice.
TEST(DotSweep, TrialsAndModelsHaveTheFilesLimits) {
  DotSweepConfig c;
  c.models = {parsed("f32:sequential")};
  c.trials = kMaxTrials + 1;
  EXPECT_EQ(check(c).error(), "trials must be from 1 to 1000000");
  c.trials = kMaxTrials;
  EXPECT_EQ(check(c).error(), "");
  c.models.push_back(parsed("f32:sequential"));
  EXPECT_NE(check(c).error().find("is given twice"), std::string::npos) << check(c).error();
}

TEST(DotSweep, BadConfigsAreRefused) {
  DotSweepConfig c;
  c.models = {parsed("f32:sequential")};
  EXPECT_EQ(check(c).error(), "");
  c.a_dtype = DType::float64;  // products would not be exact
  EXPECT_NE(check(c).error(), "");
  c.a_dtype = DType::bfloat16;
  c.lengths = {0};
  EXPECT_NE(check(c).error(), "");
  c.lengths = {4};
  c.trials = 0;
  EXPECT_NE(check(c).error(), "");
  c.trials = 4;
  auto file = dot_config_from_json({{"experiment", "dot"}, {"backend", "tpu"}});
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error(), "'backend': 'tpu': expected cpu, cuda or auto");
}

// A sweep of length 2^24 with 10^6 trials ran silently for days; its work is estimated first.
TEST(DotSweep, EstimatesItsWorkFromASample) {
  DotSweepConfig c;
  c.lengths = {16, 256};
  c.trials = 3;
  c.models = {*parse_accumulation("f32:sequential"), *parse_accumulation("f16:sequential")};
  const WorkEstimate small = estimate_dot_sweep(c);
  EXPECT_EQ(small.terms, (16.0 + 256.0) * 3 * 2);
  EXPECT_GT(small.seconds_per_term, 0);
  c.lengths = {size_t{1} << 24};
  c.trials = 1000000;
  const WorkEstimate huge = estimate_dot_sweep(c);
  EXPECT_EQ(huge.terms, 16777216.0 * 1e6 * 2);
  EXPECT_GT(huge.seconds, kInteractiveSeconds);
  EXPECT_NE(work_text(huge).find("hours here"), std::string::npos);
}

// "bfloat16:" and "f32::kahan" were read as bfloat16 and f32 kahan.
TEST(DotSweep, AModelWithAnEmptyPartIsRefused) {
  for (const char* spec : {"bfloat16:", ":bfloat16", "f32::kahan", "::"}) {
    const auto a = parse_accumulation(spec);
    ASSERT_FALSE(a) << spec;
    EXPECT_NE(a.error().find("empty part"), std::string::npos) << spec << ": " << a.error();
  }
  EXPECT_TRUE(parse_accumulation("f32:kahan"));
  const auto custom = parse_accumulation("e4m3b9:fnuz:kahan");
  EXPECT_TRUE(custom) << custom.error();
}

}  // namespace
}  // namespace pl::experiment
