// precision-lab bench [--op convert|matmul|product|throughput] [--backend auto|cpu|cuda] [--reps R] [--json]
//   convert: [--formats a,b,..] [--elements N] [--rounding MODE]
//     Array round trip float32 -> format -> float32 against a plain copy, timed in the same
//     run on the same device (the backend says how it timed).
//   matmul:  [--dtypes a,b,..] [--sizes N,..] [--accumulate SPEC]
//     The whole N x N x N matrix experiment (reference, product, attribution, statistics,
//     histograms) against the bare OpenBLAS calls it makes, timed in the same run.
//   product: [--dtypes a,b,..] [--sizes N,..] [--accumulate SPEC] [--fast-accum]
//     The bare product on the backend (product_bench.h), in TFLOP/s and % of the device's peak.
//   throughput: [--dtypes a,b,..] [--sizes N] [--seconds S] [--save DIR]
//     The Throughput panel's sampler without the window: each dtype's product timed
//     round-robin for S seconds; the median GFLOP/s per dtype (and the two figures).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "app/cli/choice_options.h"
#include "app/cli/cli.h"
#include "app/cli/product_bench.h"
#include "core/accumulate/blas.h"
#include "core/backend/backend.h"
#include "core/dtype/describe.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/matmul_bench.h"
#include "core/experiment/spec/matmul_json.h"
#include "core/experiment/throughput.h"
#include "core/export/experiment_export.h"
#include "core/figure/throughput_figures.h"
#include "core/io/json_text.h"
#include "core/util/interrupt.h"
#include "core/util/memory_room.h"
#include "core/util/thread_limit.h"

namespace pl::cli {
namespace {

// Each op and the options it reads: the help names the ops from here, and an option given to an
// op that does not read it is refused rather than silently ignored. `with_save`: options that
// shape the files --save writes, refused without --save.
struct BenchOp {
  const char* name;
  const char* what;
  std::vector<std::string_view> options, with_save;

  bool reads(std::string_view option) const {
    return std::find(options.begin(), options.end(), option) != options.end() ||
           std::find(with_save.begin(), with_save.end(), option) != with_save.end();
  }
};
const std::vector<BenchOp>& bench_ops() {
  static const std::vector<BenchOp> ops = {
      {"convert", "array round trip, default", {"--formats", "--elements", "--rounding", "--reps"}, {}},
      {"matmul", "whole experiment", {"--dtypes", "--sizes", "--accumulate", "--reps", "--threads"}, {}},
      {"product",
       "the bare product on the backend, TFLOP/s and % of peak",
       {"--dtypes", "--sizes", "--accumulate", "--fast-accum", "--reps"},
       {}},
      {"throughput", "live sampler", {"--dtypes", "--sizes", "--seconds", "--save"}, {"--force", "--size", "--dpi"}},
  };
  return ops;
}

// "matmul, product" -- the ops that read `option`.
std::string ops_reading(std::string_view option) {
  std::string out;
  for (const BenchOp& op : bench_ops())
    if (op.reads(option)) out += (out.empty() ? "" : ", ") + std::string(op.name);
  return out;
}

// An option's help, begun with the ops that read it.
std::string help_of(std::string_view option, const char* what) { return ops_reading(option) + ": " + what; }

std::string op_names() {
  std::string out;
  for (const BenchOp& op : bench_ops()) out += (out.empty() ? "" : " | ") + std::string(op.name);
  return out;
}

struct BenchArgs {
  std::string op = "convert", rounding = "rne";
  BackendChoice backend = BackendChoice::Auto;
  std::vector<std::string> dtypes{"bfloat16"};
  bool dtypes_given = false;
  double seconds = 5;
  std::string save;
  std::vector<size_t> sizes{1024};
  std::string accumulate = "f32:blas";
  std::vector<std::string> formats{"float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"};
  size_t elements = size_t{1} << 26;  // 64M elements: far beyond any cache
  int reps = 7;
  bool reps_given = false;
  bool accumulate_given = false;
  bool fast_accumulation = false;
  uint64_t threads = 0;  // matmul: the run's cap (0: all cores)
  bool json = false;
  bool force = false;  // --save over a non-empty folder replaces it
  std::vector<const CLI::Option*> given;  // the op-specific options, to check against the op
};

// The given options the op does not read, or reads only with --save, refused by name; 0 when
// there are none.
int refuse_foreign_options(const BenchArgs& a, const BenchOp& op) {
  const bool save_given = std::any_of(a.given.begin(), a.given.end(),
                                      [](const CLI::Option* o) { return o->get_name() == "--save" && o->count() > 0; });
  for (const CLI::Option* o : a.given) {
    if (o->count() == 0) continue;
    const std::string flag = o->get_name();
    if (!op.reads(flag)) {
      std::fprintf(stderr, "error: %s does not apply to --op %s (it is for %s)\n", flag.c_str(), op.name,
                   ops_reading(flag).c_str());
      return kExitBadInput;
    }
    if (!save_given && std::find(op.with_save.begin(), op.with_save.end(), flag) != op.with_save.end()) {
      std::fprintf(stderr, "error: %s is for the figures --save writes: give --save DIR too\n", flag.c_str());
      return kExitBadInput;
    }
  }
  return kExitOk;
}

// The first item of `items` that an earlier one repeats, or null.
template <class T>
const T* first_repeat(const std::vector<T>& items) {
  for (auto it = items.begin(); it != items.end(); ++it)
    if (std::find(items.begin(), it, *it) != it) return &*it;
  return nullptr;
}

// Each name as the table knows it ("e5m10" and "torch.float16" are float16), or as given where it
// names nothing (refused later, with the reason).
std::vector<std::string> canonical_names(const std::vector<std::string>& names, bool formats) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    if (formats) {
      const auto f = parse_float_format(n);
      out.push_back(f ? f->name : n);
    } else {
      const auto t = parse_dtype(n);
      out.push_back(t ? std::string(name(*t)) : n);
    }
  }
  return out;
}

// A list naming an item twice, under any of its names, would time it twice and print it twice,
// as if two were asked for: refused.
int refuse_repeats(const BenchArgs& a) {
  std::string why;
  const std::vector<std::string> formats = canonical_names(a.formats, true), dtypes = canonical_names(a.dtypes, false);
  if (const std::string* f = first_repeat(formats)) why = "--formats names " + *f + " twice";
  else if (const std::string* d = first_repeat(dtypes)) why = "--dtypes names " + *d + " twice";
  else if (const size_t* n = first_repeat(a.sizes)) why = "--sizes names " + std::to_string(*n) + " twice";
  if (why.empty()) return kExitOk;
  std::fprintf(stderr, "error: %s\n", why.c_str());
  return kExitBadInput;
}

nlohmann::json stages_json(const experiment::StageTimes& s) {
  return {{"quantise", s.quantise * 1e3},
          {"reference", s.reference * 1e3},
          {"product", s.product * 1e3},
          {"operands", s.generate * 1e3},
          {"analysis", s.analysis * 1e3},
          {"analysis_parts",
           {{"abs_product", s.abs_product * 1e3}, {"statistics", s.statistics * 1e3}, {"heat_map", s.heat_map * 1e3}}}};
}

void print_stages(const char* what, const experiment::StageTimes& s) {
  std::printf(
      "    %s: operands %.1f ms, quantise %.1f, references %.1f, product %.1f, analysis %.1f"
      " (|A||B| %.1f, statistics %.1f, heat map %.1f)\n",
      what, s.generate * 1e3, s.quantise * 1e3, s.reference * 1e3, s.product * 1e3, s.analysis * 1e3,
      s.abs_product * 1e3, s.statistics * 1e3, s.heat_map * 1e3);
}

// --backend cuda asks for the GPU's timings: with no GPU to run on, every op exits 1 (the CPU's
// would be printed under the GPU's name), after the input is checked. (The process's shared
// backend, which the timed runs then use: a device is not opened twice.)
int refuse_missing_gpu(BackendChoice backend) {
  if (backend != BackendChoice::Cuda) return kExitOk;
  auto opened = shared_backend(backend);
  if (opened) return kExitOk;
  std::fprintf(stderr, "error: %s\n", opened.error().c_str());
  return kExitFailed;  // the device, not the input
}

int run_matmul_bench(const BenchArgs& a) {
  const int reps = a.reps_given ? a.reps : 5;
  // Every setup checked before anything is timed.
  std::vector<std::pair<std::string, experiment::MatmulConfig>> runs;
  for (const auto& dtype : a.dtypes)
    for (size_t n : a.sizes) {
      const nlohmann::json j = {{"experiment", "matmul"},
                                {"m", n},
                                {"n", n},
                                {"k", n},
                                {"input", dtype},
                                {"weight", dtype},
                                {"output", dtype},
                                {"accumulate", a.accumulate},
                                {"backend", backend_choice_name(a.backend)},
                                {"threads", a.threads}};
      auto spec = experiment::matmul_spec_from_json(j);
      if (!spec) {  // (said with the options that made it: the file's keys were never given)
        const std::string why = in_option_terms(spec.error(), {{"m", "--sizes"},
                                                               {"n", "--sizes"},
                                                               {"k", "--sizes"},
                                                               {"input", "--dtypes"},
                                                               {"weight", "--dtypes"},
                                                               {"output", "--dtypes"}});
        std::fprintf(stderr, "error: bench --op matmul, %s at %zu^3: %s\n", dtype.c_str(), n, why.c_str());
        return kExitBadInput;
      }
      if (auto st = experiment::check(spec->config); !st) {
        std::fprintf(stderr, "error: %s x %zu: %s\n", dtype.c_str(), n, st.error().c_str());
        return kExitBadInput;
      }
      // A model the CPU has no routine for, where the CPU runs the product (chosen, or taking over
      // from a device that cannot): refused as matmul refuses it, before anything is timed.
      const experiment::MatmulConfig& c = spec->config;
      const ProductSpec product{{c.m, c.n, c.k}, c.input, c.weight, c.accumulate, c.fast_accumulation};
      if (auto device = device_for(a.backend, product); !device || !*device)
        if (const Support s = make_cpu_backend()->supports_product(product); !s.ok) {
          const std::string why = device ? s.why_not : device.error() + "; the CPU cannot either: " + s.why_not;
          std::fprintf(stderr, "error: %s x %zu: %s\n", dtype.c_str(), n, why.c_str());
          return kExitBadInput;
        }
      runs.emplace_back(dtype, spec->config);
    }
  if (const int st = refuse_missing_gpu(a.backend); st != kExitOk) return st;
  nlohmann::json rows = nlohmann::json::array();
  const std::string library = [&] {
    const ThreadLimit limit(static_cast<unsigned>(a.threads));  // what the timed calls use
    return blas::describe(blas::info());
  }();
  if (!a.json)
    std::printf("library: %s  accumulate: %s  reps: %d (median)\n%-10s %6s %14s %10s %7s %14s %10s %10s\n",
                library.c_str(), a.accumulate.c_str(), reps, "dtype", "n", "experiment ms", "BLAS ms", "ratio",
                "product GFLOP/s", "product ms", "cached ms");
  for (const auto& [dtype, config] : runs) {
    const size_t n = config.n;
    auto t = experiment::time_matmul(config, reps);
    if (!t) {
      std::fprintf(stderr, "error: %s x %zu: %s\n", dtype.c_str(), n, t.error().c_str());
      return kExitFailed;
    }
    rows.push_back({{"dtype", dtype},
                    {"n", n},
                    {"experiment_ms", t->experiment_ms},
                    {"cached_reference_ms", t->cached_ms},
                    {"blas_ms", t->blas_ms},
                    {"ratio", t->ratio()},
                    {"blas_calls", t->blas_calls},
                    {"product_ms", t->product_ms},
                    {"product_gflops", t->product_gflops},
                    {"stages_ms", stages_json(t->stages)},
                    {"cached_stages_ms", stages_json(t->cached_stages)},
                    {"reference_method", t->reference_method},
                    {"product_backend", t->product_backend}});
    if (!a.json) {
      std::printf("%-10s %6zu %14.1f %10.1f %7.2f %14.2f %10.1f %10.1f\n", dtype.c_str(), n, t->experiment_ms,
                  t->blas_ms, t->ratio(), t->product_gflops, t->product_ms, t->cached_ms);
      print_stages("stages of the median run", t->stages);
      print_stages("stages of the median re-run of the same setup (what a window update may reuse, kept)",
                   t->cached_stages);
    }
    std::fflush(stdout);
  }
  if (a.json) {
    // (`backend` is the choice; where each product ran is its row's product_backend.)
    nlohmann::json out{{"op", "matmul"},
                       {"backend", backend_choice_name(a.backend)},
                       {"library", library},
                       {"threads", a.threads},
                       {"accumulate", a.accumulate},
                       {"reps", reps},
                       {"results", rows}};
    std::cout << out.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
  } else {
    std::printf(
        "BLAS: the OpenBLAS calls the experiment makes (two dgemm for the references, the "
        "product's own call if it is a library product, one sgemm for the bound check), "
        "timed right after it on the same shapes; cached: the same run again with its references "
        "from the cache, as the window re-runs a setup on unchanged operands\n");
  }
  return kExitOk;
}

int run_throughput_bench(const BenchArgs& a) {
  const std::vector<std::string> names =
      a.dtypes_given ? a.dtypes
                     : std::vector<std::string>{"float64", "float32", "bfloat16", "float16", "float8_e4m3fn", "int8"};
  std::vector<DType> dtypes;
  for (const auto& s : names) {
    auto t = parse_dtype(s);
    if (!t) {
      std::fprintf(stderr, "error: unknown dtype '%s'\n", s.c_str());
      return kExitBadInput;
    }
    if (auto acc = experiment::default_product_accumulation(*t); !acc) {
      std::fprintf(stderr, "error: %s\n", acc.error().c_str());
      return kExitBadInput;
    }
    dtypes.push_back(*t);
  }
  const size_t n = a.sizes.empty() ? 0 : a.sizes.front();  // (an empty --sizes is refused below)
  const size_t largest = experiment::largest_product_bench(a.backend);
  if (a.sizes.size() > 1 || n == 0 || n > largest) {
    std::fprintf(stderr, "error: throughput samples one size in [1, %zu] (--sizes N)\n", largest);
    return kExitBadInput;
  }
  if (!(a.seconds > 0 && a.seconds <= 3600)) {
    std::fprintf(stderr, "error: --seconds must lie in (0, 3600]\n");
    return kExitBadInput;
  }
  if (const int st = refuse_missing_gpu(a.backend); st != kExitOk) return st;
  std::atomic<bool> stop{false};
  experiment::ThroughputHistory history;
  const auto t0 = std::chrono::steady_clock::now();
  std::map<DType, std::pair<std::string, bool>> methods;  // what ran each dtype, emulated or not
  std::set<DType> cpu_timed;                              // the dtypes a GPU could not run, timed on the CPU
  auto ok = experiment::sample_throughput(
      dtypes, n, stop,
      [&](const experiment::ThroughputSample& s) {
        history.add(s);
        // --seconds is a least time: every dtype is sampled at least once, or it would have no
        // rate to print (0 from 0 samples).
        const bool each_sampled =
            std::all_of(dtypes.begin(), dtypes.end(), [&](DType t) { return !history.of(t).empty(); });
        if (each_sampled && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= a.seconds)
          stop = true;
        // Ctrl-C ends the sampling at the next sample, not when --seconds (up to an hour) is up.
        if (interrupt_flag()->load()) stop = true;
      },
      {}, a.backend,
      [&](const experiment::ProductBench& b) {
        methods[b.dtype] = {b.method, b.emulated};
        if (b.backend == BackendChoice::Cpu) cpu_timed.insert(b.dtype);
      });
  if (!ok) {
    std::fprintf(stderr, "error: %s\n", ok.error().c_str());
    return kExitFailed;
  }
  const experiment::ThroughputDevice where = experiment::throughput_device(a.backend);
  const bool gpu = where.gpu;
  const std::string& device = where.name;
  const std::string backend(backend_choice_name(where.backend));
  const experiment::RateUnit unit = experiment::rate_unit(gpu);
  std::vector<DType> emulated, on_cpu;
  nlohmann::json rows = nlohmann::json::array();
  if (!a.json)
    std::printf("%-16s %8s %24s  %s\n", "dtype", "samples",
                (experiment::rate_axis_name(unit, dtypes) + " (quartiles)").c_str(), "how");
  for (DType t : dtypes) {
    const auto& [how, is_emulated] = methods[t];
    if (gpu && cpu_timed.count(t) != 0) on_cpu.push_back(t);
    else if (is_emulated) emulated.push_back(t);
    const double g = history.median_gflops(t);
    const Quartiles q = history.quartiles_gflops(t);
    rows.push_back({{"dtype", name(t)},
                    {"samples", history.of(t).size()},
                    {"gflops_median", g},
                    {"gflops_q1", q.q1},
                    {"gflops_q3", q.q3},
                    {"method", how},
                    {"emulated", is_emulated}});
    if (!a.json)
      std::printf("%-16s %8zu %24s  %s\n", std::string(name(t)).c_str(), history.of(t).size(),
                  experiment::spread_text(q, unit.scale).c_str(), how.c_str());
  }
  if (!a.save.empty()) {
    const figure::ThroughputContext c{n, device, 9, gpu, emulated, on_cpu};  // (named on a GPU only)
    if (const int status =
            write_output(a.save, a.force,
                         [&](const std::string& dir) {
                           return exporting::save_figures(
                               {figure::throughput_over_time(history, c), figure::throughput_bars(history, c)}, dir);
                         });
        status != kExitOk)
      return status;
  }
  if (a.json) {
    std::cout << nlohmann::json{{"op", "throughput"},   {"backend", backend}, {"n", n},
                                {"seconds", a.seconds}, {"device", device},   {"results", rows}}
                     .dump(2, ' ', false, io::kReplaceInvalidUtf8)
              << "\n";
  } else {
    std::printf("%zu^3 products on %s, median of each dtype's samples over %.3g s (half duty cycle); %s\n", n,
                backend.c_str(), a.seconds,
                gpu ? "rows marked emulation measure it, not the GPU's own arithmetic"
                    : "on a CPU narrower dtypes are emulated, not hardware speed");
  }
  return kExitOk;
}

int run_bench(const BenchArgs& a) {
  const auto& ops = bench_ops();
  const auto op = std::find_if(ops.begin(), ops.end(), [&](const BenchOp& o) { return a.op == o.name; });
  if (op == ops.end()) {
    std::fprintf(stderr, "error: unknown --op '%s' (%s)\n", a.op.c_str(), op_names().c_str());
    return kExitBadInput;
  }
  if (const int status = refuse_foreign_options(a, *op); status != kExitOk) return status;
  if (const int status = refuse_repeats(a); status != kExitOk) return status;
  if (a.op == "matmul") return run_matmul_bench(a);
  if (a.op == "throughput") {
    if (const int st = !a.save.empty() ? output_problem(a.save, a.force) : 0) return st;
    return run_throughput_bench(a);
  }
  if (a.op == "product")
    return run_product_bench({a.backend, a.dtypes, a.sizes, a.accumulate_given ? a.accumulate : "", a.fast_accumulation,
                              a.reps_given ? a.reps : 20, a.json});
  // The conversion bench holds the float32 input, its output and a copy's target: three arrays.
  constexpr size_t kMostElements = size_t{1} << 34;
  if (a.elements < 1 || a.elements > kMostElements) {
    std::fprintf(stderr, "error: --elements must be from 1 to 2^34 (%zu given)\n", a.elements);
    return kExitBadInput;
  }
  // (A size past the memory there is: bad input, as every other command's.)
  if (auto st = check_room(3.0 * 4.0 * static_cast<double>(a.elements), "--elements", memory_room()); !st) {
    std::fprintf(stderr, "error: %s\n", st.error().c_str());
    return kExitBadInput;
  }
  // The input first, then the device: a bad format came after the device's note.
  CastOptions o;
  if (!parse_rounding(a.rounding.c_str(), &o.rounding)) {
    std::fprintf(stderr, "error: unknown rounding '%s'\n", a.rounding.c_str());
    return kExitBadInput;
  }
  std::vector<FormatRef> refs;
  for (const auto& f : a.formats) {
    auto r = parse_float_format(f);
    if (!r) {
      std::fprintf(stderr, "error: %s\n", r.error().c_str());
      return kExitBadInput;
    }
    refs.push_back(*r);
  }
  auto opened = open_backend(a.backend);
  if (!opened) {
    std::fprintf(stderr, "error: %s\n", opened.error().c_str());
    return kExitFailed;  // the device, not the input
  }
  if (!opened->note.empty()) std::fprintf(stderr, "note: %s\n", opened->note.c_str());
  Backend* const backend = opened->backend.get();
  DeviceInfo dev = backend->device_info();
  nlohmann::json rows = nlohmann::json::array();
  if (!a.json)
    std::printf("device: %s (%s)  elements: %zu  rounding: %s\n%-16s %12s %12s %8s\n", dev.name.c_str(),
                dev.backend.c_str(), a.elements, rounding_name(o.rounding), "format", "convert GB/s", "copy GB/s",
                "ratio");
  std::string method;
  for (const auto& ref : refs) {
    auto t = backend->time_roundtrip_f32(ref.format, o, a.elements, a.reps);
    if (!t) {
      std::fprintf(stderr, "error: %s: %s\n", ref.name.c_str(), t.error().c_str());
      return kExitFailed;
    }
    method = t->method;
    double ratio = t->convert_gbps / t->copy_gbps;
    rows.push_back({{"format", ref.name},
                    {"elements", t->elements},
                    {"convert_gbps", t->convert_gbps},
                    {"copy_gbps", t->copy_gbps},
                    {"ratio", ratio},
                    {"convert_ms", t->convert_seconds * 1e3},
                    {"copy_ms", t->copy_seconds * 1e3}});
    if (!a.json) std::printf("%-16s %12.2f %12.2f %8.2f\n", ref.name.c_str(), t->convert_gbps, t->copy_gbps, ratio);
    std::fflush(stdout);
  }
  if (a.json) {
    nlohmann::json j{{"backend", dev.backend},
                     {"device", dev.name},
                     {"method", method},
                     {"rounding", rounding_name(o.rounding)},
                     {"results", rows}};
    std::cout << j.dump(2, ' ', false, io::kReplaceInvalidUtf8) << "\n";
  } else {
    std::printf("method: %s\n", method.c_str());
  }
  return kExitOk;
}

}  // namespace

Runner add_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  std::string op_help;
  for (const BenchOp& op : bench_ops())
    op_help += (op_help.empty() ? "" : " | ") + std::string(op.name) + " (" + op.what + ")";
  app.add_option("--op", a->op, op_help);
  const auto given = [a](const CLI::Option* o) { a->given.push_back(o); };
  given(app.add_flag("--fast-accum", a->fast_accumulation,
                     help_of("--fast-accum", "float8 tensor cores' fast accumulation (CUDA)")));
  add_backend_option(app, &a->backend, "where it runs (default auto); cuda with no GPU to run on exits 1");
  given(app.add_option("--formats", a->formats, help_of("--formats", "formats to convert through"))->delimiter(','));
  given(app.add_option("--dtypes", a->dtypes, help_of("--dtypes", "input = weight = output dtypes, one run each"))
            ->delimiter(',')
            ->each([a](const std::string&) { a->dtypes_given = true; }));
  given(app.add_option("--seconds", a->seconds,
                       help_of("--seconds", "how long to sample, at least (default 5): every dtype gets one sample")));
  given(app.add_option("--save", a->save,
                       help_of("--save",
                               "write both figures (PNG, SVG, PDF, CSV) into this folder (whole or not at all; an "
                               "existing folder must be empty)")));
  given(app.add_flag("--force", a->force, help_of("--force", "replace a non-empty --save folder as a whole")));
  given(app.add_option("--sizes", a->sizes,
                       help_of("--sizes", "N for N x N x N products (default 1024; throughput: one N)"))
            ->delimiter(',')
            // (Each item: the global whole-number check reads one value an option, not a list's items.)
            ->check(
                [](const std::string& item) {
                  const Status whole = whole_number(item);
                  return whole.ok() ? std::string() : whole.error();  // (CLI11's validators: empty is valid)
                },
                ""));
  given(app.add_option("--accumulate", a->accumulate,
                       help_of("--accumulate", "accumulation model (as matmul --accumulate)"))
            ->each([a](const std::string&) { a->accumulate_given = true; }));
  given(app.add_option("--elements", a->elements, help_of("--elements", "array length (float32 elements)")));
  given(app.add_option("--reps", a->reps,
                       help_of("--reps", "timed repetitions, median reported (convert: 7, matmul: 5, product: 20)"))
            ->check(CLI::Range(1, 1000))
            ->each([a](const std::string&) { a->reps_given = true; }));
  given(add_rounding_option(app, &a->rounding, help_of("--rounding", "the rounding of the round trip")));
  given(app.add_option(
      "--threads", a->threads,
      help_of("--threads", "CPU threads the experiment and its bare OpenBLAS calls may use (default 0: all cores)")));
  app.add_flag("--json", a->json, "JSON output");
  return [a, &app]() {
    // The figure options, added to every drawing command after this one, are the --save figures'.
    for (const char* name : {"--size", "--dpi"})
      if (const CLI::Option* o = app.get_option_no_throw(name)) a->given.push_back(o);
    return run_bench(*a);
  };
}

}  // namespace pl::cli
