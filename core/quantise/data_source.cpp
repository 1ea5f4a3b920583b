#include "core/quantise/data_source.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>

#include "core/dtype/codec.h"
#include "core/quantise/amax.h"
#include "core/util/names.h"
#include "core/util/number_text.h"
#include "core/util/parallel.h"

namespace pl::experiment {
namespace {

constexpr std::array<std::string_view, kDistributionCount> kNames = {"normal", "uniform", "torch-linear", "heavy-tailed",
                                                    "outlier-channels"};
// In kNames' order (Distribution's, said for a reader).
constexpr std::array<std::string_view, kDistributionCount> kSummaries = {
    "normal, N(0, 1) unless a file sets the scale", "uniform on [-1, 1] unless a file sets the scale",
    "nn.Linear's default initialisation: uniform on [-1/sqrt(K), 1/sqrt(K)]",
    "Student's t with 3 degrees of freedom unless a file sets them: rare values far from the rest",
    "normal, with 1% of the columns (channels, at least one) 20 times larger, as in LLM activations "
    "(LLM.int8())"};

// SplitMix64's finaliser: a well-mixed seed for each (seed, tensor, row) stream.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t stream_seed(uint64_t seed, uint64_t tensor_id, uint64_t row) { return mix(mix(mix(seed) ^ tensor_id) ^ row); }

}  // namespace

std::string_view distribution_name(Distribution d) { return kNames[static_cast<int>(d)]; }

std::string_view distribution_summary(Distribution d) { return kSummaries[static_cast<int>(d)]; }

std::optional<Distribution> parse_distribution(std::string_view n) { return find_named<Distribution>(kNames, n); }

std::string distribution_names(std::string_view separator) { return join_names(kNames, separator); }

namespace {
std::string describe_draw(const DataSource& s) {
  const std::string name(distribution_name(s.distribution));
  switch (s.distribution) {
    case Distribution::TorchLinear: return name;
    case Distribution::HeavyTailed:
      return name + "(t, " + shortest_double(s.dof) + " dof, scale " + shortest_double(s.scale) + ")";
    case Distribution::OutlierChannels:
      return name + "(" + shortest_double(100 * s.outlier_fraction) + "% x" + shortest_double(s.outlier_gain) +
             ", scale " + shortest_double(s.scale) + ")";
    default: return name + "(scale " + shortest_double(s.scale) + ")";
  }
}
}  // namespace

std::string describe(const DataSource& s) {
  std::string d = describe_draw(s);
  if (s.stored_as) d.append(", stored as ").append(name(*s.stored_as));
  return d;
}

Status check(const DataSource& s) {
  if (!(s.scale > 0) || !std::isfinite(s.scale)) return Error{"scale must be a positive number"};
  if (s.distribution == Distribution::HeavyTailed && !(s.dof > 0 && std::isfinite(s.dof)))
    return Error{"degrees of freedom must be a positive number"};
  if (s.distribution == Distribution::OutlierChannels) {
    if (!(s.outlier_fraction > 0 && s.outlier_fraction <= 1)) return Error{"outlier fraction must lie in (0, 1]"};
    if (!(s.outlier_gain > 0) || !std::isfinite(s.outlier_gain)) return Error{"outlier gain must be a positive number"};
  }
  if (s.stored_as && !is_float(*s.stored_as))
    return Error{"stored_as must be a float dtype ('" + std::string(name(*s.stored_as)) + "' is not)"};
  return {};
}

std::string source_key(const DataSource& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d %a %a %a %a", static_cast<int>(s.distribution), s.scale, s.dof, s.outlier_fraction,
                s.outlier_gain);
  std::string key = buf;
  if (s.stored_as) key.append(" ").append(name(*s.stored_as));
  return key;
}

std::optional<double> drawn_amax(const DataSource& s, size_t rows, size_t cols, uint64_t seed, uint64_t first_id,
                                 int count, size_t fan_in, const std::atomic<bool>* cancel, bool* hit) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "; %zu %zu %llu %llu %d %zu", rows, cols, static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(first_id), count, fan_in);
  const std::string key = source_key(s) + buf;
  static std::mutex lock;
  static std::map<std::string, double> kept;  // cleared when it reaches 64 entries
  if (hit) *hit = false;
  {
    const std::lock_guard hold(lock);
    if (auto it = kept.find(key); it != kept.end()) {
      if (hit) *hit = true;
      return it->second;
    }
  }
  double amax = 0;
  for (int h = 0; h < count; ++h) {
    if (cancel && cancel->load()) return std::nullopt;
    amax = std::max(amax, tensor_amax(generate(s, rows, cols, seed, first_id + static_cast<uint64_t>(h), fan_in)));
  }
  const std::lock_guard hold(lock);
  if (kept.size() >= 64) kept.clear();
  kept[key] = amax;
  return amax;
}

std::vector<size_t> outlier_columns(const DataSource& s, size_t cols, uint64_t seed, uint64_t tensor_id) {
  if (s.distribution != Distribution::OutlierChannels || cols == 0) return {};
  const size_t count =
      std::clamp<size_t>(static_cast<size_t>(std::llround(s.outlier_fraction * static_cast<double>(cols))), 1, cols);
  std::vector<size_t> all(cols);
  for (size_t i = 0; i < cols; ++i) all[i] = i;
  std::mt19937_64 rng(stream_seed(seed, tensor_id, ~uint64_t{0}));
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(count);
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<double> generate(const DataSource& s, size_t rows, size_t cols, uint64_t seed, uint64_t tensor_id,
                             size_t fan_in) {
  std::vector<double> out(rows * cols);
  std::vector<double> gain(cols, 1.0);
  for (size_t c : outlier_columns(s, cols, seed, tensor_id)) gain[c] = s.outlier_gain;
  const double torch_bound = 1.0 / std::sqrt(static_cast<double>(fan_in ? fan_in : cols));
  // Rows in parallel; each row has its own stream, so the result does not depend on threads.
  parallel_for(rows * cols, 0, [&](size_t begin, size_t end) {
    for (size_t r = begin / cols; r * cols < end; ++r) {
      std::mt19937_64 rng(stream_seed(seed, tensor_id, r));
      double* row = out.data() + r * cols;
      // A row split across two chunks is drawn whole by both (same stream, same values);
      // each thread writes only its own part.
      const size_t c0 = std::max(begin, r * cols) - r * cols;
      const size_t c1 = std::min(end, (r + 1) * cols) - r * cols;
      auto fill = [&](auto&& dist, double mul) {
        for (size_t c = 0; c < cols; ++c) {
          const double v = dist(rng) * mul * gain[c];
          if (c >= c0 && c < c1) row[c] = v;
        }
      };
      switch (s.distribution) {
        case Distribution::Normal:
        case Distribution::OutlierChannels: fill(std::normal_distribution<double>(0.0, 1.0), s.scale); break;
        case Distribution::Uniform: fill(std::uniform_real_distribution<double>(-1.0, 1.0), s.scale); break;
        case Distribution::TorchLinear: fill(std::uniform_real_distribution<double>(-1.0, 1.0), torch_bound); break;
        case Distribution::HeavyTailed: fill(std::student_t_distribution<double>(s.dof), s.scale); break;
      }
    }
  });
  if (s.stored_as) round_each(info(*s.stored_as).format, out, out, CastOptions{});
  return out;
}

}  // namespace pl::experiment
