// A mixed-precision plan: one candidate per tensor so that the total error energy (the sum over
// tensors of ||q(x) - x||^2) is least within a budget of average bits per parameter. This is a
// multiple-choice knapsack. Each tensor keeps the lower convex hull of its (bits, error) points;
// starting every tensor at its cheapest point and buying upgrades in order of error removed per
// bit, across all tensors, walks the frontier: every plan on that path is optimal for the bits
// it spends (it solves the Lagrangian relaxation, whose optimum is a real plan at those
// budgets). Between two frontier points that greedy fill can fall short of the optimum, so the
// plan within a budget is then searched exactly:
// depth first over the tensors, each tensor's candidates on its Pareto front, pruned by the
// Lagrangian bound of the tensors left, from the greedy plan. Where that search stops after
// kPlanSearchNodes nodes (many near-identical tensors, which it tries in every order), the
// plan is searched by cost: the partial plans over the first k tensors, at most one for each
// cost, each erring less than every cheaper one, cut by the same bound. Where that search too
// gives up (kPlanCostWork), the plan is the best found, and says how far from the optimum it
// can be.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/util/expected.h"

namespace pl::experiment {

struct PlanItem {
  double params = 0;
  std::vector<double> bits;          // bits per parameter, per candidate
  std::vector<double> error_energy;  // ||q(x) - x||^2, per candidate
  std::optional<size_t> pinned;      // the user's choice, which the plan keeps
};

struct PlanPoint {
  double bits_per_param = 0;  // averaged over every item's parameters
  double error = 0;           // total error energy
};

struct Plan {
  std::vector<size_t> choice;  // per item, the candidate chosen
  PlanPoint point;
  // A search proved it: no plan within the budget has less error. False where neither finished
  // (the depth-first one at kPlanSearchNodes, the one by cost at kPlanCostWork), the plan the best
  // found (never worse than the greedy fill).
  bool optimal = true;
  // No plan within the budget has less error than this: the plan's own error where it is
  // optimal, else the best of the searches' bounds (how far from the optimum it can be).
  double least_possible = 0;
};

// The exact search's limit: milliseconds, so that the window's budget slider re-plans as it
// moves.
inline constexpr size_t kPlanSearchNodes = 1'000'000;
// Where the depth-first search stops, the search by cost makes at most this many partial plans:
// about a hundred megabytes and a tenth of a second at most.
inline constexpr size_t kPlanCostWork = 2'000'000;

// Every plan on the greedy path, cheapest first (the frontier's corners; the first is every
// tensor at its cheapest candidate, the last at its least error).
std::vector<PlanPoint> plan_frontier(std::span<const PlanItem> items);

// The plan of least error for `budget` bits per parameter (see `Plan::optimal`; `max_nodes`
// bounds the depth-first search and `max_partials` the search by cost, both 0 for the greedy
// fill alone); an error when even the cheapest plan costs more.
Expected<Plan> plan_within(std::span<const PlanItem> items, double budget, size_t max_nodes = kPlanSearchNodes,
                           size_t max_partials = kPlanCostWork);

// "" for an optimal plan; else how far from the optimum it can be: "within 0.12% of the least
// error possible; the searches did not prove a plan the least", the share rounded up.
std::string plan_optimality_text(const Plan& plan);

// "a budget of B bits per parameter is below the cheapest plan's C".
std::string budget_too_small(double budget, double cheapest);

}  // namespace pl::experiment
