// The mixed-precision plan against an exhaustive search over every combination of candidates,
// on small random cases: each frontier point is the least error any plan reaches for its bits,
// and a plan within a budget is feasible and reaches the least error of any plan.
#include "core/experiment/scan/precision_plan.h"

#include "core/experiment/scan/candidate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace pl::experiment {
namespace {

std::vector<PlanItem> random_items(std::mt19937_64& rng, size_t tensors, size_t candidates) {
  const double kBits[] = {4.25, 4.5, 6.25, 8.0, 8.5, 16.0};
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<PlanItem> items(tensors);
  for (PlanItem& it : items) {
    it.params = std::floor(1 + 999 * unit(rng));
    for (size_t c = 0; c < candidates; ++c) {
      const double bits = kBits[rng() % 6];
      it.bits.push_back(bits);
      // Roughly halving per extra bit, with noise, so some candidates are dominated.
      it.error_energy.push_back(it.params * std::exp2(-bits) * (0.2 + 2 * unit(rng)));
    }
  }
  return items;
}

// The least total error of any plan costing at most `budget` bits per parameter.
double exhaustive_best(const std::vector<PlanItem>& items, double budget) {
  double params = 0;
  for (const PlanItem& it : items) params += it.params;
  std::vector<size_t> pick(items.size(), 0);
  double best = INFINITY;
  for (;;) {
    double cost = 0, error = 0;
    bool allowed = true;
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].pinned && pick[i] != *items[i].pinned) allowed = false;
      cost += items[i].bits[pick[i]] * items[i].params;
      error += items[i].error_energy[pick[i]];
    }
    if (allowed && cost <= budget * params * (1 + 1e-12)) best = std::min(best, error);
    size_t i = 0;
    while (i < items.size() && ++pick[i] == items[i].bits.size()) pick[i++] = 0;
    if (i == items.size()) return best;
  }
}

TEST(PrecisionPlan, EveryFrontierPointIsOptimalForItsBits) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const auto items = random_items(rng, 2 + trial % 5, 2 + trial % 4);
    const auto frontier = plan_frontier(items);
    ASSERT_FALSE(frontier.empty());
    for (size_t p = 0; p < frontier.size(); ++p) {
      const double best = exhaustive_best(items, frontier[p].bits_per_param);
      EXPECT_NEAR(frontier[p].error, best, 1e-9 * best) << "trial " << trial << " point " << p;
      if (p > 0) {
        EXPECT_GT(frontier[p].bits_per_param, frontier[p - 1].bits_per_param);
        EXPECT_LT(frontier[p].error, frontier[p - 1].error);
      }
    }
  }
}

// Random small cases (3 to 6 tensors of 3 to 5 candidates; tensor `pinned` pinned in every
// `pin_every`-th), each planned at ten random budgets between its cheapest and its dearest plan
// with `max_nodes` steps of the depth-first search; `check` sees each plan.
void for_random_budgets(uint64_t seed, size_t pinned, int pin_every, size_t max_nodes,
                        const std::function<void(const std::vector<PlanItem>&, double, const Plan&)>& check) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 60; ++trial) {
    auto items = random_items(rng, 3 + trial % 4, 3 + trial % 3);
    if (trial % pin_every == 0) items[pinned].pinned = trial % 3;
    const auto frontier = plan_frontier(items);
    for (int b = 0; b < 10; ++b) {
      const double budget = frontier.front().bits_per_param +
                            unit(rng) * (frontier.back().bits_per_param - frontier.front().bits_per_param);
      SCOPED_TRACE("trial " + std::to_string(trial) + " budget " + std::to_string(budget));
      auto plan = plan_within(items, budget, max_nodes);
      ASSERT_TRUE(plan) << plan.error();
      EXPECT_TRUE(plan->optimal);
      if (items[pinned].pinned) {
        EXPECT_EQ(plan->choice[pinned], *items[pinned].pinned);
      }
      check(items, budget, *plan);
    }
  }
}

// Bug: between two frontier points the plan was the greedy fill, which missed the optimum in some
// of these cases; the search makes it the least error of any plan.
TEST(PrecisionPlan, APlanFitsItsBudgetWithTheLeastErrorOfAnyPlan) {
  auto least = [](const std::vector<PlanItem>& items, double budget, const Plan& plan) {
    double params = 0, cost = 0, error = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      params += items[i].params;
      cost += items[i].bits[plan.choice[i]] * items[i].params;
      error += items[i].error_energy[plan.choice[i]];
    }
    EXPECT_LE(cost / params, budget * (1 + 1e-12));
    EXPECT_NEAR(plan.point.error, error, 1e-9 * error);
    EXPECT_NEAR(plan.point.bits_per_param, cost / params, 1e-12);
    const double best = exhaustive_best(items, budget);
    EXPECT_NEAR(error, best, 1e-9 * best);
  };
  for_random_budgets(12, 0, 7, kPlanSearchNodes, least);
}

// A checkpoint's worth of tensors of the random kind above (a 7B model has about 220 weights)
// is searched to the end within the search's limit.
TEST(PrecisionPlan, AModelsWorthOfRandomTensorsIsSearchedToTheEnd) {
  std::mt19937_64 rng(13);
  const auto items = random_items(rng, 224, 8);
  const auto frontier = plan_frontier(items);
  for (double t : {0.1, 0.35, 0.5, 0.8}) {
    const double budget =
        frontier.front().bits_per_param + t * (frontier.back().bits_per_param - frontier.front().bits_per_param);
    auto plan = plan_within(items, budget);
    ASSERT_TRUE(plan) << plan.error();
    EXPECT_TRUE(plan->optimal) << "budget " << budget;
    EXPECT_LE(plan->point.bits_per_param, budget * (1 + 1e-12));
  }
}

// Bug: many near-identical tensors (32 layers of the same 7 roles) stopped the depth-first
// search at its limit at 18 of these 23 budgets (it tries equal plans in every order), the plan
// then up to 2.7% over the bound. The search by cost keeps one partial plan per cost and ends.
TEST(PrecisionPlan, RepeatedLayersAreSearchedToTheEnd) {
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double kBits[] = {4.25, 4.5, 6.25, 8.0, 8.0625, 8.5, 16.0, 4.5};
  std::vector<PlanItem> items;
  for (int layer = 0; layer < 32; ++layer)
    for (int role = 0; role < 7; ++role) {
      PlanItem it{4096, {}, {}, std::nullopt};
      for (int c = 0; c < 8; ++c) {
        it.bits.push_back(kBits[c]);
        it.error_energy.push_back(4096 * std::exp2(-2 * kBits[c]) * (1 + role) * (0.95 + 0.1 * unit(rng)));
      }
      items.push_back(it);
    }
  const auto frontier = plan_frontier(items);
  size_t stopped = 0;  // budgets where the depth-first search alone stops
  for (int b = 1; b < 24; ++b) {
    const double budget = frontier.front().bits_per_param +
                          b / 24.0 * (frontier.back().bits_per_param - frontier.front().bits_per_param);
    auto plan = plan_within(items, budget);
    auto greedy = plan_within(items, budget, 0, 0);
    ASSERT_TRUE(plan && greedy);
    EXPECT_TRUE(plan->optimal) << "budget " << budget;
    EXPECT_LE(plan->point.bits_per_param, budget * (1 + 1e-12));
    EXPECT_LE(plan->point.error, greedy->point.error);
    // (The depth-first search alone, stopped, is no better.)
    auto first = plan_within(items, budget, kPlanSearchNodes, 0);
    ASSERT_TRUE(first);
    EXPECT_LE(plan->point.error, first->point.error);
    stopped += !first->optimal;
  }
  // docs/checkpoint-scan.md quotes the count: the search by cost is what ends these budgets.
  EXPECT_EQ(stopped, 18u);
}

// A model's shapes (Llama-style, 32 layers of 7 roles in 5 shapes) and the default candidates'
// bits with their scales: each tensor's cost a whole number of bits, which the products
// bits x params miss by rounding. Searched to the end at every budget.
TEST(PrecisionPlan, AModelsShapesWithTheDefaultCandidatesAreSearchedToTheEnd) {
  auto candidates = parse_candidates(kDefaultCandidates);
  ASSERT_TRUE(candidates);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const size_t shapes[7][2] = {{4096, 4096},  {1024, 4096},  {1024, 4096}, {4096, 4096},
                               {14336, 4096}, {14336, 4096}, {4096, 14336}};
  std::vector<PlanItem> items;
  for (int layer = 0; layer < 32; ++layer)
    for (int role = 0; role < 7; ++role) {
      const auto [rows, cols] = shapes[role];
      PlanItem it{double(rows) * double(cols), {}, {}, std::nullopt};
      for (const Candidate& c : *candidates) {
        const double bits = bits_per_param(c, rows, cols);
        it.bits.push_back(bits);
        it.error_energy.push_back(it.params * std::exp2(-2 * bits) * (1 + role % 3) * (0.9 + 0.2 * unit(rng)));
      }
      items.push_back(it);
    }
  const auto frontier = plan_frontier(items);
  size_t stopped = 0;  // budgets where the depth-first search alone stops
  for (int b = 1; b < 12; ++b) {
    const double budget =
        frontier.front().bits_per_param + b / 12.0 * (frontier.back().bits_per_param - frontier.front().bits_per_param);
    auto plan = plan_within(items, budget);
    ASSERT_TRUE(plan);
    EXPECT_TRUE(plan->optimal) << "budget " << budget << ": " << plan_optimality_text(*plan);
    EXPECT_LE(plan->point.bits_per_param, budget * (1 + 1e-12));
    auto first = plan_within(items, budget, kPlanSearchNodes, 0);
    ASSERT_TRUE(first);
    stopped += !first->optimal;
  }
  EXPECT_EQ(stopped, 10u);  // (docs/checkpoint-scan.md quotes the count)
}

// A search stopped early keeps what it says true: the plan fits, is no worse than the greedy
// fill, and the optimum lies between its bound and its error.
TEST(PrecisionPlan, AStoppedSearchsBoundAndPlanEncloseTheOptimum) {
  std::mt19937_64 rng(15);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  size_t stopped = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const auto items = random_items(rng, 6, 4);
    const auto frontier = plan_frontier(items);
    const double budget = frontier.front().bits_per_param +
                          unit(rng) * (frontier.back().bits_per_param - frontier.front().bits_per_param);
    auto plan = plan_within(items, budget, 3, 3);
    auto greedy = plan_within(items, budget, 0, 0);
    ASSERT_TRUE(plan && greedy);
    const double best = exhaustive_best(items, budget);
    EXPECT_LE(plan->point.bits_per_param, budget * (1 + 1e-12));
    EXPECT_LE(plan->point.error, greedy->point.error);
    EXPECT_LE(plan->least_possible, best * (1 + 1e-12));
    EXPECT_GE(plan->point.error, best * (1 - 1e-12));
    if (plan->optimal) {
      EXPECT_NEAR(plan->point.error, best, 1e-9 * best);
    }
    stopped += !plan->optimal;
  }
  EXPECT_GT(stopped, 0u);  // (3 steps stop most searches: the path is exercised)
}

// Where the depth-first search stops (here at once), the search by cost finds the least error
// of any plan, and says it is the least.
TEST(PrecisionPlan, TheSearchByCostFindsTheOptimumWhereTheDepthFirstStops) {
  for_random_budgets(16, 1, 5, 1, [](const std::vector<PlanItem>& items, double budget, const Plan& plan) {
    EXPECT_LE(plan.point.bits_per_param, budget * (1 + 1e-12));
    const double best = exhaustive_best(items, budget);
    EXPECT_NEAR(plan.point.error, best, 1e-9 * best);
    EXPECT_EQ(plan.least_possible, plan.point.error);
  });
}

// A plan the search did not prove optimal says how far from the optimum it can be, rounded up.
TEST(PrecisionPlan, APlanNotProvenOptimalSaysHowFarItCanBe) {
  Plan plan;
  plan.point.error = 1.0012;
  plan.least_possible = 1.0012;
  EXPECT_EQ(plan_optimality_text(plan), "");
  plan.optimal = false;
  plan.least_possible = 1;
  EXPECT_EQ(plan_optimality_text(plan),
            "within 0.12% of the least error possible; the searches did not prove a plan the least");
  plan.point.error = 1.00113;  // 0.113% rounds up
  EXPECT_EQ(plan_optimality_text(plan).substr(0, 12), "within 0.12%");
}

TEST(PrecisionPlan, KeepsPinnedTensorsAndRefusesABudgetTooSmall) {
  std::vector<PlanItem> items(2);
  items[0] = {100, {4.25, 8.5, 16}, {10, 1, 0.01}, std::nullopt};
  items[1] = {100, {4.25, 8.5, 16}, {20, 2, 0.02}, size_t{2}};  // pinned to 16 bits
  auto plan = plan_within(items, 12);
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->choice[1], 2u);
  EXPECT_EQ(plan->choice[0], 0u);  // (16 + 8.5) / 2 > 12: only 4.25 fits beside the pin
  auto tight = plan_within(items, 9);
  ASSERT_FALSE(tight);
  EXPECT_NE(tight.error().find("below the cheapest plan's 10.12"), std::string::npos) << tight.error();
}

TEST(PrecisionPlan, NeverChoosesACandidateWithAnInfiniteError) {
  std::vector<PlanItem> items(1);
  items[0] = {10, {8, 8.25, 16}, {INFINITY, 3, 1}, std::nullopt};
  auto plan = plan_within(items, 8.3);
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->choice[0], 1u);
  items[0].error_energy = {INFINITY, NAN, INFINITY};
  EXPECT_FALSE(plan_within(items, 20));
}

// The two numbers of a refusal never read the same: at four digits a budget of 4.25 was "below
// the cheapest plan's 4.25" (4.2503).
TEST(PrecisionPlan, ABudgetTooSmallIsToldApartFromTheCheapestPlan) {
  EXPECT_EQ(budget_too_small(4.25, 4.2503), "a budget of 4.25 bits per parameter is below the cheapest plan's 4.2503");
  EXPECT_EQ(budget_too_small(3, 4.25), "a budget of 3 bits per parameter is below the cheapest plan's 4.25");
  EXPECT_EQ(budget_too_small(8.0419998, 8.042),
            "a budget of 8.0419998 bits per parameter is below the cheapest plan's 8.042");
}

}  // namespace
}  // namespace pl::experiment
