// A mixed-precision plan: one candidate per tensor so that the total error energy (the sum over
// tensors of ||q(x) - x||^2) is least within a budget of average bits per parameter. This is a
// multiple-choice knapsack. Each tensor keeps the lower convex hull of its (bits, error) points;
// the plan starts every tensor at its cheapest point and buys upgrades in order of error removed
// per bit, across all tensors. Every plan on that path (the frontier) is optimal for the bits it
// spends: it solves the Lagrangian relaxation, whose optimum is a real plan at those budgets.
// Between two frontier points the greedy plan fills the rest of the budget with the best
// upgrades that still fit, which may fall short of the exact optimum; the exhaustive search in
// the tests bounds how far.
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
};

// Every plan on the greedy path, cheapest first (the frontier's corners; the first is every
// tensor at its cheapest candidate, the last at its least error).
std::vector<PlanPoint> plan_frontier(std::span<const PlanItem> items);

// The plan for `budget` bits per parameter; an error when even the cheapest plan costs more.
Expected<Plan> plan_within(std::span<const PlanItem> items, double budget);

// "a budget of B bits per parameter is below the cheapest plan's C".
std::string budget_too_small(double budget, double cheapest);

}  // namespace pl::experiment
