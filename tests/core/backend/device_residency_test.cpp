// An experiment's arrays stay where its backend computes (held_values.h, docs/device-residency.md):
// with a stand-in device that counts its traffic, a run leaves the product, its outputs and the
// references on the device, makes the statistics and the heat map there, and reads nothing back;
// a re-run on the same operands sends nothing either. The numbers are the CPU's bit for bit, and
// a step the device cannot do runs on the CPU, saying so.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/backend/backend.h"
#include "core/experiment/framework_check.h"
#include "core/experiment/matmul.h"
#include "core/experiment/mlp.h"
#include "core/experiment/quantised_cache.h"
#include "core/experiment/reference_cache.h"
#include "tests/core/stub_device.h"
#include "tests/core/values_of.h"

namespace pl {
namespace {

using experiment::AccumKind;
using experiment::MatmulConfig;
using experiment::MatmulResult;
using testing_support::StubDevice;
using testing_support::Traffic;

// Registers a device as "cuda" for one test and removes it (with its shared instance) at the end.
template <typename Device>
struct Registered {
  std::shared_ptr<Traffic> traffic = std::make_shared<Traffic>();
  Registered() {
    auto t = traffic;
    register_backend(BackendChoice::Cuda,
                     [t] { return Expected<std::unique_ptr<Backend>>(std::make_unique<Device>(t)); });
    experiment::clear_reference_cache();
    experiment::clear_quantised_cache();
  }
  ~Registered() {
    unregister_backend(BackendChoice::Cuda);
    experiment::clear_reference_cache();
    experiment::clear_quantised_cache();
  }
  Registered(const Registered&) = delete;
  Registered& operator=(const Registered&) = delete;
};

MatmulConfig bf16_linear() {
  MatmulConfig c;
  c.m = 48, c.n = 40, c.k = 64;
  c.input = c.weight = DType::bfloat16;
  c.accumulate = {AccumKind::Blas, DType::float32};
  c.output = DType::bfloat16;
  c.seed = 11;
  c.backend = BackendChoice::Cuda;
  return c;
}

// Every array and statistic of two runs of one setup, on the device and on the CPU.
void expect_same_run(const MatmulResult& device, const MatmulResult& cpu) {
  EXPECT_EQ(test::values_of(device.result), test::values_of(cpu.result));
  EXPECT_EQ(test::values_of(device.accumulated), test::values_of(cpu.accumulated));
  EXPECT_EQ(test::values_of(device.reference), test::values_of(cpu.reference));
  EXPECT_EQ(test::values_of(device.rounded_reference), test::values_of(cpu.rounded_reference));
  EXPECT_EQ(device.error_map.values, cpu.error_map.values);
  for (auto [d, c] : {std::pair{&device.total, &cpu.total}, std::pair{&device.input, &cpu.input},
                      std::pair{&device.arithmetic, &cpu.arithmetic}, std::pair{&device.output, &cpu.output}}) {
    EXPECT_EQ(d->stats.max_abs, c->stats.max_abs) << d->name;
    EXPECT_EQ(d->stats.mean_rel, c->stats.mean_rel) << d->name;
    EXPECT_EQ(d->relative.counts, c->relative.counts) << d->name;
  }
  EXPECT_EQ(device.within_deterministic, cpu.within_deterministic);
  EXPECT_EQ(device.compared, cpu.compared);
}

TEST(DeviceResidency, ARunReadsNothingBackAndAReRunSendsNothing) {
  const Registered<StubDevice> device;
  MatmulConfig c = bf16_linear();
  auto first = experiment::run_matmul(c);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->product_backend, "cuda (Stub GPU)") << first->backend_note;
  EXPECT_EQ(first->analysis_backend, "cuda (Stub GPU)") << first->backend_note;
  EXPECT_TRUE(first->backend_note.empty()) << first->backend_note;
  // The product's operands and both references' (float64 dgemm) operands went up once; nothing
  // came back, and the heat map is there.
  EXPECT_EQ(device.traffic->operand_uploads, 6);
  EXPECT_EQ(device.traffic->array_uploads, 0);
  EXPECT_EQ(device.traffic->downloads, 0);
  EXPECT_EQ(first->error_map.values.size(), c.m * c.n);

  // The window's usual re-run: another output dtype on the same operands.
  device.traffic->reset();
  c.output = DType::float16;
  auto again = experiment::run_matmul(c);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_NE(again->reference_method.find("(cached)"), std::string::npos) << again->reference_method;
  EXPECT_EQ(device.traffic->operand_uploads, 0);
  EXPECT_EQ(device.traffic->array_uploads, 0);
  EXPECT_EQ(device.traffic->downloads, 0);

  // Reading an array back is one download, however often it is read.
  ASSERT_TRUE(again->result->host().ok());
  ASSERT_TRUE(again->result->host().ok());
  EXPECT_EQ(device.traffic->downloads, 1);

  // What was computed there is the CPU's, bit for bit.
  MatmulConfig on_cpu = c;
  on_cpu.backend = BackendChoice::Cpu;
  auto cpu = experiment::run_matmul(on_cpu);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  expect_same_run(*again, *cpu);
}

// Scales (float8 per tensor) and a bias: the epilogue runs on the device, the bias is added to
// the references there, and the result is still the CPU's.
TEST(DeviceResidency, TheEpilogueAndTheBiasStayOnTheDevice) {
  const Registered<StubDevice> device;
  MatmulConfig c = bf16_linear();
  c.input = c.weight = DType::float8_e4m3fn;
  c.input_scaling.kind = c.weight_scaling.kind = experiment::ScalingKind::PerTensor;
  c.bias = DType::bfloat16;
  auto run = experiment::run_matmul(c);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_TRUE(run->backend_note.empty()) << run->backend_note;
  EXPECT_EQ(device.traffic->array_uploads, 0);
  EXPECT_EQ(device.traffic->downloads, 0);
  c.backend = BackendChoice::Cpu;
  auto cpu = experiment::run_matmul(c);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  expect_same_run(*run, *cpu);
}

// A device that cannot finish a float16 output: the CPU does, reading the sums back.
class NoFloat16Output final : public StubDevice {
 public:
  using StubDevice::StubDevice;
  Expected<HeldOutput> finish_output(const experiment::OutputSteps& s, Held sums) override {
    if (s.output == DType::float16) return Error{"no float16 output kernel"};
    return StubDevice::finish_output(s, std::move(sums));
  }
};

TEST(DeviceResidency, AStepTheDeviceCannotDoRunsOnTheCpuAndSaysSo) {
  const Registered<NoFloat16Output> device;
  MatmulConfig c = bf16_linear();
  c.output = DType::float16;
  auto run = experiment::run_matmul(c);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_NE(run->backend_note.find("cuda could not finish the output (no float16 output kernel): the CPU did"),
            std::string::npos)
      << run->backend_note;
  // The sums came back for the CPU, and the reference for the heat map, made beside the result.
  EXPECT_EQ(device.traffic->downloads, 2);
  EXPECT_EQ(run->result->holder(), 0u);
  EXPECT_EQ(run->accumulated->holder(), run->reference->holder());  // (no epilogue: the sums themselves)
  c.backend = BackendChoice::Cpu;
  auto cpu = experiment::run_matmul(c);
  ASSERT_TRUE(cpu.ok()) << cpu.error();
  expect_same_run(*run, *cpu);
}

// A device lost in the middle of a run, with the sums it held: the CPU cannot take the step over
// either, and the run fails as the machine's failure (the command line's exit 1), not as a
// setup the user has to change (exit 2).
class LostAfterTheProduct final : public StubDevice {
 public:
  explicit LostAfterTheProduct(std::shared_ptr<Traffic> t) : StubDevice(t), traffic_(std::move(t)) {}
  Expected<HeldOutput> finish_output(const experiment::OutputSteps&, Held) override {
    traffic_->lost = true;
    return Error{"an illegal memory access was encountered"};
  }

 private:
  std::shared_ptr<Traffic> traffic_;
};

TEST(DeviceResidency, ADeviceLostInTheRunIsAnEnvironmentFailure) {
  const Registered<LostAfterTheProduct> device;
  const MatmulConfig c = bf16_linear();
  auto run = experiment::run_matmul(c);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("the device was lost"), std::string::npos) << run.error();
  EXPECT_TRUE(run.environment_failure()) << run.error();
  // As a whole experiment (the command line's matmul and run), the failure keeps its kind.
  experiment::MatmulSpec spec;
  spec.config = c;
  auto as_spec = experiment::run_spec(spec);
  ASSERT_FALSE(as_spec.ok());
  EXPECT_TRUE(as_spec.environment_failure()) << as_spec.error();
  // An MLP's layer, likewise.
  experiment::MlpConfig mlp;
  mlp.layer = c;
  mlp.layer.n = mlp.layer.k;
  mlp.layers = 2;
  auto net = experiment::run_mlp(mlp);
  ASSERT_FALSE(net.ok());
  EXPECT_TRUE(net.environment_failure()) << net.error();
}

// Control: operands that do not fit the shape are the input's fault, on any backend.
TEST(DeviceResidency, OperandsThatDoNotFitTheShapeAreNotAnEnvironmentFailure) {
  MatmulConfig c = bf16_linear();
  c.backend = BackendChoice::Cpu;
  experiment::MatmulOperands given;
  given.a.assign(c.m * c.k - 1, 1.0);
  given.b.assign(c.n * c.k, 1.0);
  auto run = experiment::run_matmul(c, given);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().find("the input holds"), std::string::npos) << run.error();
  EXPECT_FALSE(run.environment_failure());
}

}  // namespace
}  // namespace pl
