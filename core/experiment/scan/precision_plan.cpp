#include "core/experiment/scan/precision_plan.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <string>

#include "core/util/number_text.h"

namespace pl::experiment {
namespace {

// A tensor's candidates on the lower convex hull of (cost, error), cheapest first: each next
// point costs more and removes less error per extra bit than the one before. A pinned tensor's
// hull is its pin. Candidates with an infinite error (an Inf or NaN in the copy) never join.
std::vector<size_t> hull_of(const PlanItem& it) {
  if (it.pinned) return {*it.pinned};
  std::vector<size_t> order;
  for (size_t j = 0; j < it.bits.size(); ++j)
    if (std::isfinite(it.error_energy[j])) order.push_back(j);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return it.bits[a] != it.bits[b] ? it.bits[a] < it.bits[b] : it.error_energy[a] < it.error_energy[b];
  });
  std::vector<size_t> hull;
  for (size_t j : order) {
    if (!hull.empty() && it.error_energy[j] >= it.error_energy[hull.back()]) continue;  // costs more, no better
    // Drop the last point while it lies on or above the line from the one before it to j.
    while (hull.size() >= 2) {
      const size_t a = hull[hull.size() - 2], b = hull.back();
      const double slope_ab = (it.error_energy[a] - it.error_energy[b]) / (it.bits[b] - it.bits[a]);
      const double slope_aj = (it.error_energy[a] - it.error_energy[j]) / (it.bits[j] - it.bits[a]);
      if (slope_aj < slope_ab) break;
      hull.pop_back();
    }
    hull.push_back(j);
  }
  return hull;
}

struct Upgrade {
  double gain;  // error removed per bit (per parameter-bit)
  size_t item;
  bool operator<(const Upgrade& o) const { return gain != o.gain ? gain < o.gain : item > o.item; }
};

// Walks the greedy path; `take(item, next)` says whether to take each upgrade offered (the
// frontier takes all; a budget those that fit). Returns the choice per item's hull position.
class Greedy {
 public:
  explicit Greedy(std::span<const PlanItem> items) : items_(items), hulls_(items.size()), at_(items.size(), 0) {
    for (size_t i = 0; i < items.size(); ++i) {
      hulls_[i] = hull_of(items[i]);
      total_params_ += items[i].params;
    }
    for (size_t i = 0; i < items.size(); ++i) {
      if (hulls_[i].empty()) continue;
      cost_ += cost(i, 0);
      error_ += items[i].error_energy[hulls_[i][0]];
      offer(i);
    }
  }
  bool complete() const {
    return std::none_of(hulls_.begin(), hulls_.end(), [](const auto& h) { return h.empty(); });
  }
  double average_bits() const { return total_params_ > 0 ? cost_ / total_params_ : 0; }
  PlanPoint point() const { return {average_bits(), error_}; }

  template <typename Take, typename Each>
  void walk(Take&& take, Each&& each) {
    while (!queue_.empty()) {
      const Upgrade u = queue_.top();
      queue_.pop();
      const size_t i = u.item;
      const double extra = cost(i, at_[i] + 1) - cost(i, at_[i]);
      if (!take(extra)) continue;  // this tensor stays where it is
      cost_ += extra;
      error_ += items_[i].error_energy[hulls_[i][at_[i] + 1]] - items_[i].error_energy[hulls_[i][at_[i]]];
      ++at_[i];
      offer(i);
      each();
    }
  }
  std::vector<size_t> choice() const {
    std::vector<size_t> c(items_.size());
    for (size_t i = 0; i < items_.size(); ++i) c[i] = hulls_[i][at_[i]];
    return c;
  }
  double cost() const { return cost_; }
  double total_params() const { return total_params_; }

 private:
  double cost(size_t i, size_t at) const { return items_[i].bits[hulls_[i][at]] * items_[i].params; }
  void offer(size_t i) {
    if (at_[i] + 1 >= hulls_[i].size()) return;
    const double removed = items_[i].error_energy[hulls_[i][at_[i]]] - items_[i].error_energy[hulls_[i][at_[i] + 1]];
    const double extra = cost(i, at_[i] + 1) - cost(i, at_[i]);
    queue_.push({extra > 0 ? removed / extra : INFINITY, i});
  }

  std::span<const PlanItem> items_;
  std::vector<std::vector<size_t>> hulls_;
  std::vector<size_t> at_;
  std::priority_queue<Upgrade> queue_;
  double cost_ = 0, error_ = 0, total_params_ = 0;
};

}  // namespace

std::string budget_too_small(double budget, double cheapest) {
  // Digits enough to tell the two apart: at four, a budget of 4.25 read as "below the cheapest
  // plan's 4.25" (4.2503).
  int digits = 4;
  while (digits < 17 && significant_text(budget, digits) == significant_text(cheapest, digits)) ++digits;
  return "a budget of " + significant_text(budget, digits) + " bits per parameter is below the cheapest plan's " +
         significant_text(cheapest, digits);
}

std::vector<PlanPoint> plan_frontier(std::span<const PlanItem> items) {
  Greedy g(items);
  if (!g.complete()) return {};
  std::vector<PlanPoint> points{g.point()};
  g.walk([](double) { return true; }, [&] { points.push_back(g.point()); });
  return points;
}

Expected<Plan> plan_within(std::span<const PlanItem> items, double budget) {
  Greedy g(items);
  if (!g.complete()) return Error{"a tensor has no candidate with a finite error to plan with"};
  // A hair of slack so that a budget read back from a frontier point's printed value still fits.
  const double limit = budget * g.total_params() * (1 + 1e-12);
  if (g.cost() > limit) return Error{budget_too_small(budget, g.average_bits())};
  g.walk([&](double extra) { return g.cost() + extra <= limit; }, [] {});
  return Plan{g.choice(), g.point()};
}

}  // namespace pl::experiment
