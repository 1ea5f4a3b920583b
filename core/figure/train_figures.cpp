#include "core/figure/train_figures.h"

#include <algorithm>

#include <limits>
#include <string>

namespace pl::figure {
namespace {

std::string subtitle(const experiment::TrainConfig& c) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "linear regression, %zu features, %zu samples, learning rate %g, noise sd %g, seed %llu", c.features,
                c.samples, c.learning_rate, c.noise, static_cast<unsigned long long>(c.seed));
  return buf;
}

// A model in the legend: "bfloat16", or "bfloat16, float32 master weights" for the
// "bfloat16:float32" the command line spells (the key read as a cryptic pair).
std::string legend_name(const experiment::TrainModel& m) {
  if (m.master == m.compute) return experiment::train_model_name(m);
  return std::string(name(m.compute)) + ", " + std::string(name(m.master)) + " master weights";
}

Figure loss_figure(const experiment::TrainResult& r) {
  Figure f;
  f.name = "loss-vs-step";
  f.title = "Training loss per step, each format's own arithmetic";
  f.subtitle = subtitle(r.config);
  f.x.label = "step";
  f.x.log = false;
  f.y.label = "mean squared residual (each step's weights on the float64 data)";
  f.y.log = true;
  for (size_t k = 0; k < r.rows.size(); ++k) {
    const auto& row = r.rows[k];
    Series s{legend_name(row.model), SeriesKind::Line, {}, {}, palette(k), false};
    for (size_t i = 0; i < row.loss.size(); ++i) {
      s.x.push_back(static_cast<double>(i));
      // A loss of exactly 0 has no place on a log axis (a gap).
      s.y.push_back(row.loss[i] > 0 ? row.loss[i] : std::numeric_limits<double>::quiet_NaN());
    }
    f.series.push_back(std::move(s));
  }
  f.annotations.push_back(
      {AnnotationKind::HorizontalLine, r.best_loss, "least-squares loss (float64)", palette(7), true});
  separate_coincident_lines(f);  // float32's loss follows float64's within a line's width
  return f;
}

Figure lost_figure(const experiment::TrainResult& r) {
  Figure f;
  f.name = "lost-updates";
  f.title = "Weight updates lost to rounding, per step";
  f.subtitle = subtitle(r.config) + "; an update is lost when w - update rounds back to w";
  f.x.label = "step";
  f.x.log = false;
  f.y.label = "share of the weights left unchanged by a nonzero update";
  f.y.log = false;
  f.y.min = 0;
  f.y.max = 1.05;
  for (size_t k = 0; k < r.rows.size(); ++k) {
    const auto& row = r.rows[k];
    // How its learning ended, beside its name: every update is lost both once a model has
    // converged and once it has stalled far from the best loss, and the curves alone read the
    // same (scenario 28's float32 at 1.0 beside bfloat16's).
    std::string label = legend_name(row.model);
    if (row.stalled_at || experiment::diverged_at(row)) label += " (" + experiment::stall_text(row, r.best_loss) + ")";
    // A line at 0 lies on the axis and under any other that is 0 nearly everywhere (scenario
    // 28's float64 under bfloat16 with float32 master weights): the legend says where it is.
    if (std::all_of(row.lost_updates.begin(), row.lost_updates.end(), [](size_t n) { return n == 0; }))
      label += " (none lost at any step: on the axis)";
    Series s{label, SeriesKind::Line, {}, {}, palette(k), false};
    for (size_t i = 0; i < row.lost_updates.size(); ++i) {
      s.x.push_back(static_cast<double>(i));
      s.y.push_back(static_cast<double>(row.lost_updates[i]) / static_cast<double>(r.config.features));
    }
    f.series.push_back(std::move(s));
  }
  return f;
}

}  // namespace

std::vector<Figure> train_figures(const experiment::TrainResult& r) { return {loss_figure(r), lost_figure(r)}; }

}  // namespace pl::figure
