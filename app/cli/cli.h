// The command-line front end: one file per subcommand, core only (no GL).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/window_options.h"
#include "core/util/expected.h"

namespace pl::cli {

// Exit statuses: 0 ok, 1 the work failed, 2 the input was bad (unknown name, malformed number).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;

// Each subcommand registers its options and sets the callback that returns an exit status.
using Runner = std::function<int()>;
Runner add_formats(CLI::App& app);
Runner add_cast(CLI::App& app);
Runner add_explore(CLI::App& app);
Runner add_decode(CLI::App& app);
Runner add_bench(CLI::App& app);
Runner add_devices(CLI::App& app);
Runner add_promote(CLI::App& app);
Runner add_dot(CLI::App& app);
Runner add_matmul(CLI::App& app);
Runner add_run(CLI::App& app);
Runner add_tensors(CLI::App& app);
Runner add_scan(CLI::App& app);
Runner add_mlp(CLI::App& app);
Runner add_roundtrip(CLI::App& app);
Runner add_train(CLI::App& app);
Runner add_scenario(CLI::App& app);
Runner add_accumulation_probe(CLI::App& app);

// Undoes the protection of values like "-inf" that CLI11 would read as options.
std::string restore_value(const std::string& arg);

// Parses argv and runs the chosen subcommand, or without one opens the window through `window`
// with the window's options (app/cli/window_options.h). Exit status 128 + N after signal N
// (Ctrl-C: 130, SIGTERM: 143, SIGHUP: 129); a failed write of standard output is an error (1).
using WindowRunner = std::function<int(const ui::GuiOptions&)>;
int run(int argc, char** argv, const WindowRunner& window);

// A whole-number option's value (or a list option's item): digits only, no sign, below 2^64.
// Converted as they come, "-1" and 2^64 + 1 would wrap to 2^64 - 1 and 1.
Status whole_number(std::string_view value);

// A command's output folder, checked before the work starts: the exit status when it cannot take
// the results (said on stderr), else 0. Refused (2): not empty without --force, not a folder, a
// link, the folder the command runs in or one above it, or with --force a folder that is or holds
// one of `inputs`, the paths the command reads. Not made (1): its temporary folder, tried beside
// it and removed, cannot be (a read-only disk, a parent that cannot hold folders): found after
// the work, that threw an hour's scan away.
int output_problem(const std::string& dir, bool force, const std::vector<std::string>& inputs = {});
// A refusal of an experiment's key said in the terms of the options that set it: matmul and mlp
// build an experiment from their options, and the reader names the key ("'input_scaling': ...");
// the user typed --input-scaling. `renamed` lists the keys whose option is not the key with
// dashes for underscores ({"input", "--input-dtype"}); the rest are "--" + the key so spelled.
struct KeyOption {
  std::string_view key, option;
};
std::string in_option_terms(const std::string& message, std::initializer_list<KeyOption> renamed);
// Writes the result folder `dir` through `fill` (core/export/result_folder.h: complete or
// absent). kExitOk, kExitFailed with the reason said, or 128 + signal when interrupted.
int write_output(const std::string& dir, bool force, const std::function<Status(const std::string&)>& fill);

}  // namespace pl::cli
