// What `run` (and `mlp`) print for the experiment kinds other than matmul and linear: one
// summary per kind, from the run experiment_file.h made.
#pragma once

#include "core/experiment/spec/experiment_file.h"

namespace pl::cli {

void print_mlp_report(const experiment::MlpResult& r);
// The dot sweep's table (dot and `run` of a dot/sum file): each length and model against its
// bounds, and why a deterministic bound is "none".
void print_dot_table(const std::vector<experiment::DotSweepRow>& rows, bool sum);
void print_throughput_report(const experiment::ThroughputResult& r);
// The training experiment: each model's final loss against the data's best, where it stalled.
void print_train_table(const experiment::TrainResult& r);
// Where a cast's elements were rounded, and why not on the device asked for (roundtrip, run).
void print_cast_place(const experiment::RoundtripResult& r);
// A checkpoint scan (scan, run): each tensor's SQNR per candidate, the candidates' bits, the
// frontier's ends and the plan within the budget.
void print_scan_report(const experiment::ScanResult& r, const std::vector<experiment::PlanPoint>& frontier,
                       const std::optional<experiment::PlanReport>& plan);
// Dispatches on the run's kind: dot and sum, cast, mlp, throughput, train, scan.
void print_run_summary(const experiment::ExperimentRun& run);

}  // namespace pl::cli
