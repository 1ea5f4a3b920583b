// Matrix products through the backend interface: the CPU backend is experiment::gemm itself,
// and run_matmul hands the product to the backend the config names -- or, when that one is
// missing, refuses the model, or fails, to the CPU, saying why. A fake "cuda" backend stands
// in for the GPU (core_tests registers no real one).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "core/accumulate/gemm.h"
#include "core/backend/backend.h"
#include "core/dtype/codec.h"
#include "core/experiment/dot_sweep.h"
#include "core/experiment/matmul.h"
#include "core/experiment/mlp.h"
#include "core/experiment/roundtrip.h"
#include "core/experiment/spec/matmul_json.h"
#include "core/experiment/throughput_run.h"
#include "core/figure/experiment_figures.h"
#include "core/figure/throughput_figures.h"
#include "tests/core/stub_backend.h"
#include "tests/core/test_util.h"

namespace pl {
namespace {

using experiment::AccumKind;
using experiment::Accumulation;

std::vector<double> bf16_values(size_t count, double scale) {
  std::vector<double> v(count);
  for (size_t i = 0; i < count; ++i)  // exact bfloat16 numbers: 8 significant bits
    v[i] = std::ldexp(double(int(i * 37 % 255) - 127), -7) * scale;
  return v;
}

TEST(CpuBackendProduct, IsTheGemmItself) {
  auto cpu = make_cpu_backend();
  const experiment::GemmShape shape{19, 23, 77};
  const auto a = bf16_values(shape.m * shape.k, 1.0), b = bf16_values(shape.n * shape.k, 3.0);
  for (const Accumulation& acc :
       {Accumulation{AccumKind::Sequential, DType::bfloat16},
        Accumulation{AccumKind::Chunked, DType::float16, Rounding::NearestEven, 32, 8, DType::float32},
        Accumulation{AccumKind::Blas, DType::float32}, Accumulation{AccumKind::Float64, DType::float64}}) {
    const ProductSpec spec{shape, DType::bfloat16, DType::bfloat16, acc};
    ASSERT_TRUE(cpu->supports_product(spec).ok) << describe(acc);
    auto run = cpu->product(spec, a, b, {});
    ASSERT_TRUE(run.ok()) << run.error();
    auto direct = experiment::gemm(shape, a, b, acc);
    ASSERT_TRUE(direct.ok());
    ASSERT_EQ(run->c.size(), direct->size());
    EXPECT_EQ(std::memcmp(run->c.data(), direct->data(), direct->size() * sizeof(double)), 0) << describe(acc);
    EXPECT_FALSE(run->method.empty());
  }
}

// Bug: the BLAS model's name was "f32 OpenBLAS sgemm" wherever it ran, so a dot sweep on a GPU
// labelled cuBLASLt's rows as OpenBLAS's. The model names no library; the CPU's method does.
TEST(CpuBackendProduct, TheBlasModelNamesNoLibraryAndTheCpuNamesOpenBlas) {
  const Accumulation blas{AccumKind::Blas, DType::float32};
  EXPECT_EQ(describe(blas), "f32 BLAS sgemm");
  EXPECT_EQ(describe(Accumulation{AccumKind::Blas, DType::float64}), "f64 BLAS dgemm");
  auto cpu = make_cpu_backend();
  const experiment::GemmShape shape{2, 2, 4};
  const auto a = bf16_values(8, 1.0), b = bf16_values(8, 3.0);
  auto run = cpu->product({shape, DType::bfloat16, DType::bfloat16, blas}, a, b, {});
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->method.rfind("f32 OpenBLAS sgemm (", 0), 0u) << run->method;
}

TEST(CpuBackendProduct, RefusesFloat16LibraryAccumulationWithTheReason) {
  auto cpu = make_cpu_backend();
  const ProductSpec spec{{4, 4, 4}, DType::float16, DType::float16, {AccumKind::Blas, DType::float16}};
  const Support s = cpu->supports_product(spec);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.why_not.find("OpenBLAS has no float16 GEMM"), std::string::npos) << s.why_not;
  std::vector<double> x(16, 1.0);
  EXPECT_FALSE(cpu->product(spec, x, x, {}).ok());
}

// Stands in for a GPU: runs the CPU's GEMM and marks what it ran; refuses pairwise sums; fails
// on a k of 13 (a device error), so every path of the dispatch is seen.
class FakeDevice final : public testing_support::StubBackend {
 public:
  FakeDevice() : StubBackend("cuda", "Fake GPU") {}
  Support supports_product(const ProductSpec& s) const override {
    if (s.accumulate.kind == AccumKind::Pairwise) return {false, "no pairwise kernel"};
    return {true, ""};
  }
  Expected<ProductRun> product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                               const ProductControl& c) override {
    if (s.shape.k == 13) return Error{"device lost"};
    auto r = experiment::gemm(s.shape, a, b, s.accumulate, c.progress, c.cancel, s.stream_offset);
    if (!r) return Error{r.error()};
    return ProductRun{std::move(r).value(), "fake kernel", 0.25};
  }
  Expected<ProductTiming> time_product(const ProductSpec&, std::span<const double>, std::span<const double>, int reps,
                                       const std::atomic<bool>*) override {
    return ProductTiming{std::vector<double>(size_t(reps), 0.5), 0.5, "fake kernel", "fake clock"};
  }
  // The error statistics: the CPU's, but never for a float16 output (a device error).
  Expected<std::vector<experiment::ErrorStats>> error_stats(std::span<const experiment::Comparison> cs, DType output,
                                                            double rel_floor) override {
    if (output == DType::float16) return Error{"statistics kernel lost"};
    return Backend::error_stats(cs, output, rel_floor);
  }
  // The cast experiment's rounding: the CPU's, but never into e8m0 (as the CUDA backend).
  Status roundtrip_f64(const FloatFormat& f, const CastOptions& o, std::span<double> v) override {
    if (f.specials == Specials::E8M0) return Error{"no e8m0 kernel"};
    round_each(f, v, v, o);
    return {};
  }
};

// Registers FakeDevice as "cuda" for one test; removes it (and its shared instance) at the end,
// so later tests in this process see no "cuda".
struct FakeDeviceRegistered {
  FakeDeviceRegistered() {
    register_backend(BackendChoice::Cuda,
                     [] { return Expected<std::unique_ptr<Backend>>(std::make_unique<FakeDevice>()); });
  }
  ~FakeDeviceRegistered() { unregister_backend(BackendChoice::Cuda); }
  FakeDeviceRegistered(const FakeDeviceRegistered&) = delete;
  FakeDeviceRegistered& operator=(const FakeDeviceRegistered&) = delete;
};

experiment::MatmulConfig small_config(AccumKind kind, size_t k) {
  experiment::MatmulConfig c;
  c.m = 8, c.n = 8, c.k = k;
  c.accumulate = {kind, DType::float32};
  return c;
}

// One test, in this order: first no "cuda" backend at all, then the fake one (removed again at
// the end, with its shared instance).
TEST(MatmulBackend, RunsWhereTheConfigSaysAndFallsBackWithTheReason) {
  auto missing = small_config(AccumKind::Blas, 32);
  missing.backend = BackendChoice::Cuda;
  auto r = experiment::run_matmul(missing);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->product_backend, "cpu");
  EXPECT_NE(r->backend_note.find("cuda unavailable"), std::string::npos) << r->backend_note;

  const FakeDeviceRegistered fake;
  auto cpu_run = experiment::run_matmul(small_config(AccumKind::Sequential, 64));
  ASSERT_TRUE(cpu_run.ok());
  EXPECT_EQ(cpu_run->product_backend, "cpu");
  EXPECT_TRUE(cpu_run->backend_note.empty());
  EXPECT_FALSE(cpu_run->product_device_seconds);  // (result.json: null, not a time of 0)

  auto c = small_config(AccumKind::Sequential, 64);
  c.backend = BackendChoice::Cuda;
  auto gpu_run = experiment::run_matmul(c);
  ASSERT_TRUE(gpu_run.ok()) << gpu_run.error();
  EXPECT_EQ(gpu_run->product_backend, "cuda (Fake GPU)");
  EXPECT_EQ(gpu_run->product_method, "fake kernel");
  EXPECT_EQ(gpu_run->product_device_seconds, 0.25);
  EXPECT_TRUE(gpu_run->backend_note.empty());
  EXPECT_EQ(test::values_of(gpu_run->result), test::values_of(cpu_run->result));  // same data, same model: same numbers

  // A model the device refuses: the CPU runs it, and the note says why.
  c.accumulate = {AccumKind::Pairwise, DType::float32};
  auto refused = experiment::run_matmul(c);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->product_backend, "cpu");
  EXPECT_NE(refused->backend_note.find("no pairwise kernel"), std::string::npos) << refused->backend_note;
  EXPECT_NE(refused->backend_note.find("ran on the CPU"), std::string::npos);

  // An MLP's layers run there too.
  experiment::MlpConfig mlp;
  mlp.layer = small_config(AccumKind::Sequential, 8);
  mlp.layer.n = 8;
  mlp.layers = 2;
  auto mlp_cpu = experiment::run_mlp(mlp);
  mlp.layer.backend = BackendChoice::Cuda;
  auto mlp_gpu = experiment::run_mlp(mlp);
  ASSERT_TRUE(mlp_cpu.ok() && mlp_gpu.ok());
  EXPECT_EQ(mlp_cpu->product_backend, "cpu");
  EXPECT_EQ(mlp_gpu->product_backend, "cuda (Fake GPU)");
  EXPECT_EQ(mlp_gpu->layers.back().network.normwise_rel, mlp_cpu->layers.back().network.normwise_rel);

  // A device error: the CPU runs it, and the note carries the device's message.
  auto failing = small_config(AccumKind::Sequential, 13);
  failing.backend = BackendChoice::Cuda;
  auto failed = experiment::run_matmul(failing);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->product_backend, "cpu");
  EXPECT_NE(failed->backend_note.find("device lost"), std::string::npos) << failed->backend_note;
}

// A library product on a device is not held to float32's bound without a word: its tensor cores
// add bfloat16 products with truncation (recorded on H100 and H200). Float32 operands, or the
// CPU's library, take the bound as it is.
TEST(MatmulBackend, ADevicesLibraryProductSaysTheBoundIsTheModels) {
  const FakeDeviceRegistered fake;
  auto c = small_config(AccumKind::Blas, 32);
  c.backend = BackendChoice::Cuda;
  auto gpu = experiment::run_matmul(c);  // bfloat16 operands
  ASSERT_TRUE(gpu.ok()) << gpu.error();
  ASSERT_EQ(gpu->product_backend, "cuda (Fake GPU)");
  EXPECT_NE(gpu->bound_note.find("the bound is the float32 model's"), std::string::npos) << gpu->bound_note;
  // Bug: the note said every narrow product adds "with fewer bits"; the probe recorded float32's
  // 24 bits for bfloat16 and float16 products (cut toward zero, 16 at a time) and for tf32's
  // (truncated), and about 14 between promotions for float8 products alone.
  EXPECT_EQ(gpu->bound_note.find("fewer bits"), std::string::npos) << gpu->bound_note;
  EXPECT_NE(gpu->bound_note.find("16 at a time"), std::string::npos) << gpu->bound_note;
  // Bug: the bound figure drew its gamma_K line with no word of the device's adder.
  const auto figures = figure::matmul_figures(*gpu);
  const auto bound_fig = std::find_if(figures.begin(), figures.end(),
                                      [](const figure::Figure& f) { return f.name == "arithmetic-vs-bound"; });
  ASSERT_NE(bound_fig, figures.end());
  EXPECT_NE(bound_fig->subtitle.find(gpu->bound_note), std::string::npos) << bound_fig->subtitle;
  EXPECT_NE(bounds_line(*gpu).find("; the bound is the float32 model's"), std::string::npos) << bounds_line(*gpu);
  EXPECT_TRUE(gpu->backend_note.empty()) << gpu->backend_note;  // (it ran where it was asked to)
  c.input = c.weight = DType::float8_e4m3fn;
  auto fp8 = experiment::run_matmul(c);
  ASSERT_TRUE(fp8.ok()) << fp8.error();
  EXPECT_NE(fp8->bound_note.find("about 14 bits"), std::string::npos) << fp8->bound_note;
  c.input = c.weight = DType::float32;
  auto f32 = experiment::run_matmul(c);
  ASSERT_TRUE(f32.ok()) << f32.error();
  EXPECT_TRUE(f32->bound_note.empty()) << f32->bound_note;
  c.input = c.weight = DType::bfloat16;
  c.backend = BackendChoice::Cpu;
  auto cpu = experiment::run_matmul(c);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  EXPECT_TRUE(cpu->bound_note.empty()) << cpu->bound_note;
}

// The error statistics (and the bound check's |A||B|) are made where the product ran when that
// is a device, and where the device fails, on the CPU with the reason in the note -- the same numbers either way here
// (the stand-in makes them with the CPU's code). The float32 GEMM of float32 arrays (the bound check's |A||B|): the
// CPU's is sgemm on the floats; a backend without its own goes through product() with float64 copies, and reads back
// the same floats; arrays that do not fit the shape are an error either way.
TEST(CpuBackendProduct, Float32ArraysGiveTheSameFloatsEitherWay) {
  const experiment::GemmShape shape{37, 53, 29};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(0.0f, 3.0f);
  std::vector<float> a(shape.m * shape.k), b(shape.n * shape.k), by_cpu(shape.m * shape.n), by_default(by_cpu.size());
  for (float& x : a) x = d(rng);
  for (float& x : b) x = d(rng);
  auto cpu = make_cpu_backend();
  auto method = cpu->product_f32(shape, a, b, by_cpu);
  ASSERT_TRUE(method.ok()) << method.error();
  EXPECT_EQ(method->rfind("OpenBLAS sgemm", 0), 0u) << *method;
  FakeDevice fake;
  auto widened = fake.product_f32(shape, a, b, by_default);
  ASSERT_TRUE(widened.ok()) << widened.error();
  EXPECT_EQ(*widened, "fake kernel");
  for (size_t i = 0; i < by_cpu.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(by_default[i]), std::bit_cast<uint32_t>(by_cpu[i])) << i;
    double exact = 0;  // and the sums are sums: within k u of the float64 ones (nonnegative terms)
    for (size_t t = 0; t < shape.k; ++t)
      exact += double(a[i / shape.n * shape.k + t]) * double(b[i % shape.n * shape.k + t]);
    ASSERT_NEAR(by_cpu[i], exact, exact * double(shape.k) * 0x1p-24) << i;
  }
  std::vector<float> short_c(by_cpu.size() - 1);
  EXPECT_FALSE(cpu->product_f32(shape, a, b, short_c).ok());
  EXPECT_FALSE(fake.product_f32(shape, a, b, short_c).ok());
}

TEST(MatmulBackend, StatisticsAreMadeOnTheDeviceAndFallBackWithTheReason) {
  auto cpu_run = experiment::run_matmul(small_config(AccumKind::Sequential, 64));
  ASSERT_TRUE(cpu_run.ok());
  EXPECT_EQ(cpu_run->analysis_backend, "cpu");
  EXPECT_EQ(cpu_run->bound_method.rfind("OpenBLAS sgemm", 0), 0u) << cpu_run->bound_method;

  const FakeDeviceRegistered fake;
  auto c = small_config(AccumKind::Sequential, 64);
  c.backend = BackendChoice::Cuda;
  auto gpu_run = experiment::run_matmul(c);
  ASSERT_TRUE(gpu_run.ok()) << gpu_run.error();
  EXPECT_EQ(gpu_run->analysis_backend, "cuda (Fake GPU)");
  EXPECT_EQ(gpu_run->bound_method, "fake kernel on Fake GPU");  // |A||B| on the device too
  EXPECT_TRUE(gpu_run->backend_note.empty()) << gpu_run->backend_note;
  EXPECT_EQ(gpu_run->total.stats.max_abs, cpu_run->total.stats.max_abs);
  EXPECT_EQ(gpu_run->arithmetic.signed_error.counts, cpu_run->arithmetic.signed_error.counts);
  EXPECT_EQ(gpu_run->compared, cpu_run->compared);

  c.output = DType::float16;
  auto failed = experiment::run_matmul(c);
  ASSERT_TRUE(failed.ok()) << failed.error();
  EXPECT_EQ(failed->product_backend, "cuda (Fake GPU)");
  EXPECT_EQ(failed->analysis_backend, "cpu");
  EXPECT_NE(failed->backend_note.find("statistics kernel lost"), std::string::npos) << failed->backend_note;
  EXPECT_NE(failed->backend_note.find("the CPU made them"), std::string::npos) << failed->backend_note;
}

TEST(MatmulBackend, Float16LibraryAccumulationNeedsADevice) {
  auto c = small_config(AccumKind::Blas, 32);
  c.input = c.weight = DType::float16;
  c.accumulate = {AccumKind::Blas, DType::float16};
  EXPECT_EQ(experiment::check(c).error(), "");  // the model itself is valid...
  auto r = experiment::run_matmul(c);           // ...but the CPU has no float16 GEMM
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("OpenBLAS has no float16 GEMM"), std::string::npos) << r.error();
}

TEST(MatmulBackend, UnknownBackendNameIsAFileError) {
  auto spec = experiment::matmul_spec_from_json({{"experiment", "linear"}, {"backend", "tpu"}});
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error(), "'backend': 'tpu': expected cpu, cuda or auto");
}

TEST(SharedBackend, OneObjectPerNameAndAutoSharesIt) {
  auto a = shared_backend(BackendChoice::Cpu);
  auto b = shared_backend(BackendChoice::Cpu);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->backend.get(), b->backend.get());
  EXPECT_EQ(a->mutex.get(), b->mutex.get());
  auto chosen = shared_backend(BackendChoice::Auto);  // no device here: the CPU's object
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->backend.get(), a->backend.get());
}

// The dot sweep's trials are 1 x 1 x K products: on a device when one is asked for and runs the
// model, else on the CPU with the reason -- and the numbers do not depend on where they ran.
TEST(DotSweepBackend, RunsEachTrialOnTheDeviceAndFallsBackWithTheReason) {
  experiment::DotSweepConfig c;
  c.lengths = {8, 13, 64};  // 13: the fake device fails
  c.trials = 5;
  c.models = {{AccumKind::Sequential, DType::float32},
              {AccumKind::Pairwise, DType::float32},                            // refused by the device
              {AccumKind::Sequential, DType::bfloat16, Rounding::Stochastic}};  // a stream per trial
  const auto on_cpu = experiment::dot_sweep(c);
  ASSERT_EQ(on_cpu.size(), 9u);
  for (const auto& r : on_cpu) {
    EXPECT_EQ(r.ran_on, "cpu");
    EXPECT_TRUE(r.note.empty()) << r.note;
  }
  const auto cpu_entries = experiment::where_ran(on_cpu);
  ASSERT_EQ(cpu_entries.size(), 1u);
  EXPECT_EQ(cpu_entries[0].what, "every model ran on the CPU");
  EXPECT_TRUE(cpu_entries[0].note.empty()) << cpu_entries[0].note;

  c.backend = BackendChoice::Cuda;
  const auto missing = experiment::dot_sweep(c);
  ASSERT_EQ(missing.size(), 9u);
  EXPECT_EQ(missing[0].ran_on, "cpu");
  EXPECT_NE(missing[0].note.find("cuda unavailable"), std::string::npos) << missing[0].note;

  const FakeDeviceRegistered fake;
  const auto on_device = experiment::dot_sweep(c);
  ASSERT_EQ(on_device.size(), on_cpu.size());
  for (size_t i = 0; i < on_device.size(); ++i) {
    const auto& r = on_device[i];
    const std::string what = describe(r.model) + " K=" + std::to_string(r.length);
    EXPECT_EQ(r.scaled_errors, on_cpu[i].scaled_errors) << what;  // bit for bit, wherever it ran
    EXPECT_EQ(r.stats.max_abs, on_cpu[i].stats.max_abs) << what;
    if (r.model.kind == AccumKind::Pairwise) {
      EXPECT_EQ(r.ran_on, "cpu") << what;
      EXPECT_NE(r.note.find("no pairwise kernel"), std::string::npos) << r.note;
    } else if (r.length == 13) {
      EXPECT_EQ(r.ran_on, "cpu") << what;
      EXPECT_NE(r.note.find("cuda failed: device lost"), std::string::npos) << r.note;
    } else {
      EXPECT_EQ(r.ran_on, "cuda (Fake GPU)") << what;
      EXPECT_EQ(r.method, "fake kernel");
      EXPECT_TRUE(r.note.empty()) << r.note;
    }
  }
  // One entry per model and place; the failure's with its note.
  const auto entries = experiment::where_ran(on_device);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0].what, "f32 sequential rne: fake kernel on cuda (Fake GPU)");
  EXPECT_TRUE(entries[0].note.empty()) << entries[0].note;
  EXPECT_EQ(entries[2].what, "bf16 sequential stochastic: fake kernel on cuda (Fake GPU)");
  EXPECT_EQ(entries[3].what, "f32 sequential rne: on the CPU");
  EXPECT_EQ(entries[3].note.rfind("cuda failed: device lost", 0), 0u) << entries[3].note;
  EXPECT_EQ(entries[4].what, "bf16 sequential stochastic: on the CPU");  // K = 13 again

  // Cancelled before it starts: nothing comes back.
  std::atomic<bool> cancel{true};
  EXPECT_TRUE(experiment::dot_sweep(c, {}, &cancel).empty());
}

// The throughput experiment on a device: said to be a GPU, its rates in TFLOP/s (the CPU's
// wording, "narrower dtypes are emulated on this CPU", would be false there).
TEST(ThroughputBackend, ADeviceIsNamedAndItsRatesReadInTflops) {
  EXPECT_FALSE(experiment::throughput_device(BackendChoice::Cpu).gpu);
  const auto missing = experiment::throughput_device(BackendChoice::Cuda);  // none registered: the CPU
  EXPECT_FALSE(missing.gpu);
  EXPECT_EQ(missing.backend, BackendChoice::Cpu);

  const FakeDeviceRegistered fake;
  const auto device = experiment::throughput_device(BackendChoice::Auto);
  EXPECT_TRUE(device.gpu);
  EXPECT_EQ(device.backend, BackendChoice::Cuda);
  EXPECT_EQ(device.name.rfind("Fake GPU (cuda;", 0), 0u) << device.name;

  experiment::ThroughputConfig c;
  c.dtypes = {DType::float32, DType::bfloat16};
  c.n = 64;
  c.repetitions = 2;
  c.backend = BackendChoice::Cuda;
  auto r = experiment::run_throughput(c);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->gpu);
  EXPECT_EQ(r->device, "cuda: Fake GPU");
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[1].seconds, (std::vector<double>{0.5, 0.5}));  // the device's own clock
  const figure::Figure rate = figure::throughput_run_figures(*r).front();
  EXPECT_EQ(rate.y.label, "TFLOP/s");
  ASSERT_FALSE(rate.series.empty());
  EXPECT_EQ(rate.series[0].y, (std::vector<double>{experiment::product_gflops(64, 0.5) * 1e-3}));
}

// Bug: the round trip's seed drew its values but never reached the stochastic stream (always
// seed 0): a file's values rounded alike under every seed, though the seed was taken for it.
TEST(CastBackend, TheSeedSeedsTheStochasticStream) {
  experiment::RoundtripConfig c;
  c.rows = 8, c.cols = 64;
  c.cast.rounding = Rounding::Stochastic;
  std::vector<double> values(c.rows * c.cols);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.01 * double(i % 97) + 0.003;
  auto at = [&](uint64_t seed) {
    c.seed = seed;
    auto r = experiment::run_roundtrip(c, values);
    EXPECT_TRUE(r.ok()) << r.error();
    return r ? r->stats.mean_abs : -1.0;
  };
  EXPECT_EQ(at(1), at(1));
  EXPECT_NE(at(1), at(2));
}

// The cast experiment rounds its elements where the config says: nowhere to go without a
// "cuda", on the fake device when there is one (the same numbers), and back on the CPU, with
// the reason, for a format the device refuses.
TEST(CastBackend, RoundsWhereTheConfigSaysAndFallsBackWithTheReason) {
  experiment::RoundtripConfig c;
  c.rows = 16, c.cols = 64;
  c.scaling.kind = experiment::ScalingKind::MX;
  c.cast.rounding = Rounding::Stochastic;
  const auto cpu = experiment::run_roundtrip(c);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  EXPECT_EQ(cpu->ran_on, "cpu");
  EXPECT_TRUE(cpu->backend_note.empty());
  c.backend = BackendChoice::Cuda;
  const auto missing = experiment::run_roundtrip(c);
  ASSERT_TRUE(missing.ok()) << missing.error();
  EXPECT_EQ(missing->ran_on, "cpu");
  EXPECT_NE(missing->backend_note.find("cuda unavailable"), std::string::npos) << missing->backend_note;

  const FakeDeviceRegistered fake;
  const auto device = experiment::run_roundtrip(c);
  ASSERT_TRUE(device.ok()) << device.error();
  EXPECT_EQ(device->ran_on, "cuda (Fake GPU)");
  EXPECT_TRUE(device->backend_note.empty()) << device->backend_note;
  EXPECT_EQ(device->stats.max_abs, cpu->stats.max_abs);
  EXPECT_EQ(device->stats.mean_abs, cpu->stats.mean_abs);
  EXPECT_EQ(device->saturated, cpu->saturated);
  EXPECT_EQ(device->flushed, cpu->flushed);

  c.dtype = DType::float8_e8m0fnu;
  c.scaling.kind = experiment::ScalingKind::None;
  const auto refused = experiment::run_roundtrip(c);
  ASSERT_TRUE(refused.ok()) << refused.error();
  EXPECT_EQ(refused->ran_on, "cpu");
  EXPECT_EQ(refused->backend_note, "cuda failed: no e8m0 kernel; the CPU rounded the values");

  c.dtype = DType::int8;
  c.scaling.kind = experiment::ScalingKind::PerChannel;
  const auto integers = experiment::run_roundtrip(c);
  ASSERT_TRUE(integers.ok()) << integers.error();
  EXPECT_EQ(integers->ran_on, "cpu");
  EXPECT_EQ(integers->backend_note, "int8 values are rounded on the CPU (no device kernel)");
}

}  // namespace
}  // namespace pl
