// A mixed-precision plan: one candidate per tensor so that the total error energy (the sum over
// tensors of ||q(x) - x||^2) is least within a budget of average bits per parameter. This is a
// multiple-choice knapsack. Each tensor keeps the lower convex hull of its (bits, error) points;
// starting every tensor at its cheapest point and buying upgrades in order of error removed per
// bit, across all tensors, walks the frontier: every plan on that path is optimal for the bits
// it spends (it solves the Lagrangian relaxation, whose optimum is a real plan at those
// budgets). Between two frontier points that greedy fill can fall short of the optimum, so the
// plan within a budget is then searched exactly:
// depth first over the tensors, each tensor's candidates on its Pareto front, pruned by the
// Lagrangian bound of the tensors left, from the greedy plan. The search stops after
// kPlanSearchNodes nodes with the best plan found, and says so.
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
  // The search ended: no plan within the budget has less error. False where it stopped at
  // kPlanSearchNodes, the plan the best it found (never worse than the greedy fill).
  bool optimal = true;
  // No plan within the budget has less error than this: the plan's own error where it is
  // optimal, else the search's Lagrangian bound (how far from the optimum it can be).
  double least_possible = 0;
};

// The exact search's limit: milliseconds, so that the window's budget slider re-plans as it
// moves.
inline constexpr size_t kPlanSearchNodes = 1'000'000;

// Every plan on the greedy path, cheapest first (the frontier's corners; the first is every
// tensor at its cheapest candidate, the last at its least error).
std::vector<PlanPoint> plan_frontier(std::span<const PlanItem> items);

// The plan of least error for `budget` bits per parameter (see `Plan::optimal`; `max_nodes`
// bounds the search, 0 for the greedy fill alone); an error when even the cheapest plan costs
// more.
Expected<Plan> plan_within(std::span<const PlanItem> items, double budget, size_t max_nodes = kPlanSearchNodes);

// "" for an optimal plan; else how far from the optimum it can be: "within 0.12% of the least
// error possible; the search stopped after 1000000 steps", the share rounded up.
std::string plan_optimality_text(const Plan& plan);

// "a budget of B bits per parameter is below the cheapest plan's C".
std::string budget_too_small(double budget, double cheapest);

}  // namespace pl::experiment
