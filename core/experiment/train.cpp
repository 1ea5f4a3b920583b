#include "core/experiment/train.h"

#include <cmath>
#include <cstdio>

#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"
#include "core/quantise/data_source.h"
#include "core/util/comma_items.h"

namespace pl::experiment {
namespace {

// Tensor ids of the data (data_source.h draws each from its own stream).
constexpr uint64_t kInputs = 1, kTruth = 2, kNoise = 3;

struct Rounder {
  const FloatFormat* f;
  double operator()(double x) const { return round_to(*f, x, CastOptions{}); }
};

struct Data {
  std::vector<double> x, y;  // samples x features, row-major; samples
};

Data draw(const TrainConfig& c) {
  Data d;
  d.x = generate(DataSource{}, c.samples, c.features, c.seed, kInputs);
  const std::vector<double> truth = generate(DataSource{}, 1, c.features, c.seed, kTruth);
  DataSource noise;
  noise.scale = c.noise;
  const std::vector<double> e = generate(noise, c.samples, 1, c.seed, kNoise);
  d.y.resize(c.samples);
  for (size_t i = 0; i < c.samples; ++i) {
    double s = 0;
    for (size_t j = 0; j < c.features; ++j) s += d.x[i * c.features + j] * truth[j];
    d.y[i] = s + e[i];
  }
  return d;
}

// Mean squared residual of weights w on the float64 data.
double loss_of(const Data& d, const std::vector<double>& w) {
  const size_t n = d.y.size(), m = w.size();
  double total = 0;
  for (size_t i = 0; i < n; ++i) {
    long double r = -static_cast<long double>(d.y[i]);
    for (size_t j = 0; j < m; ++j) r += static_cast<long double>(d.x[i * m + j]) * w[j];
    total += static_cast<double>(r * r);
  }
  return total / static_cast<double>(n);
}

// The least-squares weights of the float64 data: the normal equations, by Gaussian elimination
// with partial pivoting in long double (16 unknowns, well conditioned for N(0,1) rows).
std::vector<double> least_squares(const Data& d, size_t m) {
  const size_t n = d.y.size();
  std::vector<long double> a(m * (m + 1), 0.0L);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) {
      for (size_t k = 0; k < m; ++k) a[j * (m + 1) + k] += static_cast<long double>(d.x[i * m + j]) * d.x[i * m + k];
      a[j * (m + 1) + m] += static_cast<long double>(d.x[i * m + j]) * d.y[i];
    }
  for (size_t col = 0; col < m; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < m; ++r)
      if (std::fabs(a[r * (m + 1) + col]) > std::fabs(a[pivot * (m + 1) + col])) pivot = r;
    for (size_t k = 0; k <= m; ++k) std::swap(a[col * (m + 1) + k], a[pivot * (m + 1) + k]);
    for (size_t r = 0; r < m; ++r) {
      if (r == col || a[col * (m + 1) + col] == 0) continue;
      const long double f = a[r * (m + 1) + col] / a[col * (m + 1) + col];
      for (size_t k = col; k <= m; ++k) a[r * (m + 1) + k] -= f * a[col * (m + 1) + k];
    }
  }
  std::vector<double> w(m);
  for (size_t j = 0; j < m; ++j) w[j] = static_cast<double>(a[j * (m + 1) + m] / a[j * (m + 1) + j]);
  return w;
}

TrainRow train_one(const TrainConfig& c, const Data& data, const TrainModel& model,
                   const std::function<bool(size_t)>& step_done) {
  const Rounder rc{&info(model.compute).format}, rm{&info(model.master).format};
  const size_t n = c.samples, m = c.features;
  // The data as the model holds it: stored in the compute format.
  std::vector<double> x(data.x.size()), y(n);
  for (size_t k = 0; k < x.size(); ++k) x[k] = rc(data.x[k]);
  for (size_t i = 0; i < n; ++i) y[i] = rc(data.y[i]);
  const double lr = rc(c.learning_rate), scale = rc(2.0 / static_cast<double>(n));
  std::vector<double> w(m, 0.0), wc(m), r(n), g(m);
  TrainRow row;
  row.model = model;
  for (size_t step = 0; step < c.steps; ++step) {
    row.loss.push_back(loss_of(data, w));
    for (size_t j = 0; j < m; ++j) wc[j] = rc(w[j]);
    // Forward: r = X w - y, each product and each addition rounded, in order.
    for (size_t i = 0; i < n; ++i) {
      double acc = 0;
      for (size_t j = 0; j < m; ++j) acc = rc(acc + rc(x[i * m + j] * wc[j]));
      r[i] = rc(acc - y[i]);
    }
    // Backward: g = (2/n) X^T r, likewise.
    for (size_t j = 0; j < m; ++j) {
      double acc = 0;
      for (size_t i = 0; i < n; ++i) acc = rc(acc + rc(r[i] * x[i * m + j]));
      g[j] = rc(acc * scale);
    }
    // The update, applied to the stored (master) weights.
    size_t moved = 0, lost = 0;
    for (size_t j = 0; j < m; ++j) {
      const double u = rc(lr * g[j]);
      if (u == 0) continue;
      ++moved;
      const double next = rm(w[j] - u);
      if (next == w[j]) ++lost;
      w[j] = next;
    }
    row.lost_updates.push_back(lost);
    if (!row.stalled_at && moved > 0 && lost == moved) row.stalled_at = step;
    if (!step_done(step)) return row;
  }
  row.loss.push_back(loss_of(data, w));
  row.final_loss = row.loss.back();
  return row;
}

}  // namespace

Expected<TrainModel> parse_train_model(std::string_view text) {
  const size_t colon = text.find(':');
  TrainModel m;
  for (int side = 0; side < (colon == std::string_view::npos ? 1 : 2); ++side) {
    const std::string_view part = side == 0 ? text.substr(0, colon) : text.substr(colon + 1);
    auto t = parse_dtype(part);
    if (!t) return Error{t.error()};
    if (!is_float(*t) || info(*t).format.precision() > 53) {
      std::string why = "'";
      why.append(part.substr(0, 40)).append("' is not a float dtype of float64 precision or less");
      return Error{why};
    }
    // A scale format (float8_e8m0fnu: powers of two, no sign, no zero) holds no weights or
    // gradients: its "training" would run to a loss of nan.
    if (!info(*t).format.is_signed() || !info(*t).format.has_zero()) {
      std::string why = "'";
      why.append(part.substr(0, 40)).append("' has no sign or no zero: it cannot hold weights and gradients");
      return Error{why};
    }
    (side == 0 ? m.compute : m.master) = *t;
    if (side == 0) m.master = *t;
  }
  return m;
}

Expected<std::vector<TrainModel>> parse_train_models(std::string_view list) {
  const auto items = comma_items(list, "model");
  if (!items) return Error{items.error()};
  std::vector<TrainModel> models;
  for (const std::string& item : *items) {
    auto m = parse_train_model(item);
    if (!m) return Error{m.error()};
    models.push_back(*m);
  }
  return models;
}

std::optional<size_t> diverged_at(const TrainRow& row) {
  // loss[i] is the loss before step i: the step that made it not finite is i - 1, counted as
  // stalled_at counts steps.
  for (size_t i = 0; i < row.loss.size(); ++i)
    if (!std::isfinite(row.loss[i])) return i == 0 ? 0 : i - 1;
  if (!std::isfinite(row.final_loss)) return row.loss.empty() ? 0 : row.loss.size() - 1;
  return std::nullopt;
}

std::string final_loss_text(const TrainRow& row) {
  if (std::isnan(row.final_loss)) return "nan";  // (printf would write "-nan")
  if (std::isinf(row.final_loss)) return "inf";
  char s[32];
  std::snprintf(s, sizeof s, "%.4g", row.final_loss);
  return s;
}

std::string stall_text(const TrainRow& row, double best_loss) {
  if (const auto d = diverged_at(row)) return "diverged at step " + std::to_string(*d);
  // (Noise-free data's best loss is 0, which no rounded run reaches: there, within 1e-12 of the
  // loss it started from, below float16's and bfloat16's stalls and above float32's rounding.)
  const double start = row.loss.empty() ? 0 : row.loss.front();
  if (row.stalled_at && (row.final_loss <= best_loss * 1.001 || row.final_loss <= 1e-12 * start))
    return "converged by step " + std::to_string(*row.stalled_at);
  if (row.stalled_at) return "stalled at step " + std::to_string(*row.stalled_at);
  return "never";
}

std::string train_model_name(const TrainModel& m) {
  std::string s(name(m.compute));
  if (m.master != m.compute) s.append(":").append(name(m.master));
  return s;
}

Status check(const TrainConfig& c) {
  if (c.models.empty()) return Error{"give at least one model"};
  for (size_t i = 0; i < c.models.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (train_model_name(c.models[i]) == train_model_name(c.models[k]))
        return Error{train_model_name(c.models[i]) + " is given twice"};
  if (c.features < 1 || c.features > 4096) return Error{"features must be from 1 to 4096"};
  if (c.samples < 1 || c.samples > (1u << 20)) return Error{"samples must be from 1 to 2^20"};
  if (c.steps < 1 || c.steps > 100000) return Error{"steps must be from 1 to 100000"};
  if (!(c.learning_rate > 0) || !std::isfinite(c.learning_rate))
    return Error{"the learning rate must be a positive number"};
  if (!(c.noise >= 0) || !std::isfinite(c.noise)) return Error{"noise must be zero or a positive number"};
  // Each model costs about 4 x steps x samples x features roundings.
  if (static_cast<double>(c.steps) * static_cast<double>(c.samples) * static_cast<double>(c.features) *
          static_cast<double>(c.models.size()) >
      2e9)
    return Error{"steps x samples x features x models is past 2e9 (hours of work): make the problem smaller"};
  return {};
}

Expected<TrainResult> run_train(const TrainConfig& c, const std::function<void(double)>& progress,
                                const std::atomic<bool>* cancel) {
  if (auto st = check(c); !st) return Error{st.error()};
  const Data data = draw(c);
  TrainResult result;
  result.config = c;
  result.best_loss = loss_of(data, least_squares(data, c.features));
  const double total = static_cast<double>(c.models.size() * c.steps);
  for (size_t k = 0; k < c.models.size(); ++k) {
    bool stopped = false;
    TrainRow row = train_one(c, data, c.models[k], [&](size_t step) {
      if (cancel && cancel->load()) {
        stopped = true;
        return false;
      }
      if (progress && step % 16 == 0) progress((static_cast<double>(k * c.steps + step) + 1) / total);
      return true;
    });
    if (stopped) return Error{"cancelled"};
    result.rows.push_back(std::move(row));
  }
  if (progress) progress(1.0);
  return result;
}

}  // namespace pl::experiment
