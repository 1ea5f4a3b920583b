#include "core/experiment/scan/precision_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <queue>
#include <string>

#include "core/util/number_text.h"

namespace pl::experiment {
namespace {

// A tensor's candidates a plan may choose, cheapest first, each costing more and erring less
// than the one before (its Pareto front): the pin alone for a pinned tensor; never a candidate
// with an infinite error (an Inf or NaN in the copy), pinned or not.
std::vector<size_t> pareto_front(const PlanItem& it) {
  std::vector<size_t> order;
  for (size_t j = 0; j < it.bits.size(); ++j)
    if (std::isfinite(it.error_energy[j]) && (!it.pinned || j == *it.pinned)) order.push_back(j);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return it.bits[a] != it.bits[b] ? it.bits[a] < it.bits[b] : it.error_energy[a] < it.error_energy[b];
  });
  std::vector<size_t> front;
  for (size_t j : order)
    if (front.empty() || it.error_energy[j] < it.error_energy[front.back()]) front.push_back(j);
  return front;
}

// The front's lower convex hull, cheapest first: each next point removes less error per extra
// bit than the one before.
std::vector<size_t> hull_of(const PlanItem& it) {
  std::vector<size_t> hull;
  for (size_t j : pareto_front(it)) {
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

// Walks the greedy path; `take(extra bits, gain)` says whether to take each upgrade offered (the
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
      if (!take(extra, u.gain)) continue;  // this tensor stays where it is
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

// The exact search (see the header): depth first over the tensors in the order of how much
// error their choice can move, each tensor's Pareto front tried in the order of the Lagrangian
// cost e + lambda c, a branch cut where the error so far plus the Lagrangian bound of the rest,
// sum over the rest of min (e + lambda c) - lambda (budget left), cannot beat the best plan (weak
// duality: a bound for any lambda >= 0; lambda the greedy walk's first upgrade that did not
// fit, the LP's multiplier), or where the rest's cheapest choices no longer fit.
class ExactSearch {
 public:
  ExactSearch(std::span<const PlanItem> items, double limit, double lambda, const std::vector<size_t>& incumbent,
              double incumbent_error, size_t max_nodes)
      : max_nodes_(max_nodes),
        limit_(limit),
        lambda_(lambda),
        best_(incumbent),
        pick_(incumbent),
        best_error_(incumbent_error) {
    fronts_.resize(items.size());
    std::vector<double> spread(items.size(), 0);
    for (size_t i = 0; i < items.size(); ++i) {
      const PlanItem& it = items[i];
      for (size_t j : pareto_front(it)) fronts_[i].push_back({it.bits[j] * it.params, it.error_energy[j], j});
      std::sort(fronts_[i].begin(), fronts_[i].end(), [&](const Option& a, const Option& b) {
        return a.error + lambda_ * a.cost < b.error + lambda_ * b.cost;
      });
      double lo = INFINITY, hi = 0;
      for (const Option& o : fronts_[i]) lo = std::min(lo, o.error), hi = std::max(hi, o.error);
      spread[i] = hi - lo;
    }
    order_.resize(items.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return spread[a] > spread[b]; });
    // Over the tensors from the k-th on: their cheapest cost, and their Lagrangian minimum for
    // each multiplier of a ladder about lambda (deeper in the search the budget left per tensor
    // moves, and with it the multiplier that bounds best).
    rest_cost_.assign(items.size() + 1, 0);
    for (int m = -kLadder; m <= kLadder; ++m) lambdas_.push_back(lambda_ * std::exp2(m / 4.0));
    rest_bound_.assign((items.size() + 1) * lambdas_.size(), 0);
    for (size_t k = items.size(); k-- > 0;) {
      double cheapest = INFINITY;
      for (const Option& o : fronts_[order_[k]]) cheapest = std::min(cheapest, o.cost);
      rest_cost_[k] = rest_cost_[k + 1] + cheapest;
      for (size_t m = 0; m < lambdas_.size(); ++m) {
        double least = INFINITY;
        for (const Option& o : fronts_[order_[k]]) least = std::min(least, o.error + lambdas_[m] * o.cost);
        rest_bound_[k * lambdas_.size() + m] = rest_bound_[(k + 1) * lambdas_.size() + m] + least;
      }
    }
  }
  void run() { search(0, 0, 0); }
  // The search by cost (see the header), after a depth-first search that stopped: false where
  // it gave up after `max_work` partial plans; else the least error of any plan within the
  // budget is least_by_cost(), and best() that plan where it is one (the costs are whole bits
  // here, snapped, so the plan is checked against the budget again by the caller).
  bool run_by_cost(size_t max_work);
  double least_by_cost() const { return least_by_cost_; }
  // No plan within the budget errs less than this (the bound at the search's root).
  double lower_bound() const {
    double bound = 0;
    for (size_t m = 0; m < lambdas_.size(); ++m) bound = std::max(bound, rest_bound_[m] - lambdas_[m] * limit_);
    return bound;
  }
  bool finished() const { return nodes_ <= max_nodes_; }
  const std::vector<size_t>& best() const { return best_; }

 private:
  struct Option {
    double cost, error;
    size_t candidate;
  };
  void search(size_t k, double cost, double error) {
    if (++nodes_ > max_nodes_) return;
    if (k == order_.size()) {
      if (error < best_error_) best_error_ = error, best_ = pick_;
      return;
    }
    // (a relative hair: a plan no better than the best by rounding alone is no better)
    if (error + rest_bound(k, limit_ - cost) >= best_error_ * (1 - 1e-12)) return;
    const size_t i = order_[k];
    for (const Option& o : fronts_[i]) {
      if (cost + o.cost + rest_cost_[k + 1] > limit_) continue;
      pick_[i] = o.candidate;
      search(k + 1, cost + o.cost, error + o.error);
      if (nodes_ > max_nodes_) return;
    }
  }

  // The bound of the tensors from the k-th on, given the budget left to them.
  double rest_bound(size_t k, double left) const {
    double bound = 0;
    for (size_t m = 0; m < lambdas_.size(); ++m)
      bound = std::max(bound, rest_bound_[k * lambdas_.size() + m] - lambdas_[m] * left);
    return bound;
  }

  static constexpr int kLadder = 8;  // multipliers lambda 2^(m/4), m in [-8, 8]

  size_t max_nodes_;
  double limit_, lambda_;
  std::vector<double> lambdas_;
  std::vector<std::vector<Option>> fronts_;
  std::vector<size_t> order_, best_, pick_;
  std::vector<double> rest_cost_, rest_bound_;
  double best_error_;
  size_t nodes_ = 0;
  double least_by_cost_ = 0;
};

// A tensor's cost in a candidate is a whole number of bits (its codes and its scales); the
// product bits x params misses it by rounding, and sums of such products taken in another order
// differ in their last bits, so partial plans of one cost would not be told alike.
double whole_bits(double cost) {
  const double whole = std::nearbyint(cost);
  return std::fabs(cost - whole) <= 1e-9 * std::max(1.0, std::fabs(cost)) ? whole : cost;
}

// Partial plans over the tensors in the search's order, each step's kept by cost, cheapest
// first, each erring less than every cheaper one (a plan costing more and erring no less can be
// beaten by the cheaper one's completions), cut by the budget and the bound as the depth-first
// search cuts its branches. Many near-identical tensors, which the depth-first search tries in
// every order, give few distinct costs here: 32 layers of 7 roles, each of the same 8 candidates,
// at most one plan per cost.
bool ExactSearch::run_by_cost(size_t max_work) {
  struct Partial {
    double cost, error;
    uint32_t parent;  // in the step before
    uint32_t option;  // in fronts_[order_[k]]
  };
  // The costs whole bits, and the budget by as much more as that snapping can have taken off
  // any plan: every plan within the budget is then within it here, so that the least error
  // found is a bound whether or not its plan fits the budget exactly.
  double slack = 0;
  std::vector<std::vector<double>> cost(fronts_.size());
  for (size_t i = 0; i < fronts_.size(); ++i) {
    double most = 0;
    for (const Option& o : fronts_[i]) {
      cost[i].push_back(whole_bits(o.cost));
      most = std::max(most, std::fabs(o.cost - cost[i].back()));
    }
    slack += most;
  }
  const double limit = limit_ + slack;
  max_work = std::min<size_t>(max_work, UINT32_MAX);  // (a partial plan's parent is 32 bits)
  std::vector<std::vector<Partial>> steps(order_.size() + 1);
  steps[0].push_back({0, 0, 0, 0});
  size_t work = 0;
  std::vector<Partial> next;
  for (size_t k = 0; k < order_.size(); ++k) {
    const size_t i = order_[k];
    const std::vector<Partial>& now = steps[k];
    // (Every extension of every partial plan could be kept: that many must fit the cap before
    // they are made, or a step could hold eight times the cap.)
    if (fronts_[i].size() * now.size() > max_work) return false;
    next.clear();
    for (size_t o = 0; o < fronts_[i].size(); ++o)
      for (size_t p = 0; p < now.size(); ++p) {
        const double c = now[p].cost + cost[i][o], e = now[p].error + fronts_[i][o].error;
        if (c + rest_cost_[k + 1] > limit) continue;
        if (e + rest_bound(k + 1, limit - c) >= best_error_ * (1 - 1e-12) && k + 1 < order_.size()) continue;
        next.push_back({c, e, uint32_t(p), uint32_t(o)});
      }
    work += next.size();
    if (work > max_work) return false;
    std::sort(next.begin(), next.end(), [](const Partial& a, const Partial& b) {
      return a.cost != b.cost ? a.cost < b.cost : a.error < b.error;
    });
    std::vector<Partial>& kept = steps[k + 1];
    for (const Partial& q : next)
      if (kept.empty() || q.error < kept.back().error) kept.push_back(q);
  }
  // Cheapest first and each erring less: the last errs least. None left: no plan beats the
  // best one known, whose error is then the least.
  const std::vector<Partial>& last = steps.back();
  if (last.empty() || last.back().error >= best_error_) {
    least_by_cost_ = best_error_;
    return true;
  }
  least_by_cost_ = last.back().error;
  std::vector<size_t> pick(order_.size());
  for (size_t k = order_.size(), at = last.size() - 1; k-- > 0;) {
    const Partial& q = steps[k + 1][at];
    pick[order_[k]] = fronts_[order_[k]][q.option].candidate;
    at = q.parent;
  }
  best_ = pick;
  best_error_ = least_by_cost_;
  return true;
}

}  // namespace

std::string plan_optimality_text(const Plan& plan) {
  if (plan.optimal) return "";
  const double share = plan.least_possible > 0 ? 100 * (plan.point.error / plan.least_possible - 1) : INFINITY;
  std::string within = "an unknown share";
  if (std::isfinite(share) && share > 0) {
    const double step = std::pow(10.0, std::floor(std::log10(share)) - 1);  // two significant digits, up
    char text[32];
    std::snprintf(text, sizeof text, "%g%%", std::ceil(share / step - 1e-9) * step);  // (0.12 is 0.12000000000000011)
    within = text;
  } else if (share <= 0) {
    within = "0%";
  }
  return "within " + within + " of the least error possible; the searches did not prove a plan the least";
}

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
  g.walk([](double, double) { return true; }, [&] { points.push_back(g.point()); });
  return points;
}

Expected<Plan> plan_within(std::span<const PlanItem> items, double budget, size_t max_nodes, size_t max_partials) {
  Greedy g(items);
  if (!g.complete()) return Error{"a tensor has no candidate with a finite error to plan with"};
  // A hair of slack so that a budget read back from a frontier point's printed value still fits.
  const double limit = budget * g.total_params() * (1 + 1e-12);
  if (g.cost() > limit) return Error{budget_too_small(budget, g.average_bits())};
  // Up to the first upgrade that does not fit the walk is the LP relaxation's: its multiplier
  // is that upgrade's gain, and its optimum, a bound on every plan, takes that upgrade in part.
  bool refused = false;
  double lambda = 0, lp_bound = 0;
  g.walk(
      [&](double extra, double gain) {
        const bool fits = g.cost() + extra <= limit;
        if (!fits && !refused)
          refused = true, lambda = gain,
          lp_bound = g.point().error - (std::isfinite(gain) ? gain * (limit - g.cost()) : 0);
        return fits;
      },
      [] {});
  // Every plan's figures summed from its choices alike (the walk's running sums drift in their
  // last bits, and the search compares plans by them).
  auto evaluate = [&](std::vector<size_t> choice, bool optimal) {
    Plan plan{std::move(choice), {}, optimal, 0};
    double cost = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      cost += items[i].bits[plan.choice[i]] * items[i].params;
      plan.point.error += items[i].error_energy[plan.choice[i]];
    }
    plan.point.bits_per_param = g.total_params() > 0 ? cost / g.total_params() : 0;
    plan.least_possible = plan.point.error;
    return plan;
  };
  Plan greedy = evaluate(g.choice(), !refused);  // every upgrade fitted: the least error of all
  if (!refused) return greedy;
  ExactSearch exact(items, limit, std::isfinite(lambda) && lambda > 0 ? lambda : 0, greedy.choice, greedy.point.error,
                    max_nodes);
  exact.run();
  Plan plan = evaluate(exact.best(), exact.finished());
  if (plan.optimal) return plan;
  double least = std::max(exact.lower_bound(), lp_bound);
  // Where the depth-first search stopped, the search by cost, from its best plan.
  if (max_partials > 0 && exact.run_by_cost(max_partials)) {
    least = std::max(least, exact.least_by_cost());
    Plan by_cost = evaluate(exact.best(), true);
    // (Its costs were whole bits: a plan a hair over the budget in the products is not taken.)
    double cost = 0;
    for (size_t i = 0; i < items.size(); ++i) cost += items[i].bits[by_cost.choice[i]] * items[i].params;
    // (Errors summed in another order differ in their last bits: a hair is no difference.)
    if (cost <= limit && by_cost.point.error <= plan.point.error * (1 + 1e-12)) {
      if (by_cost.point.error <= least * (1 + 1e-12)) return by_cost;
      plan = by_cost;
    }
  }
  if (plan.point.error <= least * (1 + 1e-12)) {  // the depth-first search's plan, proven least
    plan.optimal = true;
    plan.least_possible = plan.point.error;
    return plan;
  }
  plan.optimal = false;
  plan.least_possible = std::min(least, plan.point.error);
  return plan;
}

}  // namespace pl::experiment
