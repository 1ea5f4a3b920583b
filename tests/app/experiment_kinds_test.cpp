// The Experiment panel's dot sweep in the window: a sweep far past interactive scale (a length of
// 2^24 with 10^6 trials: days) never starts on the automatic re-run after an edit -- the panel
// shows its estimate and waits for Run -- while a small one runs and reports its estimate.
#include <gtest/gtest.h>

#include <string>

#include "app/ui/views/experiment_kinds.h"
#include "core/experiment/spec/sweep_json.h"

namespace pl::ui {
namespace {

using namespace experiment;

nlohmann::json sweep_file(size_t length, int trials) {
  DotSweepConfig c;
  c.lengths = {length};
  c.trials = trials;
  c.models = {*parse_accumulation("f32:sequential")};
  return to_json(c);
}

TEST(ExperimentKinds, AHugeSweepWaitsForRunWithItsEstimate) {
  std::string estimate;
  bool ran = false;
  auto run = run_other_kind(
      sweep_file(size_t{1} << 24, 1'000'000), /*asked=*/false, [&](const std::string& t) { estimate = t; },
      [&](double) { ran = true; }, nullptr);
  ASSERT_FALSE(run);
  EXPECT_TRUE(run.error().starts_with(kNotStarted)) << run.error();
  EXPECT_NE(run.error().find("press Run"), std::string::npos) << run.error();
  EXPECT_NE(run.error().find(estimate), std::string::npos) << run.error();
  EXPECT_NE(estimate.find("hours here"), std::string::npos) << estimate;
  EXPECT_FALSE(ran);  // the sweep itself never started: no progress was reported
}

TEST(ExperimentKinds, ASmallSweepRunsAndSaysItsEstimate) {
  std::string estimate;
  auto run = run_other_kind(
      sweep_file(64, 4), /*asked=*/false, [&](const std::string& t) { estimate = t; }, {}, nullptr);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->dot_rows.size(), 1u);
  EXPECT_NE(estimate.find("about 2.6e+02 terms"), std::string::npos) << estimate;
}

TEST(ExperimentKinds, OtherKindsHaveNoEstimate) {
  MlpConfig m;
  m.layer.m = m.layer.k = m.layer.n = 8;
  m.layer.op = MatmulOp::Linear;
  m.layers = 2;
  bool estimated = false;
  auto run = run_other_kind(
      to_json(m), false, [&](const std::string&) { estimated = true; }, {}, nullptr);
  ASSERT_TRUE(run) << run.error();
  EXPECT_FALSE(estimated);
}

}  // namespace
}  // namespace pl::ui
