// The live throughput sampler: which product each dtype is timed with, operands that are
// values of their dtype, a sampler that goes round the dtypes and stops when told, sliding
// medians computed by hand, and the two figures (categories on the bar chart's axis).
#include <cairo.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "core/dtype/codec.h"
#include "core/experiment/matmul.h"
#include "core/export/figure_export.h"
#include "core/figure/throughput_figures.h"

namespace pl::experiment {
namespace {

TEST(Throughput, EachDtypeIsTimedWithTheProductTheExperimentUses) {
  EXPECT_EQ(default_product_accumulation(DType::float64)->format, DType::float64);
  EXPECT_EQ(default_product_accumulation(DType::float64)->kind, AccumKind::Blas);
  EXPECT_EQ(default_product_accumulation(DType::bfloat16)->format, DType::float32);
  EXPECT_EQ(default_product_accumulation(DType::int8)->kind, AccumKind::Int32);
  EXPECT_FALSE(default_product_accumulation(DType::int32));
  EXPECT_FALSE(default_product_accumulation(DType::bool_));
}

TEST(Throughput, ADeviceThatCannotOpenLeavesTheProductOnTheCpuAndSaysSo) {
  // core_tests registers no CUDA backend: asking for it times on the CPU, labelled.
  auto b = prepare_product_bench(DType::bfloat16, 32, BackendChoice::Cuda);
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(b->backend, BackendChoice::Cpu);
  EXPECT_NE(b->method.find("on the CPU, cuda unavailable"), std::string::npos) << b->method;
  EXPECT_TRUE(b->emulated);
  auto t = time_product(*b);
  ASSERT_TRUE(t) << t.error();
  EXPECT_GT(*t, 0);
  // Sizes: 4096 on the CPU, 16384 where a GPU was asked for.
  EXPECT_FALSE(prepare_product_bench(DType::bfloat16, 4097, BackendChoice::Cpu));
  EXPECT_NE(prepare_product_bench(DType::bfloat16, 16385, BackendChoice::Cuda).error().find("16384"),
            std::string::npos);
  // A GPU's size that falls back to the CPU is refused, not timed for hours there (a 16384^3
  // throughput file with "backend": "auto" and no GPU started one).
  for (BackendChoice backend : {BackendChoice::Cuda, BackendChoice::Auto}) {
    auto big = prepare_product_bench(DType::bfloat16, 4097, backend);
    ASSERT_FALSE(big) << backend_choice_name(backend);
    EXPECT_NE(big.error().find("a 4097^3 product would run on the CPU ("), std::string::npos) << big.error();
    EXPECT_NE(big.error().find("which takes n up to 4096"), std::string::npos) << big.error();
  }
  EXPECT_NE(prepare_product_bench(DType::bfloat16, 4097, BackendChoice::Auto).error().find("(no GPU opened)"),
            std::string::npos);
}

// bench --op product drew its operands as if for the CPU, so on a GPU it refused 8192 ("the
// product size must lie in [1, 4096]" on an H100): the limit is the timing
// device's.
TEST(Throughput, OperandsForADeviceAreSizedByThatDevice) {
  EXPECT_EQ(largest_product_bench(BackendChoice::Cpu), 4096u);
  EXPECT_EQ(largest_product_bench(BackendChoice::Cuda), 16384u);
  auto big = product_bench_operands(DType::float32, 4097, BackendChoice::Cuda);
  ASSERT_TRUE(big) << big.error();
  EXPECT_EQ(big->a.size(), size_t{4097} * 4097);
  EXPECT_EQ(big->b.size(), size_t{4097} * 4097);
  EXPECT_NE(product_bench_operands(DType::float32, 4097, BackendChoice::Cpu).error().find("4096"), std::string::npos);
  // Nor by an experiment's working-memory limit (the second H100 run: "about 12 GiB" at 8192),
  // while dtypes are still checked as an experiment checks them.
  MatmulConfig big_experiment;
  big_experiment.m = big_experiment.n = big_experiment.k = 8192;
  EXPECT_NE(check(big_experiment).error().find("working memory"), std::string::npos);
  EXPECT_EQ(check_product_bench(DType::bfloat16, 8192, BackendChoice::Cuda).error(), "");
  EXPECT_EQ(check_product_bench(DType::float8_e4m3fn, 16384, BackendChoice::Cuda).error(), "");
  EXPECT_NE(check_product_bench(DType::complex64, 64, BackendChoice::Cuda).error(), "");
}

TEST(Throughput, OperandsAreValuesOfTheirDtypeAndNarrowDtypesAreLabelledEmulation) {
  auto b = prepare_product_bench(DType::float8_e4m3fn, 48);
  ASSERT_TRUE(b) << b.error();
  ASSERT_EQ(b->a.size(), 48u * 48u);
  ASSERT_EQ(b->b.size(), 48u * 48u);
  const FloatFormat& f = info(DType::float8_e4m3fn).format;
  size_t nonzero = 0;
  for (double v : b->a) {
    EXPECT_EQ(round_to(f, v, {}), v);
    nonzero += v != 0;
  }
  EXPECT_GT(nonzero, 48u * 40u);
  EXPECT_TRUE(product_emulated(b->dtype));
  EXPECT_NE(product_method(b->dtype).find("emulation"), std::string::npos);
  auto f32 = prepare_product_bench(DType::float32, 48);
  ASSERT_TRUE(f32);
  EXPECT_FALSE(product_emulated(f32->dtype));
  EXPECT_EQ(product_method(f32->dtype).rfind("sgemm", 0), 0u);
  EXPECT_TRUE(product_emulated(DType::int8));
  EXPECT_NE(product_method(DType::int8).find("wrapped to int32"), std::string::npos);
  auto t = time_product(*b);
  ASSERT_TRUE(t) << t.error();
  EXPECT_GT(*t, 0);
}

// Bug: uint8 was offered and then refused ("symmetric scaling takes a float dtype, int8 or int4,
// not uint8"): it takes a zero point per channel.
TEST(Throughput, EveryOfferedIntegerIsTimed) {
  for (DType t : {DType::int8, DType::uint8}) {
    auto b = prepare_product_bench(t, 16);
    EXPECT_TRUE(b) << name(t) << ": " << b.error();
  }
}

TEST(Throughput, TheTableShowsMethodsWithoutTheLibrarysCore) {
  EXPECT_EQ(method_without_library(product_method(DType::float32)), "sgemm");
  EXPECT_EQ(method_without_library(product_method(DType::bfloat16)), "bfloat16 values in sgemm (emulation)");
  EXPECT_EQ(method_without_library(product_method(DType::int8)),
            "int8 products summed exactly in dgemm, wrapped to int32 (emulation)");
  EXPECT_EQ(method_without_library("cuBLASLt bf16 (tensor cores)"), "cuBLASLt bf16 (tensor cores)");
}

TEST(Throughput, AShortProductRunsUntimedRightBeforeItsSample) {
  // A fake product that takes `each` seconds the first time and `each` / 2 after: what a short
  // sample keeps is the second run's time; a long product is timed once.
  auto timed = [](std::vector<double> times) {
    auto calls = std::make_shared<size_t>(0);
    return std::pair{[times, calls]() -> Expected<double> { return times[std::min((*calls)++, times.size() - 1)]; },
                     calls};
  };
  auto [short_run, short_calls] = timed({0.004, 0.002});
  EXPECT_EQ(*sample_seconds(short_run), 0.002);
  EXPECT_EQ(*short_calls, 2u);
  auto [long_run, long_calls] = timed({2 * kWarmBeforeSample, kWarmBeforeSample});
  EXPECT_EQ(*sample_seconds(long_run), 2 * kWarmBeforeSample);
  EXPECT_EQ(*long_calls, 1u);
  // An error in the first run (cancelled) is the sample's.
  size_t calls = 0;
  const auto failed = sample_seconds([&]() -> Expected<double> {
    ++calls;
    return Error{"cancelled"};
  });
  EXPECT_FALSE(failed);
  EXPECT_EQ(calls, 1u);
}

TEST(Throughput, BadSizesAndDtypesAreErrors) {
  EXPECT_FALSE(prepare_product_bench(DType::float32, 0));
  EXPECT_FALSE(prepare_product_bench(DType::float32, 5000));
  auto e = prepare_product_bench(DType::complex64, 16);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("complex64"), std::string::npos);
}

TEST(Throughput, GflopsCountTwoFlopsPerMultiplyAdd) {
  EXPECT_DOUBLE_EQ(product_gflops(1000, 2.0), 1.0);
  EXPECT_EQ(product_gflops(1000, 0), 0);
}

TEST(Throughput, HistoryKeepsFirstSeenOrderAndSlidingMedians) {
  ThroughputHistory h;
  const double bf[] = {5, 1, 9, 3, 7};
  for (int i = 0; i < 5; ++i) {
    h.add({DType::bfloat16, double(2 * i), bf[i]});
    h.add({DType::float32, double(2 * i + 1), 100.0 + i});
  }
  EXPECT_EQ(h.dtypes(), (std::vector<DType>{DType::bfloat16, DType::float32}));
  // Windows of 3 ending at each sample: {5}, {5,1}, {5,1,9}, {1,9,3}, {9,3,7}; the upper middle
  // of an even count (median.h).
  EXPECT_EQ(h.sliding_median(DType::bfloat16, 3), (std::vector<double>{5, 5, 5, 3, 7}));
  EXPECT_EQ(h.median_gflops(DType::bfloat16), 5);
  EXPECT_EQ(h.median_gflops(DType::float32), 102);
  EXPECT_EQ(h.median_gflops(DType::float16), 0);
  EXPECT_EQ(h.of(DType::float32).size(), 5u);
}

// Bug: the window's history grew without end, and the live chart drew and sorted every sample
// each time it was redrawn (200 samples a second at n = 128 on a CPU: slower frame after frame).
// The window's keeps each dtype's most recent 2000 samples, and the figures say so once any went.
TEST(Throughput, HistoryKeepsEachDtypesMostRecentSamples) {
  ThroughputHistory h(ThroughputHistory::kWindowKept);
  const size_t n = ThroughputHistory::kWindowKept + 100;
  for (size_t i = 0; i < n; ++i) h.add({DType::float32, double(i), double(i)});
  for (int i = 0; i < 10; ++i) h.add({DType::bfloat16, double(n + i), 1});
  EXPECT_TRUE(h.trimmed());
  EXPECT_EQ(h.count(DType::float32), ThroughputHistory::kWindowKept);
  EXPECT_EQ(h.of(DType::float32).front().at, 100);  // the first 100 let go
  EXPECT_EQ(h.of(DType::float32).back().at, double(n - 1));
  EXPECT_EQ(h.count(DType::bfloat16), 10u);
  EXPECT_EQ(h.dtypes(), (std::vector<DType>{DType::float32, DType::bfloat16}));
  figure::ThroughputContext c;
  EXPECT_NE(figure::throughput_over_time(h, c).subtitle.find("; each dtype's last 2000 samples"), std::string::npos);
  h.clear();
  EXPECT_FALSE(h.trimmed());
  // The command line's history keeps every sample.
  ThroughputHistory all;
  for (size_t i = 0; i < n; ++i) all.add({DType::float32, double(i), double(i)});
  EXPECT_EQ(all.count(DType::float32), n);
  EXPECT_FALSE(all.trimmed());
}

// Bug: the Throughput panel's table had a row only for each dtype sampled so far, so it grew
// while the first samples came in and moved what sat under it (a click aimed at the probe's
// header below it missed). Its rows are every chosen dtype from the start.
TEST(Throughput, ATablesRowsAreTheChosenDtypesBeforeTheirFirstSamples) {
  ThroughputHistory h;
  const std::vector<DType> chosen{DType::float64, DType::float32, DType::int8};
  EXPECT_EQ(h.rows(chosen), chosen);
  h.add({DType::float32, 0, 10});
  EXPECT_EQ(h.rows(chosen), chosen);
  // A dtype sampled and no longer chosen keeps its row, after the chosen ones.
  h.add({DType::bfloat16, 1, 5});
  EXPECT_EQ(h.rows(chosen), (std::vector<DType>{DType::float64, DType::float32, DType::int8, DType::bfloat16}));
  EXPECT_EQ(h.rows({}), h.dtypes());
}

TEST(Throughput, SamplerGoesRoundTheDtypesAndStopsWhenTold) {
  std::atomic<bool> stop{false};
  std::vector<ThroughputSample> got;
  std::vector<std::string> statuses;
  auto ok = sample_throughput(
      {DType::float32, DType::bfloat16, DType::int8}, 64, stop,
      [&](const ThroughputSample& s) {
        got.push_back(s);
        if (got.size() == 7) stop = true;
      },
      [&](const std::string& s) { statuses.push_back(s); });
  ASSERT_TRUE(ok) << ok.error();
  ASSERT_EQ(got.size(), 7u);
  const DType order[] = {DType::float32, DType::bfloat16, DType::int8};
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].dtype, order[i % 3]);
    EXPECT_GT(got[i].gflops, 0);
    if (i) {
      EXPECT_GE(got[i].at, got[i - 1].at);
    }
  }
  EXPECT_EQ(statuses.back(), "sampling");
}

TEST(Throughput, SamplerReportsADtypeItCannotTime) {
  std::atomic<bool> stop{false};
  auto r = sample_throughput({DType::float32, DType::uint32}, 16, stop, [](const ThroughputSample&) {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("uint32"), std::string::npos);
}

TEST(ThroughputFigures, BarsCarryOneCategoryPerDtypeAndExport) {
  ThroughputHistory h;
  h.add({DType::float32, 0.1, 80});
  h.add({DType::bfloat16, 0.2, 40});
  h.add({DType::float32, 0.3, 90});
  const figure::ThroughputContext c{256, "cpu (test)", 9, false, {}, {}};
  const figure::Figure bars = figure::throughput_bars(h, c);
  EXPECT_EQ(bars.x.categories, (std::vector<std::string>{"float32", "bfloat16"}));
  ASSERT_EQ(bars.series.size(), 3u);                       // a bar per dtype, then the quartile whiskers
  EXPECT_EQ(bars.series[0].y, (std::vector<double>{90}));  // upper middle of {80, 90}
  // The spread: each dtype's quartiles as a stroke over its bar, and in its label.
  const figure::Series& whiskers = bars.series[2];
  EXPECT_EQ(whiskers.kind, figure::SeriesKind::Line);
  ASSERT_EQ(whiskers.x.size(), 6u);
  EXPECT_EQ(whiskers.x[0], 0.5);
  EXPECT_EQ(whiskers.y[0], 80);
  EXPECT_EQ(whiskers.y[1], 90);
  EXPECT_TRUE(std::isnan(whiskers.y[2]));  // no line joins two bars
  EXPECT_EQ(whiskers.x[3], 1.5);
  EXPECT_NE(bars.series[0].label.find("90 (80-90) GFLOP/s (2 samples)"), std::string::npos) << bars.series[0].label;
  EXPECT_NE(bars.series[1].label.find("(1 sample)"), std::string::npos) << bars.series[1].label;
  EXPECT_NE(bars.subtitle.find("emulated"), std::string::npos);
  // Bug: int8 was said to run "in an integer kernel"; its sums are exact in OpenBLAS's dgemm
  // (gemm.cpp's int32_gemm), and its method said "Precision Lab's kernel".
  EXPECT_EQ(bars.subtitle.find("integer kernel"), std::string::npos) << bars.subtitle;
  EXPECT_NE(bars.subtitle.find("int8 as exact sums in dgemm"), std::string::npos) << bars.subtitle;
  EXPECT_NE(experiment::product_method(DType::int8).find("summed exactly in dgemm"), std::string::npos)
      << experiment::product_method(DType::int8);
  const figure::Figure live = figure::throughput_over_time(h, c);
  ASSERT_EQ(live.series.size(), 5u);  // points and median line per dtype, and a key for the dots
  EXPECT_EQ(live.series[4].label, "each dot: one sample");
  EXPECT_TRUE(live.series[4].x.empty());
  EXPECT_EQ(live.series[0].kind, figure::SeriesKind::Points);
  EXPECT_EQ(live.series[1].y, (std::vector<double>{80, 90}));
  // Bug: the key said "median of last 9" where the first points had fewer samples behind them,
  // and the title said "live" on a figure `bench --save` writes once.
  EXPECT_EQ(live.series[1].label, "float32 (running median of up to 9 samples)");
  EXPECT_EQ(live.title, "Matrix-product throughput over time");
  const auto dir = std::filesystem::temp_directory_path() / "pl_throughput_figures";
  std::filesystem::create_directories(dir);
  for (const auto* f : {&bars, &live}) {
    const std::string stem = (dir / f->name).string();
    ASSERT_TRUE(figure::export_figure(*f, stem + ".png", figure::FileType::Png));
    ASSERT_TRUE(figure::export_figure(*f, stem + ".csv", figure::FileType::Csv));
  }
  std::filesystem::remove_all(dir);
}

// Bug: on a GPU run whose device could not run a dtype, the CPU timed it by the clock while the
// subtitle said "CUDA events; every dtype in the GPU's own arithmetic". It names those dtypes.
TEST(ThroughputFigures, AGpuRunNamesTheDtypesTheCpuTimed) {
  ThroughputHistory h;
  h.add({DType::float32, 0.1, 50000});
  h.add({DType::float64, 0.2, 60});
  figure::ThroughputContext c{4096, "NVIDIA H100 (cuda)", 9, true, {}, {DType::float64}};
  const std::string subtitle = figure::throughput_bars(h, c).subtitle;
  EXPECT_EQ(subtitle.find("every dtype in the GPU's own arithmetic"), std::string::npos) << subtitle;
  EXPECT_NE(subtitle.find("timed on the CPU by the clock (the GPU could not run them): float64"), std::string::npos)
      << subtitle;
  c.on_cpu.clear();
  EXPECT_NE(figure::throughput_bars(h, c).subtitle.find("every dtype in the GPU's own arithmetic"), std::string::npos);
}

// On a GPU the same samples read in TFLOP/s, and the subtitle names only the dtypes the device
// emulated instead of calling every narrow dtype emulation (the CPU's wording).
TEST(ThroughputFigures, AGpuShowsTflopsAndNamesOnlyWhatItEmulated) {
  ThroughputHistory h;
  h.add({DType::float32, 0.1, 50000});
  h.add({DType::bfloat16, 0.2, 700000});
  h.add({DType::float4_e2m1fn, 0.3, 20000});
  figure::ThroughputContext c{8192, "NVIDIA H100 (cuda)", 9, true, {DType::float4_e2m1fn}, {}};
  const figure::Figure bars = figure::throughput_bars(h, c);
  EXPECT_EQ(bars.y.label, "TFLOP/s");
  ASSERT_EQ(bars.series.size(), 4u);
  EXPECT_EQ(bars.series[1].y, (std::vector<double>{700}));
  EXPECT_NE(bars.series[1].label.find("700 (700-700) TFLOP/s"), std::string::npos) << bars.series[1].label;
  EXPECT_EQ(bars.subtitle.find("on this CPU"), std::string::npos) << bars.subtitle;
  EXPECT_NE(bars.subtitle.find("not hardware speed: float4_e2m1fn"), std::string::npos) << bars.subtitle;
  const figure::Figure live = figure::throughput_over_time(h, c);
  EXPECT_EQ(live.y.label, "TFLOP/s");
  EXPECT_EQ(live.series[0].y, (std::vector<double>{50}));  // points
  EXPECT_EQ(live.series[1].y, (std::vector<double>{50}));  // sliding median
  c.emulated.clear();
  EXPECT_NE(figure::throughput_bars(h, c).subtitle.find("every dtype in the GPU's own arithmetic"), std::string::npos);
  EXPECT_EQ(figure::throughput_bars(h, {256, "cpu", 9, false, {}, {}}).y.label, "GFLOP/s");
  EXPECT_STREQ(rate_unit(false).name, "GFLOP/s");
  EXPECT_EQ(rate_unit(true).scale, 1e-3);
}

// Bug: int8's rate was labelled GFLOP/s; an integer product's 2 n^3 operations are not
// floating-point ones. The unit and the axis say so.
TEST(ThroughputFigures, IntegerRatesAreOperationsNotFlops) {
  EXPECT_EQ(rate_unit_name(rate_unit(false), DType::int8), "GOP/s");
  EXPECT_EQ(rate_unit_name(rate_unit(true), DType::int8), "TOP/s");
  EXPECT_EQ(rate_unit_name(rate_unit(false), DType::bfloat16), "GFLOP/s");
  EXPECT_EQ(rate_axis_name(rate_unit(false), {DType::float32, DType::bfloat16}), "GFLOP/s");
  EXPECT_EQ(rate_axis_name(rate_unit(false), {DType::float32, DType::int8}), "GFLOP/s (int8: GOP/s)");
}

TEST(ThroughputRun, ReadsItsFileStrictly) {
  auto c = throughput_config_from_json(
      {{"experiment", "throughput"}, {"dtypes", {"float32", "bfloat16"}}, {"n", 64}, {"repetitions", 2}});
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->dtypes, (std::vector<DType>{DType::float32, DType::bfloat16}));
  EXPECT_EQ(c->datasheet, "H100 SXM5");  // the default
  auto again = throughput_config_from_json(to_json(*c));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(to_json(*again), to_json(*c));
  auto gpu = throughput_config_from_json({{"backend", "cuda"}, {"n", 8192}});
  ASSERT_TRUE(gpu) << gpu.error();
  EXPECT_EQ(to_json(*gpu)["backend"], "cuda");
  const std::pair<nlohmann::json, std::string> bad[] = {
      {{{"dtypes", {"float32", "float33"}}}, "'dtypes': unknown dtype 'float33'"},
      {{{"dtypes", {"float32", "uint32"}}}, "'dtypes': uint32: products are timed for float dtypes, int8 and uint8"},
      {{{"dtypes", {"float32", "float32"}}}, "'dtypes': float32 is listed twice"},
      {{{"dtypes", {"bfloat16"}}}, "'baseline': float32 is not among the dtypes"},
      {{{"n", 5000}}, "'n': must lie in [1, 4096]"},
      {{{"n", 20000}, {"backend", "cuda"}}, "'n': must lie in [1, 16384]"},
      {{{"backend", "tpu"}}, "'backend': 'tpu': expected cpu, cuda or auto"},
      {{{"repetitions", -1}}, "'repetitions': must be an integer from 1 to 1000"},
      {{{"datasheet", "RTX 9090"}}, "'datasheet': no part 'RTX 9090' in the peak table"},
      {{{"reps", 3}}, "unknown key 'reps'"},
  };
  for (const auto& [j, why] : bad) {
    auto r = throughput_config_from_json(j);
    ASSERT_FALSE(r) << j.dump();
    EXPECT_EQ(r.error().substr(0, why.size()), why) << r.error();
  }
}

TEST(ThroughputRun, MeasuresEveryDtypeBesideTheDatasheet) {
  ThroughputConfig c;
  c.dtypes = {DType::float32, DType::bfloat16, DType::float8_e5m2, DType::int8};
  c.n = 48;
  c.repetitions = 3;
  c.datasheet = "a100 sxm4";  // any case; the result spells the table's name
  std::vector<double> progress;
  auto r = run_throughput(c, [&](double p) { progress.push_back(p); });
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->config.datasheet, "A100 SXM4");
  ASSERT_EQ(r->rows.size(), 4u);
  for (const auto& row : r->rows) {
    EXPECT_EQ(row.seconds.size(), 3u);
    EXPECT_GT(row.gflops, 0);
    EXPECT_EQ(row.emulated, row.dtype != DType::float32);
  }
  EXPECT_EQ(r->rows[0].speedup, 1.0);  // the baseline over itself
  ASSERT_FALSE(progress.empty());
  EXPECT_DOUBLE_EQ(progress.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
  // The datasheet side is the table's: 2048 / 128 ops per clock at one clock is 16.
  ASSERT_EQ(r->datasheet.size(), 4u);
  EXPECT_EQ(r->datasheet[1].speedup, 16);
  EXPECT_EQ(r->datasheet[1].tflops, 312);
  EXPECT_FALSE(r->datasheet[2].supported);  // no float8 before sm_89
  EXPECT_EQ(r->datasheet[2].why_not, "the A100 SXM4 has no float8_e5m2 arithmetic");
  EXPECT_EQ(r->datasheet[3].speedup, 32);
  const nlohmann::json j = to_json(*r);
  EXPECT_EQ(j["/rows/2/dtype"_json_pointer], "float8_e5m2");
  EXPECT_EQ(j["/datasheet/rows/2/supported"_json_pointer], false);
  const auto figures = figure::throughput_run_figures(*r);
  ASSERT_EQ(figures.size(), 2u);
  // measured-rate: a bar and a dot per run for each dtype.
  ASSERT_EQ(figures[0].series.size(), 8u);
  EXPECT_EQ(figures[0].series[1].kind, figure::SeriesKind::Points);
  EXPECT_EQ(figures[0].series[1].y.size(), 3u);
  const figure::Figure& speed = figures[1];
  EXPECT_TRUE(speed.y.log);
  ASSERT_EQ(speed.series.size(), 4u);
  // Bars and gaps of no value (NaN) alternate: 4 bars, 3 gaps; the float8 datasheet bar has no
  // value either.
  const std::vector<double>& sheet = speed.series[1].y;
  ASSERT_EQ(sheet.size(), 7u);
  EXPECT_EQ(sheet[0], 1);
  EXPECT_EQ(sheet[2], 16);
  EXPECT_EQ(sheet[6], 32);
  for (size_t i : {1, 3, 4, 5}) EXPECT_TRUE(std::isnan(sheet[i])) << i;
  // Each bar's value in words at its end (a speed-up of 1 has no height from the 1x base), out of
  // the legend.
  EXPECT_EQ(speed.series[3].point_labels, (std::vector<std::string>{"1.00x", "16.0x", "32.0x"}));
  EXPECT_FALSE(speed.series[3].in_legend);
}

TEST(ThroughputRun, Cancels) {
  ThroughputConfig c;
  c.n = 64;
  std::atomic<bool> cancel{true};
  auto r = run_throughput(c, {}, &cancel);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "cancelled");
}

}  // namespace
}  // namespace pl::experiment

namespace pl::experiment {
namespace {

// Bug: with an even number of samples the figure's speed-up (from the median time) and the
// table's (from the median rate) differed: float64 0.76x in the figure, 0.83x in the table.
TEST(ThroughputRun, ASpeedUpIsTheRatioOfTheTablesMedianRates) {
  ThroughputHistory h;
  const std::vector<double> f32 = {10, 20, 60, 70}, f64 = {30, 31, 32, 90};  // GFLOP/s, four runs each
  for (size_t i = 0; i < f32.size(); ++i) {
    h.add({DType::float32, double(i), f32[i]});
    h.add({DType::float64, double(i), f64[i]});
  }
  const ThroughputResult r = summarise_history(h, 256, "", "cpu");
  const ThroughputRow* single = r.row(DType::float32);
  const ThroughputRow* dbl = r.row(DType::float64);
  ASSERT_TRUE(single && dbl);
  EXPECT_NEAR(single->gflops, h.median_gflops(DType::float32), 1e-9);
  EXPECT_NEAR(dbl->gflops, h.median_gflops(DType::float64), 1e-9);
  EXPECT_NEAR(dbl->speedup, h.median_gflops(DType::float64) / h.median_gflops(DType::float32), 1e-12);
}

// A median of 57.48 beside quartiles 50.1 and 63.0 claimed hundredths the samples do not have:
// the text keeps two significant digits of the spread.
TEST(Throughput, RatesShowOnlyTheDigitsTheirSpreadSupports) {
  ThroughputHistory h;
  for (double g : {50.1, 52.0, 57.48, 61.2, 63.0, 48.0, 70.3}) h.add({DType::float32, 0, g});
  const Quartiles q = h.quartiles_gflops(DType::float32);
  EXPECT_EQ(q.q1, 50.1);
  EXPECT_EQ(q.median, 57.48);
  EXPECT_EQ(q.q3, 63.0);
  EXPECT_EQ(spread_text(q), "57 (50-63)");                             // a spread of 13: whole numbers
  EXPECT_EQ(spread_text({1.21, 1.234, 1.26}), "1.234 (1.210-1.260)");  // a spread of 0.05
  EXPECT_EQ(spread_text({2e3, 2e3, 2e3}, 1e-3), "2.00 (2.00-2.00)");   // one sample: three digits
}

// Bug: the Throughput panel printed float8_e4m3fn at "212%" of float32's sgemm, which it runs on,
// from medians whose quartile ranges (16-124 and 26-102) overlapped: noise shown as a speed-up.
TEST(Throughput, ARatioNeedsSpreadsThatDoNotOverlap) {
  EXPECT_EQ(ratio_text({16, 103, 124}, {26, 49, 102}), "spreads overlap");
  EXPECT_EQ(ratio_text({60, 64, 68}, {47, 49, 51}), "131%");
  EXPECT_EQ(ratio_text({30, 30, 30}, {60, 60, 60}), "50%");  // one sample each: no spread to compare
  EXPECT_EQ(ratio_text({30, 30, 30}, {0, 0, 0}), "");
}

}  // namespace
}  // namespace pl::experiment
