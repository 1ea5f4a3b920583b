// precision-lab matmul [--a A.npy --b B.npy [--bias b.npy]] [--linear] [--m M --n N --k K]
//   [--input-dtype T] [--weight-dtype T] [--bias-dtype T] [--accumulate SPEC] [--output-dtype T]
//   [--rounding MODE] [--overflow POLICY] [--input-scaling R] [--weight-scaling R]
//   [--data DIST] [--weight-data DIST] [--seed S] [--raw] [--high-precision]
//   [--out C.npy] [--save DIR] [--json] [--framework torch|numpy|jax|tf|...]
//   [--backend auto|cpu|cuda] [--fast-accum] [--threads N]
// One product and its error statistics against the float64 reference, split into input
// rounding, arithmetic and output rounding. Operands from .npy / .safetensors files, or drawn.
#include <filesystem>
#include <iostream>
#include <vector>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "app/cli/matmul_report.h"
#include "core/accumulate/accumulation_spec.h"
#include "core/experiment/framework_check.h"
#include "core/experiment/matmul_files.h"
#include "core/export/result_folder.h"
#include "core/io/json_text.h"
#include "core/io/load.h"
#include "core/io/npy.h"
#include "core/quantise/data_source.h"
#include "core/quantise/scaling.h"
#include "core/util/interrupt.h"

namespace pl::cli {
namespace {

struct MatmulArgs {
  std::string a, b, bias, input = "bfloat16", weight = "bfloat16", bias_dtype, output = "float32";
  std::string accumulate = "f32:blas", rounding = "rne", overflow = "default";
  std::string input_scaling = "none", weight_scaling = "none", data = "normal", weight_data = "normal";
  size_t m = 256, n = 256, k = 256;
  uint64_t seed = 0;
  uint64_t threads = 0;  // 0: all cores
  bool linear = false, raw = false, high = false, json = false;
  std::string out, save, framework;
  std::optional<BackendChoice> backend;  // none: the config's default (cpu)
  bool fast_accumulation = false;
  bool force = false;  // --save over a non-empty folder replaces it
};

}  // namespace

Runner add_matmul(CLI::App& app) {
  auto a = std::make_shared<MatmulArgs>();
  app.add_option("--a", a->a, "A (or x for --linear): FILE.npy or FILE.safetensors:TENSOR[@R0:R1,C0:C1]");
  app.add_option("--b", a->b, "B (k x n), or W (n x k) with --linear");
  app.add_option("--bias", a->bias, "bias file (n values); with --bias-dtype");
  app.add_flag("--linear", a->linear, "y = x W^T + b instead of C = A B");
  // Options for drawn operands only: given with files they would be ignored, so they are refused.
  std::vector<CLI::Option*> drawn_only;
  drawn_only.push_back(app.add_option("--m", a->m, "rows of A when drawn"));
  drawn_only.push_back(app.add_option("--n", a->n, "columns of the result when drawn"));
  drawn_only.push_back(app.add_option("--k", a->k, "reduction length when drawn"));
  app.add_option("--input-dtype", a->input,
                 "dtype of A / x: a table name (bfloat16, float8_e4m3fn, ...) or a custom format "
                 "eXmY[bB][:fn|:fnuz|:finite] (e5m7)");
  app.add_option("--weight-dtype", a->weight, "dtype of B / W");
  app.add_option("--bias-dtype", a->bias_dtype, "dtype of the bias (adds a bias)");
  app.add_option("--accumulate", a->accumulate, experiment::accumulation_grammar());
  app.add_option("--output-dtype", a->output, "dtype of the result");
  add_rounding_option(app, &a->rounding, "rounding of inputs and output (integer inputs: to nearest, ties to even)");
  app.add_option("--overflow", a->overflow, overflow_names(" | "));
  app.add_option("--input-scaling", a->input_scaling,
                 "RECIPE[:BLOCK]: " + experiment::scaling_names() + " (group:G: G elements a group, 128 unless given)");
  app.add_option("--weight-scaling", a->weight_scaling, "as --input-scaling");
  drawn_only.push_back(
      app.add_option("--data", a->data, "distribution of drawn inputs: " + experiment::distribution_names()));
  drawn_only.push_back(app.add_option("--weight-data", a->weight_data, "distribution of drawn weights"));
  CLI::Option* const seed_option =
      app.add_option("--seed", a->seed,
                     "seed of the drawn operands, a drawn bias, a delayed recipe's history and --rounding "
                     "stochastic's draws (an accumulator's own stochastic rounding draws a fixed stream)");
  app.add_flag("--raw", a->raw, ".npy files hold raw codes of the input/weight dtypes (uint16 for bfloat16, ...)");
  app.add_flag("--high-precision", a->high, "double-double reference even for narrow dtypes");
  app.add_option("--out", a->out, "write the result to this .npy (narrow dtypes as raw codes)");
  app.add_option("--save", a->save,
                 "write result.json, setup.json, histograms.csv and the figures into this folder (--framework's "
                 "call raising: setup.json, framework.json, the fixes' figure and each fix in fix-N/; whole or not "
                 "at all; an existing folder must be empty)");
  app.add_flag("--force", a->force, "replace a non-empty --save folder as a whole, and an existing --out file");
  app.add_flag("--json", a->json, "machine-readable results");
  app.add_option("--framework", a->framework,
                 "run it as this framework would (torch, numpy, jax, tf, ...): when the call raises, "
                 "run the fixes side by side instead");
  add_backend_option(app, &a->backend,
                     "where the product runs (default cpu); a model the device cannot run falls back to the "
                     "CPU, with a note");
  app.add_flag("--fast-accum", a->fast_accumulation, "float8 products on CUDA: the tensor cores' fast accumulation");
  app.add_option("--threads", a->threads, "CPU threads the run may use, OpenBLAS's included (default 0: all cores)");
  return [a, drawn_only, seed_option]() {
    if (a->force && a->save.empty() && a->out.empty()) {
      std::fprintf(stderr, "error: --force replaces the folder --save or the file --out names: give one\n");
      return kExitBadInput;
    }
    if (!a->a.empty() || !a->b.empty()) {
      for (const CLI::Option* o : drawn_only)
        if (o->count() > 0) {
          std::fprintf(stderr,
                       "error: %s is for drawn operands: with --a and --b the shapes and values are the files'\n",
                       o->get_name().c_str());
          return kExitBadInput;
        }
    } else if (a->raw) {
      std::fprintf(stderr, "error: --raw reads the .npy files of --a and --b as raw codes: give the files\n");
      return kExitBadInput;
    }
    nlohmann::json j = {{"experiment", a->linear ? "linear" : "matmul"},
                        {"input", a->input},
                        {"weight", a->weight},
                        {"output", a->output},
                        {"accumulate", a->accumulate},
                        {"rounding", a->rounding},
                        {"overflow", a->overflow},
                        {"input_scaling", a->input_scaling},
                        {"weight_scaling", a->weight_scaling},
                        {"seed", a->seed},
                        {"high_precision_reference", a->high}};
    if (a->a.empty() && a->b.empty()) {  // drawn operands: their shapes and distributions
      j["m"] = a->m, j["n"] = a->n, j["k"] = a->k;
      j["input_data"] = a->data, j["weight_data"] = a->weight_data;
    }
    if (a->raw) j["raw"] = true;
    if (!a->bias_dtype.empty()) j["bias"] = a->bias_dtype;
    if (!a->a.empty()) j["input_file"] = a->a;
    if (!a->b.empty()) j["weight_file"] = a->b;
    if (!a->bias.empty()) j["bias_file"] = a->bias;
    if (!a->framework.empty()) j["framework"] = a->framework;         // checked with the file's key
    if (a->backend) j["backend"] = backend_choice_name(*a->backend);  // likewise
    if (a->fast_accumulation) j["fast_accumulation"] = true;
    if (a->threads) j["threads"] = a->threads;  // its range checked with the file's key
    auto spec = experiment::matmul_spec_from_json(j);
    if (!spec) {
      const std::string why = in_option_terms(spec.error(), {{"input", "--input-dtype"},
                                                             {"weight", "--weight-dtype"},
                                                             {"output", "--output-dtype"},
                                                             {"bias", "--bias-dtype"},
                                                             {"input_data", "--data"},
                                                             {"input_file", "--a"},
                                                             {"weight_file", "--b"},
                                                             {"bias_file", "--bias"},
                                                             {"fast_accumulation", "--fast-accum"}});
      std::fprintf(stderr, "error: %s\n", why.c_str());
      return kExitBadInput;
    }
    experiment::MatmulSpec& s = spec.value();
    // With files the seed still draws a bias not read from a file, a delayed recipe's history and
    // stochastic rounding's bits; with none of them it would change nothing, and is refused as the
    // other drawn options are.
    const auto delayed = [](const experiment::Scaling& r) {
      return r.kind == experiment::ScalingKind::PerTensorDelayed;
    };
    if (!a->a.empty() && !a->b.empty() && seed_option->count() > 0 && !(s.config.bias && a->bias.empty()) &&
        !delayed(s.config.input_scaling) && !delayed(s.config.weight_scaling) &&
        s.config.cast.rounding != Rounding::Stochastic) {
      std::fprintf(stderr,
                   "error: --seed is for drawn operands, a drawn bias, a delayed recipe's history and --rounding "
                   "stochastic: with --a and --b and none of the others it changes nothing\n");
      return kExitBadInput;
    }
    if (!a->save.empty())
      if (const int st = output_problem(a->save, a->force,
                                        {io::tensor_file(a->a), io::tensor_file(a->b), io::tensor_file(a->bias)}))
        return st;
    // --out's file is checked before the work too: a folder there, no folder to write it in, or a
    // file inside --save's folder (the .npy written, then the folder refused over it), is the
    // user's to change. A file there is replaced only with --force, and never when the run reads it.
    if (!a->out.empty()) {
      std::error_code ec;
      std::string why;
      const Status writable = exporting::file_refusal(
          a->out, "the .npy file",
          {{"--a", io::tensor_file(a->a)}, {"--b", io::tensor_file(a->b)}, {"--bias", io::tensor_file(a->bias)}});
      if (!a->save.empty() && exporting::within(a->out, a->save))
        why = "--out " + a->out + " lies in the --save folder " + a->save + ": write it elsewhere";
      else if (!writable) why = "--out " + writable.error();
      else if (const auto st = std::filesystem::symlink_status(a->out, ec);  // (a device is written, not replaced)
               !a->force && (std::filesystem::is_regular_file(st) || std::filesystem::is_symlink(st)))
        why = "--out " + a->out + " exists: give --force to replace it";
      if (!why.empty()) {
        std::fprintf(stderr, "error: %s\n", why.c_str());
        return kExitBadInput;
      }
    }
    auto run = run_spec_with_progress(s, a->json);
    if (interrupt_signal()) return 128 + interrupt_signal();
    if (!run) {
      std::fprintf(stderr, "error: %s\n", run.error().c_str());
      return run.environment_failure() ? kExitFailed : kExitBadInput;
    }
    // --save writes the run as it is: the fixes' results when the call raises, else the result.
    const auto save = [&] {
      if (a->save.empty()) return kExitOk;
      return write_output(a->save, a->force,
                          [&](const std::string& dir) { return exporting::save_spec_run(*run, dir); });
    };
    if (run->raised()) {
      if (const int status = save(); status != kExitOk) return status;
      print_framework_report(*run->framework, a->json);
      return kExitOk;
    }
    if (run->framework && !a->json) {
      const auto& f = *run->framework;
      std::printf("%s: %s -> %s (%s)\nthe output dtype follows: %s\n\n", f.engine.c_str(), f.call.c_str(),
                  std::string(name(*f.as_written.result)).c_str(), f.as_written.rule.c_str(),
                  std::string(name(run->spec.config.output)).c_str());
    }
    const experiment::MatmulResult* r = &*run->result;
    // The folder first: when it cannot be written, neither is the .npy. When the .npy then cannot
    // be, the folder stays, whole, and the error says so (exit 1): the two are not one write.
    if (const int status = save(); status != kExitOk) return status;
    if (!a->out.empty()) {
      // (Read back from the device that made it, when one did.)
      auto values = r->result->host();
      auto w = values ? io::write_npy(a->out, {r->config.m, r->config.n}, *values, r->config.output)
                      : Status(Error{"reading the result back: " + values.error()});
      if (!w) {
        std::fprintf(stderr, "error: %s%s\n", w.error().c_str(),
                     a->save.empty() ? "" : ("; the --save folder " + a->save + " was written whole").c_str());
        return kExitFailed;
      }
    }
    if (a->json) std::cout << experiment::to_json(*r, s.files).dump(1, ' ', false, io::kReplaceInvalidUtf8) << "\n";
    else print_report(*r);
    return kExitOk;
  };
}

}  // namespace pl::cli
