// The training experiment: gradient descent in each format's own arithmetic. float64 reaches
// the least-squares loss; bfloat16 weights stall once updates fall under half an ulp; float32
// master weights keep every update.
#include "core/experiment/train.h"

#include <atomic>

#include <gtest/gtest.h>

#include <cmath>

#include "core/experiment/spec/train_json.h"
#include "core/figure/train_figures.h"

namespace pl::experiment {
namespace {

TrainConfig small(std::initializer_list<const char*> models) {
  TrainConfig c;
  for (const char* m : models) c.models.push_back(*parse_train_model(m));
  c.features = 8, c.samples = 64, c.steps = 300, c.seed = 5;
  return c;
}

TEST(Train, ParsesModelsAndNamesWhatIsWrong) {
  const auto m = parse_train_model("bfloat16:float32");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->compute, DType::bfloat16);
  EXPECT_EQ(m->master, DType::float32);
  EXPECT_EQ(train_model_name(*m), "bfloat16:float32");
  EXPECT_EQ(train_model_name(*parse_train_model("float16")), "float16");
  EXPECT_FALSE(parse_train_model("int8"));
  EXPECT_FALSE(parse_train_model("bfloat16:"));
  EXPECT_FALSE(parse_train_model("complex64"));
}

// Bug: "float32," and "float32,float32" were taken (the first as one model, the second trained
// twice), while ",float32" was refused as "unknown dtype ''".
TEST(Train, AListOfModelsHasNoEmptyOrRepeatedEntry) {
  ASSERT_TRUE(parse_train_models("float32,bfloat16:float32"));
  for (const char* list : {"float32,", ",float32", "float32,,bfloat16", ""}) {
    const auto refused = parse_train_models(list);
    ASSERT_FALSE(refused) << list;
    EXPECT_NE(refused.error().find("an empty model in the list"), std::string::npos) << refused.error();
  }
  const auto twice = check(small({"float32", "float32"}));
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error(), "float32 is given twice");
}

TEST(Train, Float64ReachesTheLeastSquaresLoss) {
  const auto r = run_train(small({"float64"}));
  ASSERT_TRUE(r) << r.error();
  EXPECT_NEAR(r->rows[0].final_loss / r->best_loss, 1.0, 1e-6);
  EXPECT_EQ(r->rows[0].loss.size(), 301u);
  EXPECT_GT(r->rows[0].loss.front(), 10 * r->rows[0].final_loss);
}

TEST(Train, Bfloat16StallsAndMasterWeightsKeepLearning) {
  const auto r = run_train(small({"bfloat16", "bfloat16:float32", "float32"}));
  ASSERT_TRUE(r) << r.error();
  const TrainRow &bf16 = r->rows[0], &master = r->rows[1], &f32 = r->rows[2];
  ASSERT_TRUE(bf16.stalled_at.has_value());
  EXPECT_EQ(bf16.lost_updates.back(), 8u);
  EXPECT_GT(bf16.final_loss, 10 * master.final_loss);
  EXPECT_FALSE(master.stalled_at.has_value());
  EXPECT_EQ(master.lost_updates.back(), 0u);
  EXPECT_NEAR(f32.final_loss / r->best_loss, 1.0, 1e-3);
}

// Bug: the lost-updates figure said an update is lost "when it is under half an ulp of its weight",
// but the run counts w - update == w: below a power of two the spacing halves, so an update under
// half an ulp of w = 1 (3e-4 in float16, whose half ulp at 1 is 4.9e-4) still moves it to 0.99951.
TEST(Train, TheLostUpdatesFigureSaysWhatTheCountCounts) {
  const auto r = run_train(small({"float16"}));
  ASSERT_TRUE(r) << r.error();
  const auto figures = figure::train_figures(*r);
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_NE(figures[1].subtitle.find("w - update rounds back to w"), std::string::npos) << figures[1].subtitle;
  EXPECT_EQ(figures[1].subtitle.find("half an ulp"), std::string::npos) << figures[1].subtitle;
}

// Bug: in the lost-updates figure a converged float32 and a stalled bfloat16 both reach 1.0,
// and the curves read alike. Each legend entry says how its learning ended.
TEST(Train, TheLostUpdatesLegendSaysHowEachModelEnded) {
  const auto r = run_train(small({"bfloat16", "bfloat16:float32", "float32"}));
  ASSERT_TRUE(r) << r.error();
  const figure::Figure lost = figure::train_figures(*r)[1];
  ASSERT_EQ(lost.series.size(), 3u);
  EXPECT_EQ(lost.series[0].label, "bfloat16 (" + stall_text(r->rows[0], r->best_loss) + ")");
  EXPECT_TRUE(lost.series[0].label.find("stalled at step") != std::string::npos) << lost.series[0].label;
  EXPECT_EQ(lost.series[1].label,  // never stopped: no end to say (its updates are all kept here)
            "bfloat16, float32 master weights (none lost at any step: on the axis)");
  const std::string f32 = stall_text(r->rows[2], r->best_loss);
  EXPECT_EQ(lost.series[2].label, f32 == "never" ? "float32" : "float32 (" + f32 + ")");
}

// Bug: in scenario 28's lost-updates figure float64, which loses no update, lay on the axis
// under bfloat16 with float32 master weights (0 at all but one step): listed in the legend, drawn
// nowhere to be seen. The legend says where it is.
TEST(Train, ALineOfNoLostUpdatesSaysItLiesOnTheAxis) {
  const auto r = run_train(small({"float64", "bfloat16"}));
  ASSERT_TRUE(r) << r.error();
  const figure::Figure lost = figure::train_figures(*r)[1];
  ASSERT_EQ(lost.series.size(), 2u);
  EXPECT_EQ(lost.series[0].label, "float64 (none lost at any step: on the axis)");
  EXPECT_EQ(lost.series[1].label.find("none lost"), std::string::npos) << lost.series[1].label;
}

// Bug: a learning rate too large for the format ran the loss to NaN, and the table read "-nan",
// "-nan" and "stalled at: never". It says where the training diverged.
TEST(Train, ADivergedRunSaysWhereItDiverged) {
  TrainConfig c = small({"float16", "float32"});
  c.learning_rate = 1e30;
  c.steps = 20;
  const auto r = run_train(c);
  ASSERT_TRUE(r) << r.error();
  for (const TrainRow& row : r->rows) {
    const auto at = diverged_at(row);
    ASSERT_TRUE(at.has_value()) << train_model_name(row.model);
    EXPECT_TRUE(std::isfinite(row.loss[*at]));  // (the loss before the step that diverged)
    EXPECT_FALSE(std::isfinite(row.loss[*at + 1]));
    EXPECT_EQ(stall_text(row, r->best_loss), "diverged at step " + std::to_string(*at));
    EXPECT_TRUE(final_loss_text(row) == "nan" || final_loss_text(row) == "inf") << final_loss_text(row);
  }
  EXPECT_EQ(to_json(*r)["rows"][0]["diverged_at"], *diverged_at(r->rows[0]));
  const auto fine = run_train(small({"bfloat16"}));
  ASSERT_TRUE(fine) << fine.error();
  EXPECT_FALSE(diverged_at(fine->rows[0]).has_value());
  EXPECT_EQ(stall_text(fine->rows[0], fine->best_loss),
            "stalled at step " + std::to_string(*fine->rows[0].stalled_at));
}

// Bug: float32 at 1.00000002 times the best loss read "stalled at step 217" (scenario 28): every
// update was lost because the descent had converged, not short of the best.
TEST(Train, ARunThatReachedTheBestConverged) {
  TrainConfig c = small({"float32"});
  c.steps = 1500;
  const auto r = run_train(c);
  ASSERT_TRUE(r) << r.error();
  const TrainRow& row = r->rows[0];
  ASSERT_TRUE(row.stalled_at.has_value());
  EXPECT_LE(row.final_loss, r->best_loss * 1.001);
  EXPECT_EQ(stall_text(row, r->best_loss), "converged by step " + std::to_string(*row.stalled_at));
  // Noise-free data: the best loss is (about) 0, which float32 cannot reach, and bfloat16 stalls.
  c = small({"float32", "bfloat16"});
  c.steps = 1500;
  c.noise = 0;
  const auto exact = run_train(c);
  ASSERT_TRUE(exact) << exact.error();
  ASSERT_TRUE(exact->rows[0].stalled_at.has_value());
  EXPECT_TRUE(stall_text(exact->rows[0], exact->best_loss).starts_with("converged by step"))
      << stall_text(exact->rows[0], exact->best_loss) << ", loss " << exact->rows[0].final_loss << " from "
      << exact->rows[0].loss.front();
  EXPECT_TRUE(stall_text(exact->rows[1], exact->best_loss).starts_with("stalled at step"))
      << stall_text(exact->rows[1], exact->best_loss);
}

TEST(Train, SameSeedSameRunAndCancelStops) {
  const auto a = run_train(small({"float16"})), b = run_train(small({"float16"}));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->rows[0].loss, b->rows[0].loss);
  std::atomic<bool> cancel{true};
  const auto c = run_train(small({"float16"}), {}, &cancel);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error(), "cancelled");
}

TEST(TrainJson, RoundTripsAndRefusesBadKeys) {
  const TrainConfig c = small({"float16", "bfloat16:float32"});
  const auto back = train_config_from_json(to_json(c));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(to_json(*back), to_json(c));
  EXPECT_EQ(train_config_from_json({{"experiment", "train"}, {"epochs", 3}}).error(), "unknown key 'epochs'");
  EXPECT_NE(train_config_from_json({{"experiment", "train"}, {"models", {"int8"}}}).error().find("'models'"),
            std::string::npos);
  EXPECT_NE(train_config_from_json({{"experiment", "train"}, {"steps", 0}}).error().find("'steps'"), std::string::npos);
  EXPECT_FALSE(train_config_from_json({{"experiment", "train"}, {"learning_rate", -1}}));
}

}  // namespace
}  // namespace pl::experiment
