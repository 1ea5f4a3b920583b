// The matrix experiment: operands drawn or given, rounded into their dtypes by their recipes,
// multiplied by the accumulation model on the chosen backend, and the error split by where it
// came from against the float64 (or double-double) reference.
//
// Sections, in order (search for "// ----"):
//   operands        drawn along K, the last draw kept for re-runs
//   where it runs   the device that holds an experiment's arrays
//   attribution     the four error components measured together
//   reports         what each operand's rounding did
//   the product     on the chosen backend, or the CPU with the reason
//   checks          check_setup, check, the working-memory bound
//   the run         generate_operands, run_matmul
//   report lines    the one-line summaries the CLI and window print
#include "core/experiment/matmul.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/accumulate/gemm.h"
#include "core/accumulate/output_steps.h"
#include "core/analysis/bound_check.h"
#include "core/backend/backend.h"
#include "core/dtype/codec.h"
#include "core/dtype/describe.h"
#include "core/dtype/device/stochastic.h"
#include "core/experiment/abs_product.h"
#include "core/experiment/on_device.h"
#include "core/experiment/quantised_cache.h"
#include "core/experiment/reference_cache.h"
#include "core/util/memory_room.h"
#include "core/util/number_text.h"
#include "core/util/parallel.h"
#include "core/util/thread_limit.h"

namespace pl::experiment {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---- operands --------------------------------------------------------------------

// Tensor ids for the data streams (data_source.h): one per operand, the amax history after.
enum : uint64_t { kInputId = 1, kWeightId = 2, kBiasId = 3, kHistoryId = 1000 };
// Stochastic rounding's streams, one per thing rounded (a stored operand's first rounding, into
// its `via` dtype, draws one more: quantise_stored).
enum : uint64_t { kInputStream = 1, kWeightStream = 2, kBiasStream = 3, kOutputStream = 4, kStoredStream = 5 };

constexpr size_t kErrorMapCells = 512;  // the heat map's cells a side, at most
constexpr double kMaxBytes = 8.0 * (1ull << 30);

// Bits of precision an operand's values carry. An integer of at most 8 bits times its scale: a
// per-tensor or per-channel factor applies after the sum, MX's is a power of two, and a group's
// float16 scale (11 significant bits) multiplies the values: 8 + 11.
int value_precision(DType t) { return is_float(t) ? info(t).format.precision() : 19; }

bool products_exact(DType a, DType b) { return value_precision(a) + value_precision(b) <= 53; }

// In 8 x 8 tiles, each written row by row (contiguous writes; the reads stride through eight
// cache lines that stay in L1): several times faster than 32 x 32 tiles written column by
// column. Bands of tile rows split between the threads. A whole tile writes each of its eight
// output rows as one full cache line, stored past the caches (_mm_stream_pd, SSE2: every
// x86-64): a plain store first reads the line it writes from memory, and the 8 MB of a 1024^2
// transpose are not in cache when an experiment starts, so plain stores would take about twice
// as long there (and a little longer even with the data in L3).
std::vector<double> transpose(const std::vector<double>& x, size_t rows, size_t cols) {
  constexpr size_t kTile = 8;
  std::vector<double> t(x.size());
  const double* const src = x.data();
  double* const dst = t.data();
#if defined(__SSE2__)
  // Each output row of a tile starts 16-byte aligned when rows is even and t's start is.
  const bool stream = rows % 2 == 0 && reinterpret_cast<uintptr_t>(dst) % 16 == 0;
#else
  const bool stream = false;
#endif
  const size_t bands = (rows + kTile - 1) / kTile;
  parallel_for(
      bands, 0,
      [=](size_t band0, size_t band1) {
        for (size_t r0 = band0 * kTile; r0 < std::min(rows, band1 * kTile); r0 += kTile)
          for (size_t c0 = 0; c0 < cols; c0 += kTile) {
            const size_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
#if defined(__SSE2__)
            if (stream && r1 - r0 == kTile && c1 - c0 == kTile) {  // fixed trip counts: unrolled
              double tile[kTile][kTile];
              for (size_t r = 0; r < kTile; ++r)
                for (size_t c = 0; c < kTile; ++c) tile[c][r] = src[(r0 + r) * cols + c0 + c];
              for (size_t c = 0; c < kTile; ++c)
                for (size_t r = 0; r < kTile; r += 2)
                  _mm_stream_pd(dst + (c0 + c) * rows + r0 + r, _mm_loadu_pd(&tile[c][r]));
              continue;
            }
#endif
            for (size_t c = c0; c < c1; ++c)
              for (size_t r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
          }
#if defined(__SSE2__)
        if (stream) _mm_sfence();  // streamed stores are weakly ordered: visible before this thread reports done
#endif
      },
      rows_worth_a_thread(kTile * cols));
  return t;
}

// The operands drawn from the config's data sources, both along K: A (m x k), W (n x k), and
// the bias when there is one.
MatmulOperands draw_along_k(const MatmulConfig& c) {
  MatmulOperands o;
  o.a = generate(c.input_data, c.m, c.k, c.seed, kInputId);
  o.b = generate(c.weight_data, c.n, c.k, c.seed, kWeightId, c.k);
  if (c.bias) o.bias = generate(c.bias_data, 1, c.n, c.seed, kBiasId, c.k);
  return o;
}

// The operands drawn for the last config, by what decides them (the data sources, the shape,
// the seed, whether there is a bias): the window re-runs on every change of dtype, recipe, model
// or backend with the same data, and drawing them again cost ~0.1 s of each 4096^2 run on the
// H100 machine (the "operands" stage). Shared and never changed; only the last draw
// is kept (at 4096^2, 256 MB).
std::shared_ptr<const MatmulOperands> drawn_operands(const MatmulConfig& c) {
  std::string key;
  char buf[160];
  for (const DataSource* s : {&c.input_data, &c.weight_data, &c.bias_data}) key += source_key(*s) + ";";
  std::snprintf(buf, sizeof buf, "%zu %zu %zu %llu %d", c.m, c.n, c.k, static_cast<unsigned long long>(c.seed),
                c.bias.has_value());
  key += buf;
  static std::mutex lock;
  static std::string last_key;
  static std::shared_ptr<const MatmulOperands> last;
  {
    const std::lock_guard hold(lock);
    if (last && last_key == key) return last;
  }
  auto drawn = std::make_shared<const MatmulOperands>(draw_along_k(c));
  const std::lock_guard hold(lock);
  last_key = key, last = drawn;
  return drawn;
}

// ---- where it runs ----------------------------------------------------------------

// Where an experiment's held arrays are worked on: the device the config names when it is one
// (its lock held for each call), else the CPU. An array the device holds is worked on there; a
// device's failure adds a line to the note and the CPU does the step instead (reading the
// device's arrays back).
struct Workers {
  SharedBackend device;  // no backend: the CPU was asked for, or there is no device
  std::unique_ptr<Backend> cpu = make_cpu_backend();

  explicit Workers(BackendChoice choice) {
    if (choice == BackendChoice::Cpu) return;
    if (auto shared = shared_backend(choice); shared && shared->backend->name() != "cpu") device = *shared;
  }
  bool holds(const Held& h) const {
    return device.backend && h && h->holder() != 0 && h->holder() == device.backend->holder();
  }
  // A step the device failed and the CPU could not take over (the device's arrays lost with it)
  // is the machine's failure, not the setup's: the error says so (Error::environment).
  template <typename F>
  auto run(bool on_device, const char* what, std::string& note, F&& step) -> decltype(step(*cpu)) {
    if (on_device && device.backend) {
      std::lock_guard lock(*device.mutex);
      auto r = step(*device.backend);
      if (r || r.error() == "cancelled") return r;
      const std::string failed = device.backend->name() + " could not " + what + " (" + r.error() + ")";
      note += (note.empty() ? "" : "; ") + failed + ": the CPU did";
      auto on_cpu = step(*cpu);
      if (!on_cpu && on_cpu.error() != "cancelled")
        return Error{failed + ", nor the CPU: " + on_cpu.error(), /*environment=*/true};
      return on_cpu;
    }
    return step(*cpu);
  }
};

// ---- attribution -----------------------------------------------------------------

// The four components of the attribution, measured together (error_stats.h: each pass reads
// each of the four arrays once), and the arithmetic error's bound check on the way.
Expected<BoundCheck> measure_components(MatmulResult& r, const BoundInputs& bound) {
  struct Part {
    ErrorComponent* into;
    const char* name;
    const Held& value;
    const Held& ref;
  };
  const Part parts[] = {{&r.total, "total", r.result, r.reference},
                        {&r.input, "input rounding", r.rounded_reference, r.reference},
                        {&r.arithmetic, "arithmetic", r.accumulated, r.rounded_reference},
                        {&r.output, "output rounding", r.result, r.accumulated}};
  ErrorHistograms h[std::size(parts)];
  std::vector<HeldComparison> comparisons;
  BoundCheck check;
  for (size_t p = 0; p < std::size(parts); ++p) {
    const bool arithmetic = parts[p].into == &r.arithmetic;
    comparisons.push_back(
        {parts[p].value, parts[p].ref, &h[p], arithmetic ? &bound : nullptr, arithmetic ? &check : nullptr});
  }
  auto stats = error_stats_on(r.config.backend, comparisons, r.config.output, r.analysis_backend, r.backend_note);
  if (!stats) return Error{stats.error(), stats.environment_failure()};
  for (size_t p = 0; p < std::size(parts); ++p) {
    ErrorComponent& c = *parts[p].into;
    c.name = parts[p].name;
    c.stats = (*stats)[p];
    c.signed_error = std::move(h[p].signed_error);
    c.relative = std::move(h[p].relative);
    // Ulps in log bins (two an octave): near-zero references make ulp counts span decades.
    c.ulps = std::move(h[p].ulps);
  }
  return check;
}

// ---- reports ---------------------------------------------------------------------

// The cast options of one thing the run rounds, with its own stochastic stream (run_stream_seed).
CastOptions stream_options(const MatmulConfig& c, uint64_t stream) {
  CastOptions o = c.cast;
  o.seed = run_stream_seed(c, stream);
  return o;
}

// A rows x cols tensor quantised into `dtype` with recipe `s`, or, when it was stored in `via`
// first (a fix's x.to(...), autocast's cast), rounded there unscaled and then converted: the
// reference keeps the original values, so input rounding counts both steps.
Quantised quantise_stored(std::span<const double> x, size_t rows, size_t cols, DType dtype, std::optional<DType> via,
                          const Scaling& s, const CastOptions& o, double history_amax = 0) {
  if (!via) return quantise(x, rows, cols, dtype, s, o, history_amax);
  CastOptions first = o;  // (its own stream: the two roundings of an element are independent)
  first.seed = stochastic_stream_seed(o.seed, kStoredStream);
  const NoInitVector<double> stored = quantise(x, rows, cols, *via, Scaling{}, first).values;
  return quantise(stored, rows, cols, dtype, s, o, history_amax);
}

// `via`: the dtype the operand was stored in before it was converted to t (a fix's x.to(...),
// autocast's cast), named first: "float32 -> bfloat16, none".
OperandReport report(DType t, std::optional<DType> via, const Scaling& s, const CastOptions& o, const Quantised& q) {
  OperandReport r;
  r.recipe = (via ? std::string(name(*via)) + " -> " : std::string()) + std::string(name(t)) + ", " +
             scaling_spec(s);
  if (s.kind == ScalingKind::PerTensor || s.kind == ScalingKind::PerTensorDelayed || s.kind == ScalingKind::NVFP4) {
    char amax[32];
    std::snprintf(amax, sizeof amax, "%.4g", q.amax);
    r.recipe += std::string(" (amax ") + amax + ")";
    r.amax = q.amax;
  }
  r.saturated = q.saturated;
  r.out_of_range = out_of_range_outcome(t, s, o);
  r.flushed = q.flushed;
  return r;
}

// ---- the product -----------------------------------------------------------------

// The product on the backend the config names, or on the CPU when that one cannot run it (no
// GPU, no kernel for the model, values a library path cannot hold): the result says which ran
// and why. A cancelled run stays cancelled. The sums stay where they were made.
Expected<Held> backend_product(BackendChoice backend, const ProductSpec& spec, std::span<const double> a,
                               std::span<const double> b, const ProductControl& control, MatmulResult& r) {
  std::string note;  // empty: the CPU was asked for
  bool device_failed = false;
  if (auto shared = device_for(backend, spec); !shared) {
    note = shared.error();
  } else if (*shared) {
    Backend& device = *(*shared)->backend;
    std::lock_guard lock(*(*shared)->mutex);
    auto run = device.product_held(spec, a, b, control);
    if (run) {
      r.product_method = std::move(run->method);
      r.product_backend = device.name() + " (" + device.device_info().name + ")";
      r.product_device_seconds = run->device_seconds;
      return std::move(run->c);
    }
    if (run.error() == "cancelled") return Error{run.error()};
    note = device.name() + " failed: " + run.error();
    device_failed = true;
  }
  auto cpu = make_cpu_backend();
  auto run = cpu->product_held(spec, a, b, control);
  // (A device that ran and failed is the machine's failure when the CPU cannot take over; a
  // model neither can run is the setup's.)
  if (!run)
    return Error{note.empty() ? run.error() : note + "; the CPU cannot either: " + run.error(),
                 /*environment=*/device_failed && run.error() != "cancelled"};
  r.product_method = std::move(run->method);
  r.product_backend = "cpu";
  r.backend_note = note.empty() ? "" : note + "; the product ran on the CPU";
  return std::move(run->c);
}

}  // namespace

DType product_dtype(DType t, const Scaling& s) { return is_group(s.kind) ? DType::float32 : t; }

std::optional<int> significant_bits(DType t, const Scaling& s) {
  const DType v = product_dtype(t, s);
  if (!is_float(v)) return std::nullopt;
  const int bits = info(v).format.precision();
  return s.kind == ScalingKind::NVFP4 ? bits + info(DType::float8_e4m3fn).format.precision() : bits;
}

std::string_view matmul_op_name(MatmulOp op) { return op == MatmulOp::Matmul ? "matmul" : "linear"; }

uint64_t run_stream_seed(const MatmulConfig& c, uint64_t stream) {
  return stochastic_stream_seed(stochastic_stream_seed(c.seed, 0) ^ c.cast.seed, stream);
}

std::string matmul_shape_text(const MatmulConfig& c) {
  return std::string(matmul_op_name(c.op)) + " m=" + std::to_string(c.m) + " k=" + std::to_string(c.k) +
         " n=" + std::to_string(c.n);
}

// ---- checks ----------------------------------------------------------------------

// An upper bound on a run's working memory: the operands with their quantised and dequantised
// copies, and the m x n arrays (references, sums, result, errors). A bf16 run's peak resident
// size is about half to three quarters of it (2048^3, 4096 x 4096 x 256, 256 x 256 x 16384).
static double working_memory_bytes(const MatmulConfig& c) {
  const double mk = double(c.m) * c.k, nk = double(c.n) * c.k, mn = double(c.m) * c.n;
  return 8.0 * (6 * (mk + nk) + 12 * mn);
}

Status check_setup(const MatmulConfig& c) {
  const std::pair<const char*, size_t> dims[] = {{"m", c.m}, {"n", c.n}, {"k", c.k}};
  for (const auto& [name, d] : dims)
    if (d == 0 || d > kMaxDim)
      return Error{std::string(name) + " = " + std::to_string(d) + ": every dimension must lie in [1, 2^24]"};
  if (c.threads > kMaxThreads)
    return Error{"threads must lie in [0, " + std::to_string(kMaxThreads) + "] (0: all cores)"};
  const double bytes = working_memory_bytes(c);
  if (bytes > kMaxBytes)
    return Error{"the shape needs about " + std::to_string(int(bytes / (1 << 30))) +
                 " GiB of working memory (limit 8 GiB)"};
  // Integers of at most 8 bits, with a recipe: int8, uint8 and the four-bit int4 and uint4
  // (W4A16's weights: int4 in groups with float16 scales).
  for (DType t : {c.input, c.weight})
    if (!is_float(t) && !(is_integer(t) && value_bits(t) <= 8 && t != DType::bool_))
      return Error{std::string(name(t)) + ": inputs and weights must be float dtypes or integers of at most 8 bits "
                                          "(int8, uint8, int4, uint4)"};
  if (!is_float(c.output)) return Error{"the output dtype must be a float dtype"};
  if (c.bias && !is_float(*c.bias)) return Error{"the bias dtype must be a float dtype"};
  if (auto st = check(c.input_scaling, c.input); !st) return Error{"input: " + st.error()};
  if (auto st = check(c.weight_scaling, c.weight); !st) return Error{"weight: " + st.error()};
  // A GEMM library's float16 accumulation passes here; only a backend that has one runs it.
  if (auto st = check_product_model(c.accumulate); !st) return Error{describe(c.accumulate) + ": " + st.error()};
  for (const auto* via : {&c.input_via, &c.weight_via, &c.bias_via})
    if (*via && !is_float(**via)) return Error{"an operand stored before a cast must be in a float dtype"};
  for (const DataSource* s : {&c.input_data, &c.weight_data, &c.bias_data})
    if (auto st = check(*s); !st) return Error{"data: " + st.error()};
  return {};
}

Status check(const MatmulConfig& c) {
  if (auto st = check_setup(c); !st) return st;
  if (c.accumulate.kind == AccumKind::Int32 && (is_float(c.input) || is_float(c.weight)))
    return Error{"int32 accumulation takes integer inputs and weights (int8, uint8, int4, uint4)"};
  if (c.accumulate.kind == AccumKind::Int32 && (is_group(c.input_scaling.kind) || is_group(c.weight_scaling.kind)))
    return Error{"int32 accumulation takes integer values: a group's float16 scale multiplies them before the "
                 "product (accumulate in float32 or float64)"};
  const bool hardware = c.accumulate.kind == AccumKind::Float64 ||
                        (c.accumulate.kind == AccumKind::Blas && c.accumulate.format == DType::float64);
  // (f32:blas, the default, is no emulation: named as what it is, with what to give instead.)
  if (!hardware && !products_exact(c.input, c.weight) && c.accumulate.kind == AccumKind::Blas)
    return Error{"f32:blas, the float32 library product (the default), takes float32 values: " +
                 std::string(name(c.input)) + " x " + std::string(name(c.weight)) +
                 " has more bits (accumulate with f64:blas or f64)"};
  if (!hardware && !products_exact(c.input, c.weight))
    return Error{"emulated accumulation needs exact float64 products: " + std::string(name(c.input)) + " x " +
                 std::string(name(c.weight)) + " has too many bits (use float64 accumulation)"};
  return {};
}

bool double_double_reference(const MatmulConfig& c) {
  return c.high_precision_reference || c.input == DType::float64 || c.weight == DType::float64 ||
         c.output == DType::float64 || result_dtype(c.accumulate) == DType::float64;
}

// ---- the run ---------------------------------------------------------------------

MatmulOperands generate_operands(const MatmulConfig& c) {
  MatmulOperands o = draw_along_k(c);
  // B (k x n) for matmul is W's transpose, so both ops see the same numbers for the same seed.
  if (c.op == MatmulOp::Matmul) o.b = transpose(o.b, c.n, c.k);
  return o;
}

namespace {

// The operands of one run along K (a: m x k, bt: n x k) and what holds them: a user's arrays
// are read where they lie (no copy); what is drawn, reshaped or rounded here is owned below.
struct RunOperands {
  MatmulOperands own;
  std::shared_ptr<const MatmulOperands> drawn;  // held for the run: the cache may drop it
  std::span<const double> a, bt, bias;
  std::shared_ptr<const Quantised> qa, qb;  // shared with quantised_cache.h
  Quantised qbias;
};

Status take_operands(const MatmulConfig& c, const MatmulOperands& given, RunOperands& o) {
  const size_t m = c.m, n = c.n, k = c.k;
  if (given.a.empty() && given.b.empty()) {
    o.drawn = drawn_operands(c);
    o.a = o.drawn->a, o.bt = o.drawn->b, o.bias = o.drawn->bias;
    return {};
  }
  if (given.a.size() != m * k)
    return Error{"the input holds " + std::to_string(given.a.size()) + " values, the shape needs " +
                 std::to_string(m * k)};
  if (given.b.size() != n * k)
    return Error{"the weight holds " + std::to_string(given.b.size()) + " values, the shape needs " +
                 std::to_string(n * k)};
  if (c.bias && given.bias.empty()) o.own.bias = generate(c.bias_data, 1, n, c.seed, kBiasId, k);
  o.bias = given.bias.empty() ? std::span<const double>(o.own.bias) : std::span<const double>(given.bias);
  if (c.bias && o.bias.size() != n)
    return Error{"the bias holds " + std::to_string(o.bias.size()) + " values, the output has " + std::to_string(n) +
                 " columns"};
  if (c.weight_scaling.kind == ScalingKind::PerTensorDelayed)
    return Error{
        "delayed scaling draws its amax history from the data source: a weight loaded from a file has none (use "
        "per-tensor)"};
  o.a = given.a;
  if (c.op == MatmulOp::Linear) {
    o.bt = given.b;
  } else {
    o.own.b = transpose(given.b, k, n);
    o.bt = o.own.b;
  }
  return {};
}

// Rounds the operands into their dtypes (and the bias into its own), and reports each.
Status quantise_operands(const MatmulConfig& c, RunOperands& o, MatmulResult& r, const std::atomic<bool>* cancel) {
  const size_t m = c.m, n = c.n, k = c.k;
  // Delayed scaling's amax history: earlier tensors from the operand's data source (0 when the
  // recipe is another; empty when cancelled).
  auto history_amax = [&](const Scaling& s, const DataSource& data, size_t rows, uint64_t id) -> std::optional<double> {
    if (s.kind != ScalingKind::PerTensorDelayed) return 0.0;
    return drawn_amax(data, rows, k, c.seed, kHistoryId + id * 4096, s.history, k, cancel);
  };
  const std::optional<double> a_hist = history_amax(c.input_scaling, c.input_data, m, kInputId);
  const std::optional<double> b_hist = history_amax(c.weight_scaling, c.weight_data, n, kWeightId);
  if (!a_hist || !b_hist) return Error{"cancelled"};
  // Drawn operands rounded the same way by the run before are taken from it (quantised_cache.h).
  auto quantised = [&](QuantiseSlot slot, std::span<const double> x, size_t rows, DType dtype, std::optional<DType> via,
                       const Scaling& s, double hist) {
    const CastOptions cast = stream_options(c, slot == QuantiseSlot::Input ? kInputStream : kWeightStream);
    const QuantiseKey key{rows, k, dtype, via, s, cast, hist};
    return quantised_cached(o.drawn, slot, key, [&] { return quantise_stored(x, rows, k, dtype, via, s, cast, hist); });
  };
  // The two operands are rounded side by side (each also splits its rows between the cores),
  // or one after the other on a run capped at one thread.
  auto quantise_weight = [&] {
    o.qb = quantised(QuantiseSlot::Weight, o.bt, n, c.weight, c.weight_via, c.weight_scaling, *b_hist);
  };
  const unsigned half = share_of_limit(2);  // each operand's share of a capped run
  std::thread weight_thread;
  std::exception_ptr weight_failed, input_failed;  // rethrown here once both are done
  if (allowed_threads(0) > 1) {
    weight_thread = std::thread([&] {
      try {
        const ThreadLimit limit(half);
        quantise_weight();
      } catch (...) {
        weight_failed = std::current_exception();
      }
    });
  }
  try {
    const ThreadLimit limit(half);
    o.qa = quantised(QuantiseSlot::Input, o.a, m, c.input, c.input_via, c.input_scaling, *a_hist);
  } catch (...) {
    input_failed = std::current_exception();
  }
  if (weight_thread.joinable()) weight_thread.join();
  else if (!input_failed) quantise_weight();
  for (const auto& e : {input_failed, weight_failed})
    if (e) std::rethrow_exception(e);
  if (c.bias) o.qbias = quantise_stored(o.bias, 1, n, *c.bias, c.bias_via, Scaling{}, stream_options(c, kBiasStream));
  r.input_report = report(c.input, c.input_via, c.input_scaling, c.cast, *o.qa);
  r.weight_report = report(c.weight, c.weight_via, c.weight_scaling, c.cast, *o.qb);
  if (c.bias) r.bias_report = report(*c.bias, c.bias_via, Scaling{}, c.cast, o.qbias);
  return {};
}

// The exact product of the operands as given and of their rounded values (each with its bias):
// the references the error components are measured against.
Status make_references(const MatmulConfig& c, const RunOperands& o, Workers& workers, MatmulResult& r,
                       const std::atomic<bool>* cancel) {
  const GemmShape shape{c.m, c.n, c.k};
  const bool high = double_double_reference(c);
  {
    // (Drawn operands are owned by `drawn`; a user's are hashed on every run.)
    CachedReference ref = reference_product(c.backend, shape, o.a, o.bt, high, cancel, o.drawn, o.drawn);
    r.reference = std::move(ref.values);
    r.reference_method = std::move(ref.method);
  }
  if (!r.reference) return Error{"cancelled"};
  r.rounded_reference =
      reference_product(c.backend, shape, o.qa->dequantised(), o.qb->dequantised(), high, cancel, o.qa, o.qb).values;
  if (!r.rounded_reference) return Error{"cancelled"};
  if (!c.bias) return {};
  // (A new array each: the cache's references are shared.)
  for (const auto& pair :
       {std::pair{&r.reference, o.bias}, std::pair{&r.rounded_reference, std::span<const double>(o.qbias.values)}}) {
    Held* const ref = pair.first;  // (named, not bound: clang 14 cannot capture a structured binding)
    const std::span<const double> row = pair.second;
    auto plus = workers.run(workers.holds(*ref), "add the bias to the reference", r.backend_note,
                            [&](Backend& b) { return b.add_to_rows(*ref, row); });
    if (!plus) return Error{plus.error(), plus.environment_failure()};
    *ref = std::move(plus).value();
  }
  return {};
}

OutputSteps output_steps(const MatmulConfig& c, const RunOperands& o) {
  return {c.m,
          c.n,
          c.accumulate,
          o.qa->row_factor,
          o.qb->row_factor,
          c.bias ? std::span<const double>(o.qbias.values) : std::span<const double>(),
          c.output,
          stream_options(c, kOutputStream)};
}

// The product under the config's model, then its epilogue and output rounding.
Status compute_output(const MatmulConfig& c, const RunOperands& o, Workers& workers, MatmulResult& r,
                      const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
  const ProductSpec product_spec{{c.m, c.n, c.k},
                                 product_dtype(c.input, c.input_scaling),
                                 product_dtype(c.weight, c.weight_scaling),
                                 c.accumulate,
                                 c.fast_accumulation};
  // The quantised operands' owners let a device keep its copies of them for the next run.
  auto sums = backend_product(c.backend, product_spec, o.qa->values, o.qb->values, {progress, cancel, o.qa, o.qb}, r);
  if (!sums) return Error{sums.error(), sums.environment_failure()};
  // A device's note names the dtypes it was asked to multiply: group-scaled integers arrive as
  // their float32 values, and a note saying "float32" would not say the weights were int4.
  const bool product_fell_back = !r.backend_note.empty() && r.product_backend == "cpu";
  for (const auto& [role, dtype, scaling] : {std::tuple{"inputs", c.input, c.input_scaling},
                                             std::tuple{"weights", c.weight, c.weight_scaling}})
    if (product_fell_back && product_dtype(dtype, scaling) != dtype)
      r.backend_note += std::string(" (the ") + std::string(name(dtype)) + " " + role +
                        ", scaled by groups, are multiplied as their float32 values)";
  const OutputSteps steps = output_steps(c, o);
  const bool on_device = workers.holds(*sums);
  // (The CPU's own call takes the sums: a product's fresh vector is then worked on in place.)
  auto out = workers.run(on_device, "finish the output", r.backend_note, [&](Backend& b) {
    return b.finish_output(steps, on_device ? *sums : std::move(sums).value());
  });
  if (!out) return Error{out.error(), out.environment_failure()};
  r.accumulated = std::move(out->accumulated);
  r.result = std::move(out->result);
  return {};
}

// The error components, the arithmetic error against the model's bounds, and the heat map.
Status analyse(const MatmulConfig& c, const RunOperands& o, Workers& workers, MatmulResult& r) {
  const size_t m = c.m, n = c.n, k = c.k;
  auto t0 = Clock::now();
  // The arithmetic error against the model's bounds, relative to (|A||B|)_ij + |b_j|; each
  // epilogue step (scale, bias) is one more rounding in the accumulator's format, and an int32
  // sum's conversion to float32 one more (with_roundings_after).
  // (|A||B|)_ij only scales the bound check, so float32 (sgemm, relative error ~k 2^-24 on
  // nonnegative sums) is accurate enough and costs half a dgemm. The comparison allows for it.
  // Kept from the run before when quantised_cache.h handed both operands back.
  bool abs_hit = false;
  const std::shared_ptr<const AbsProduct> abs = abs_product_of(c.backend, {m, n, k}, o.qa, o.qb, &abs_hit);
  r.bound_method = abs->method + (abs_hit ? " (kept from the run before)" : "");
  if (!abs->note.empty()) r.backend_note += (r.backend_note.empty() ? "" : "; ") + abs->note;
  const std::span<const float> abs_prod = abs->values();
  r.seconds.abs_product = since(t0);
  // The sgemm's |A||B| is 2^scale times the real one, and a little high.
  const double abs_prod_slack = std::ldexp(1.0 - std::min(0.5, static_cast<double>(k + 2) * 0x1p-24), -abs->scale);
  const size_t epilogue_steps = (output_steps(c, o).scaled() ? 1 : 0) + (c.bias ? 1 : 0);
  r.epilogue_roundings = epilogue_steps;
  const std::optional<int> bits_a = significant_bits(c.input, c.input_scaling),
                           bits_b = significant_bits(c.weight, c.weight_scaling);
  const bool exact = bits_a && bits_b && exact_products(c.accumulate, *bits_a + *bits_b);
  const bool int32 = c.accumulate.kind == AccumKind::Int32;  // exact sums, then converted to float32
  const double epilogue_u = unit_roundoff(result_dtype(c.accumulate), c.accumulate.rounding);
  const double sum_u = accumulation_unit(c.accumulate);
  // A model that rounds at each addition, with the epilogue's u no larger, takes gamma_{K+s}, the
  // name its figures and lines give it (a little above the composition, and as valid).
  if (rounds_at_each_addition(c.accumulate.kind) && epilogue_u <= sum_u)
    r.bounds = accumulation_bounds(c.accumulate, k + epilogue_steps, exact);
  else
    r.bounds =
        with_roundings_after(accumulation_bounds(c.accumulate, k, exact), epilogue_steps + (int32 ? 1 : 0), epilogue_u);
  // The BLAS model's bound is float32's, for a library that adds as float32 does. cuBLASLt runs
  // float32, and the pairs it takes as float32 values, on the CUDA cores (PEDANTIC), which do; its
  // tensor cores add otherwise (the accumulation probe's records on H100 and H200), so the device
  // can pass the bound, and the note says so rather than the bound seeming broken.
  const DType in = product_dtype(c.input, c.input_scaling), w = product_dtype(c.weight, c.weight_scaling);
  const auto wide = [](DType t) { return t == DType::float32 || t == DType::float64; };
  const auto float8 = [](DType t) { return is_float(t) && value_bits(t) == 8; };
  const auto half = [](DType t) { return t == DType::float16 || t == DType::bfloat16; };
  if (c.accumulate.kind == AccumKind::Blas && c.accumulate.format == DType::float32 && r.product_backend != "cpu" &&
      !(wide(in) && wide(w)) && r.product_method.find("values as float32") == std::string::npos) {
    std::string how;
    if (float8(in) || float8(w))
      how =
          "the GPU library's tensor cores keep about 14 bits of these float8 products' partial sums between float32 "
          "promotions (the accumulation probe's record on H100 and H200)";
    else if (in == DType::tf32 || w == DType::tf32)
      how =
          "the GPU library's tensor cores keep these tf32 products' sums to float32's 24 bits, truncated (the "
          "accumulation probe's directed tests on H100 and H200; how the adder groups them is not modelled)";
    else if (half(in) && half(w))
      how =
          "the GPU library's tensor cores add these products 16 at a time, each block's sum cut toward zero to "
          "float32's 24 bits (the accumulation probe's record on H100 and H200)";
    else how = "no accumulation probe recorded how the GPU library adds these products";
    r.bound_note = "the bound is the float32 model's: " + how + ", so its error can pass it";
  }
  const BoundInputs bound{
      abs_prod, abs_prod_slack, c.bias ? std::span<const double>(o.qbias.values) : std::span<const double>(),
      n,        r.bounds,       abs};
  const Clock::time_point t_stats = Clock::now();
  auto check = measure_components(r, bound);
  if (!check) return Error{check.error(), check.environment_failure()};
  r.seconds.statistics = since(t_stats);
  r.compared = check->compared;
  r.max_scaled_arithmetic = check->max_scaled;
  r.within_deterministic = check->within_deterministic;
  r.within_probabilistic = check->within_probabilistic;
  r.scaled_arithmetic = check->scaled;
  // The heat map, where the arrays are: the window never needs them whole.
  const Clock::time_point t_map = Clock::now();
  auto map = workers.run(workers.holds(r.result), "pool the heat map", r.backend_note,
                         [&](Backend& b) { return b.pooled_difference(r.result, r.reference, m, n, kErrorMapCells); });
  if (!map) return Error{map.error(), map.environment_failure()};
  r.error_map = std::move(map).value();
  r.seconds.heat_map = since(t_map);
  r.seconds.analysis = since(t0);
  return {};
}

}  // namespace

Expected<MatmulResult> run_matmul(const MatmulConfig& c, const MatmulOperands& given,
                                  const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
  if (auto st = check(c); !st) return Error{st.error()};
  // Refused here, not allocated into std::bad_alloc or the OOM killer (memory_room.h).
  if (auto st = check_room(working_memory_bytes(c), "the shape", memory_room()); !st) return Error{st.error()};
  const ThreadLimit run_threads(c.threads);  // every stage below, and OpenBLAS (0: all cores)
  auto report_progress = [&](double f) {
    if (progress) progress(f);
  };
  auto cancelled = [&] { return cancel && cancel->load(); };
  MatmulResult r;
  r.config = c;
  RunOperands o;
  std::optional<Workers> workers;  // the device opened in the reference stage, its first use
  // Each stage is timed, then reports its share of the progress; a cancel between stages stops.
  struct Stage {
    double* seconds;
    double done;  // the progress when it has run
    std::function<Status()> run;
  };
  const Stage stages[] = {
      {&r.seconds.generate, 0.05, [&] { return take_operands(c, given, o); }},
      {&r.seconds.quantise, 0.1, [&] { return quantise_operands(c, o, r, cancel); }},
      {&r.seconds.reference, 0.2,
       [&] {
         workers.emplace(c.backend);
         return make_references(c, o, *workers, r, cancel);
       }},
      {&r.seconds.product, 0.85,
       [&] {
         return compute_output(
             c, o, *workers, r, [&](double f) { report_progress(0.2 + 0.65 * f); }, cancel);
       }},
      {nullptr, 1.0, [&] { return analyse(c, o, *workers, r); }},  // (times its own parts)
  };
  for (const Stage& s : stages) {
    const auto t0 = Clock::now();
    if (auto st = s.run(); !st) return Error{st.error(), st.environment_failure()};
    if (s.seconds) *s.seconds = since(t0);
    report_progress(s.done);
    if (s.done < 1.0 && cancelled()) return Error{"cancelled"};
  }
  return r;
}

// ---- report lines ----------------------------------------------------------------

double largest_max_ulp(const MatmulResult& r) {
  double largest = 0;
  for (const ErrorComponent* e : {&r.total, &r.input, &r.arithmetic, &r.output})
    if (e->stats.count > 0) largest = std::max(largest, e->stats.max_ulp);
  return largest;
}

std::string outright_line(const MatmulResult& r) {
  const ErrorStats& t = r.total.stats;
  if (!(t.nan || t.inf || t.saturated || t.flushed)) return "";
  char buf[200];
  std::snprintf(buf, sizeof buf, "outright: %zu NaN, %zu overflow to Inf%s, %zu saturated, %zu rounded to zero", t.nan,
                t.inf, t.nan || t.inf ? " (not in the statistics)" : "", t.saturated, t.flushed);
  return buf;
}

MatmulBoundNames matmul_bound_names(const MatmulResult& r) {
  const BoundNames named = bound_names(r.config.accumulate.kind);
  MatmulBoundNames n{std::string(named.worst), std::string(named.probable), std::string(named.none_when), "K"};
  // A scale or a bias after the sum is one more rounding each: the bound of a scaled fp8 product
  // is gamma_{K+1}, and it stops existing where (K+1) u reaches one.
  if (r.epilogue_roundings > 0 && rounds_at_each_addition(r.config.accumulate.kind)) {
    n.length = "K+" + std::to_string(r.epilogue_roundings);
    n.worst = "gamma_{" + n.length + "}";
    n.probable = "sqrt(" + n.length + ") u";
    n.none_when = "(" + n.length + ") u >= 1";
  }
  return n;
}

std::string bounds_line(const MatmulResult& r) {
  if (r.compared == 0)
    return "arithmetic error / (|A||B|): no element to compare (every accumulated value is Inf or NaN, or every "
           "|A||B| is zero)";
  char buf[256];
  std::snprintf(buf, sizeof buf, "arithmetic error / (|A||B|): max %.3e; ", r.max_scaled_arithmetic);
  std::string line = buf;
  const MatmulBoundNames named = matmul_bound_names(r);
  if (std::isfinite(r.bounds.deterministic))
    std::snprintf(buf, sizeof buf, "%s %s (%s within); ", named.worst.c_str(),
                  gamma_text(r.bounds.deterministic).c_str(), share_text(r.within_deterministic, r.compared).c_str());
  else std::snprintf(buf, sizeof buf, "no %s (%s); ", named.worst.c_str(), named.none_when.c_str());
  line += buf;
  // A compensated sum's estimate is its bound (estimate_is_the_bound): the same number twice
  // would read as two findings.
  if (estimate_is_the_bound(r.bounds))
    std::snprintf(buf, sizeof buf, "%s: the bound itself (its leading term is a fixed number of roundings, not K)",
                  named.probable.c_str());
  else
    std::snprintf(buf, sizeof buf, "%s %s (%s within)", named.probable.c_str(),
                  bound_value_text(r.bounds.probabilistic).c_str(),
                  share_text(r.within_probabilistic, r.compared).c_str());
  return line + buf + (r.bound_note.empty() ? "" : "; " + r.bound_note);
}

}  // namespace pl::experiment
