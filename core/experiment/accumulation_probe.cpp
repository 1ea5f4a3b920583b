#include "core/experiment/accumulation_probe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>

#include "core/accumulate/accumulation_spec.h"
#include "core/accumulate/gemm.h"
#include "core/promote/outcome.h"
#include "core/dtype/codec.h"
#include "core/experiment/dot_sweep.h"
#include "core/util/number_text.h"

namespace pl::experiment {
namespace {

constexpr size_t kRows = 16;  // m = n: a tensor-core tile; row 0 carries the probe

bool holds(const FloatFormat& f, double x) { return std::isfinite(x) && round_to(f, x, {}) == x; }

// significand x 2^e (significand 1 or 1.5) as x * y, both numbers of `f`, split as evenly as the
// format allows (x carries the significand).
std::optional<std::pair<double, double>> split(double significand, int e, const FloatFormat& f) {
  for (int d = 0; d <= 400; ++d)
    for (int side : {1, -1}) {
      const int e1 = e / 2 + side * d, e2 = e - e1;
      const double x = std::ldexp(significand, e1), y = std::ldexp(1.0, e2);
      if (holds(f, x) && holds(f, y)) return std::pair{x, y};
      if (d == 0) break;
    }
  return std::nullopt;
}

// significand x 2^exponent, negated when `negative`. A significand of 1.5 makes a sum of two
// powers of two one term: a sum of one term and 1 is rounded once whatever order the backend
// adds in.
struct Term {
  int exponent;
  bool negative = false;
  double significand = 1.0;
};

class Prober {
 public:
  Prober(Backend& b, ProductSpec base) : backend_(b), base_(base), format_(info(base.a).format) {}

  // The dot product of the terms, as the backend computes it: term i at position places[i] along
  // K (at position i when `places` is empty). The terms are scaled by a common power of two when
  // the input format cannot hold them as they are (float8's range); the result is scaled back
  // (exactly).
  Expected<double> dot(const std::vector<Term>& terms, const std::vector<size_t>& places = {}) {
    for (int shift = 0; shift <= 120; shift = shift <= 0 ? 1 - shift : -shift) {
      std::vector<std::pair<double, double>> factors;
      for (const Term& t : terms) {
        auto xy = split(t.significand, t.exponent + shift, format_);
        if (!xy) break;
        factors.push_back({t.negative ? -xy->first : xy->first, xy->second});
      }
      if (factors.size() != terms.size()) continue;
      const size_t used = places.empty() ? terms.size() : *std::max_element(places.begin(), places.end()) + 1;
      const size_t k = (used + kRows - 1) / kRows * kRows;
      std::vector<double> a(kRows * k, 0.0), b(kRows * k, 0.0);
      for (size_t i = 0; i < factors.size(); ++i) {
        const size_t at = places.empty() ? i : places[i];
        a[at] = factors[i].first, b[at] = factors[i].second;
      }
      ProductSpec s = base_;
      s.shape = {kRows, kRows, k};
      auto run = backend_.product(s, a, b, {});
      if (!run) return Error{run.error()};
      method_ = run->method;
      return std::ldexp(run->c[0], -shift);
    }
    return Error{std::string(name(base_.a)) + " cannot hold these terms at any common scale"};
  }
  const std::string& method() const { return method_; }

 private:
  Backend& backend_;
  ProductSpec base_;
  const FloatFormat& format_;
  std::string method_;
};

// By its own digits: "exact 1.0000001192092896" (the shortest decimal) is not 1 + 2^-23.
std::string show(double v) { return float64_text(v); }

const std::string kNormalisation = "normalisation of partial sums (raising one term by 2^-w)";

// significand x 2^exponent for an odd count of units 2^unit_exp: a Term.
Term units(int count, int unit_exp) {
  const int m = std::bit_width(unsigned(count)) - 1;
  return {unit_exp + m, false, std::ldexp(double(count), -m)};
}

// 6. Normalisation (Fasi, Higham, Mikaitis and Pranesh, section "Features of the accumulator";
// Mikaitis, "Monotonicity of multi-term floating-point adders", 2024). An adder that rounds
// after each addition is monotone in every order: raising a term never lowers the sum. A
// multi-term adder aligns a block's terms -- the running sum among them -- to the largest, and
// keeps `extra` bits below the last place there: when the running sum rises from 1 - 2^-w to 1,
// the window moves up one place and small terms it held vanish.
//
// Sum A: terms of the input format's precision summing to 1 - 2^-w exactly (1 - 2^-p,
// 2^-p (1 - 2^-p), ...), then, from position `at` along K, small terms of 2^-(w + extra): n - 1
// of one unit and one of v units, 3 x 2^extra units in all, so that an adder that sees them
// reaches exactly 1 + 2^(1-w). Sum B raises the last of the first terms by 2^-w, so that they
// sum to 1: each unit term is then below the window, v (odd) loses one unit, and what is left
// is less than what the final rounding keeps (a unit in the last place truncating, half of one
// to nearest) -- B comes back as 1, below A. Where the block boundary is not known, the small
// terms are tried from positions 4, 8, ..., 128: the first that shows it is the block.
ProbeFinding normalisation(Prober& probe, ProbeReport& r, int input_precision, int w, int extra, bool truncating) {
  ProbeFinding f{kNormalisation, "not run", ""};
  // Unit terms and v: the fewest that keep B's survivors under its rounding's threshold (v = 1,
  // n = total, always qualifies).
  const int total = 3 << extra, threshold = truncating ? 2 << extra : 1 << extra;
  int v = 1, n = total;
  for (int cand = total; cand >= 1; --cand)
    if ((cand & 1) && cand - 1 < threshold) {
      v = cand;
      n = total - cand + 1;
      break;
    }
  constexpr int kMaxSmall = 64;
  if (n > kMaxSmall) {
    f.evidence = "an adder that sees " + std::to_string(extra) + " extra bits needs " + std::to_string(n) +
                 " small terms in one block to show it (at most " + std::to_string(kMaxSmall) + " are tried)";
    return f;
  }
  // The first terms: chunks of the input's precision, the last one shorter.
  std::vector<Term> first;
  for (int top = 0; top < w; top += input_precision) {
    const int bits = std::min(input_precision, w - top);  // 2^-top (1 - 2^-bits)
    first.push_back({-top - 1, false, 2 - std::ldexp(1.0, 1 - bits)});
  }
  std::vector<Term> raised = first;
  const int last_top = (w - 1) / input_precision * input_precision;
  raised.back() = {-last_top, false, 1.0};  // 2^-top (1 - 2^-bits) + 2^-w: a power of two
  std::vector<Term> small(size_t(n - 1), Term{-(w + extra)});
  small.push_back(units(v, -(w + extra)));
  const double up = 1 + std::ldexp(1.0, 1 - w);
  std::vector<Term> a = first, b = raised;  // sums A and B; only their places along K vary
  a.insert(a.end(), small.begin(), small.end());
  b.insert(b.end(), small.begin(), small.end());
  std::string tried;
  for (size_t at : {4, 8, 16, 32, 64, 128}) {
    if (at < first.size()) continue;
    std::vector<size_t> places;
    for (size_t i = 0; i < first.size(); ++i) places.push_back(i);
    for (size_t i = 0; i < small.size(); ++i) places.push_back(at + i);
    auto sa = probe.dot(a, places), sb = probe.dot(b, places);
    if (!sa || !sb) {
      f.evidence = sa ? sb.error() : sa.error();
      return f;
    }
    tried += (tried.empty() ? "" : ", ") + std::to_string(at);
    if (*sa > *sb) {
      r.block_terms = int(at);
      r.extra_bits = extra;
      f.answer = "once per block of " + std::to_string(at) + " products (a multi-term adder, " + std::to_string(extra) +
                 " extra bits)";
      f.evidence = "terms summing to 1 - 2^-" + std::to_string(w) + ", then " + std::to_string(n) +
                   " small ones from K = " + std::to_string(at) + ": got " + show(*sa) + " (exact " + show(up) +
                   "); one term raised by 2^-" + std::to_string(w) + ": got " + show(*sb) + ", lower";
      return f;
    }
  }
  f.answer = "no sign of a multi-term adder";
  f.evidence = "raising one term never lowered the sum (" + std::to_string(n) + " small terms from K = " + tried +
               "): an adder that normalises after each addition, or blocks shorter than the small terms";
  return f;
}

// The accumulator's precision in bits: what the probes measure against.
int accumulator_precision(const Accumulation& a) { return info(a.format).format.precision(); }

// 7. How well the model reproduces the device: a product of random inputs through the backend's
// library and through the model (on the CPU), compared element by element -- the check Khattak
// and Mikaitis ("Accurate models of NVIDIA tensor cores", 2025) make a model pass before they
// trust it. K covers several blocks and promotion intervals.
ProbeFinding model_check(Backend& backend, const ProductSpec& base, const Accumulation& model) {
  constexpr size_t kM = 64, kN = 64, kK = 1024;
  const std::string question = "the model against this device on random inputs (64 x 64 x 1024)";
  const FloatFormat& f = info(base.a).format;
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal;
  auto draw = [&](size_t count) {
    std::vector<double> v(count);
    for (double& x : v) x = round_to(f, normal(rng), {});
    return v;
  };
  const std::vector<double> a = draw(kM * kK), b = draw(kN * kK);
  ProductSpec s = base;
  s.shape = {kM, kN, kK};
  auto device = backend.product(s, a, b, {});
  if (!device) return {question, "not run", device.error()};
  auto emulated = gemm(s.shape, a, b, model);
  if (!emulated) return {question, "not run", emulated.error()};
  size_t same = 0, worst = 0;
  double worst_rel = 0;
  for (size_t e = 0; e < device->c.size(); ++e) {
    const double x = device->c[e], y = (*emulated)[e];
    same += std::memcmp(&x, &y, sizeof x) == 0;
    const double rel = y != 0 ? std::fabs(x - y) / std::fabs(y) : std::fabs(x);
    if (rel > worst_rel) worst_rel = rel, worst = e;
  }
  const size_t all = device->c.size();
  const std::string answer = std::to_string(same) + " of " + std::to_string(all) + " elements bit-identical" +
                             (same == all ? "" : " (" + share_text(same, all) + ")");
  // (Both sides named: "against f32:sequential" alone read as the model's own name for the device.)
  const std::string evidence =
      "N(0,1) inputs rounded to " + std::string(name(base.a)) + ", seed 1: the device's " +
      accumulation_spec(base.accumulate) + " product against the model " + accumulation_spec(model) +
      (same == all ? ""
                   : "; the largest difference, relative to the model's element, " + error_size_text(worst_rel, 3) +
                         ", at (" + std::to_string(worst / kN) + ", " + std::to_string(worst % kN) + ")");
  return {question, answer, evidence};
}

// The library product every probe runs (its shape aside), if the backend has it.
Expected<ProductSpec> probed_product(Backend& backend, DType input, const Accumulation& acc, bool fast_accumulation) {
  if (auto st = check_probe_request(input, acc); !st) return Error{st.error()};
  const ProductSpec base{{kRows, kRows, kRows}, input, input, acc, fast_accumulation};
  if (Support s = backend.supports_product(base); !s.ok) return Error{s.why_not};
  return base;
}

}  // namespace

Status check_probe_request(DType input, const Accumulation& acc) {
  if (acc.kind == AccumKind::Int32) return Error{"integer sums are exact: there is nothing to probe"};
  if (!is_float(input)) return Error{std::string(name(input)) + ": the probes need a float input dtype"};
  // (Refused before any probe: only the last would find it, after the others ran through sgemm.)
  if (acc.kind == AccumKind::Blas && acc.format == DType::float32 && !promote::holds_every_value(input, DType::float32))
    return Error{"f32:blas, the float32 library product, takes float32 values: " + std::string(name(input)) +
                 " has more bits (probe f64:blas)"};
  return {};
}

Expected<ProbeFinding> check_model(Backend& backend, DType input, const Accumulation& acc, bool fast_accumulation,
                                   const Accumulation& model) {
  auto base = probed_product(backend, input, acc, fast_accumulation);
  if (!base) return Error{base.error()};
  return model_check(backend, *base, model);
}

namespace {

void not_run(ProbeReport& r, const std::string& question, const std::string& why) {
  r.findings.push_back({question, "not run", why});
}

// 1. Bits a partial sum keeps: 1 followed by 15 terms 2^-e (one 16-term block); the largest
// e whose terms all count, plus one, is the partial sum's precision (0: not found).
int probe_kept_bits(Prober& probe, ProbeReport& r, int p) {
  const std::string q = "bits a partial sum keeps (1, then 15 terms of 2^-e)";
  int kept = 0;
  std::string evidence;
  for (int e = 2; e <= p + 1; ++e) {
    std::vector<Term> t{{0}};
    for (int i = 0; i < 15; ++i) t.push_back({-e});
    auto v = probe.dot(t);
    if (!v) {
      evidence = "stopped at e = " + std::to_string(e) + ": " + v.error();
      break;
    }
    if (*v != 1 + 15 * std::ldexp(1.0, -e)) {
      evidence = "e = " + std::to_string(e) + ": got " + show(*v) + ", exact " + show(1 + 15 * std::ldexp(1.0, -e));
      break;
    }
    kept = e + 1;
  }
  if (kept == 0) not_run(r, q, evidence);
  else r.findings.push_back({q, std::to_string(kept) + " bits (float32 keeps 24)", evidence});
  r.accumulator_bits = kept;
  return kept;
}

struct SumRounding {
  bool ran = false;  // both probes gave a value
  bool nearest = false, truncating = false;
};

// 2. Rounding of a sum: 1 + 0.75 ulp, and its negative. Two terms, so one rounding in any
// order: three terms (2^-(w+1), 2^-w, 1) read OpenBLAS's Haswell and Zen kernels as truncating,
// which add the even and the odd positions along K apart (1 + 2^-(w+1) and 2^-w, each rounded
// to nearest, then a tie). An aligning adder drops the same bits of 1.5 x 2^-w as of its two
// halves.
SumRounding probe_sum_rounding(Prober& probe, ProbeReport& r, int width) {
  const double ulp = std::ldexp(1.0, 1 - width);  // of 1 in the partial sums
  const std::string q = "rounding of a sum (1 + 0.75 ulp, and -(1 + 0.75 ulp))";
  auto up = probe.dot({{-width, false, 1.5}, {0}});
  auto down = probe.dot({{-width, true, 1.5}, {0, true}});
  SumRounding s;
  if (!up || !down) {
    not_run(r, q, up ? down.error() : up.error());
    return s;
  }
  s.ran = true;
  const bool pos_up = *up == 1 + ulp, neg_up = *down == -(1 + ulp);
  s.nearest = pos_up && neg_up;
  s.truncating = !pos_up && !neg_up;
  r.truncating = s.truncating;
  const std::string answer = s.nearest      ? "to nearest"
                             : s.truncating ? "toward zero (truncation)"
                             : neg_up       ? "toward -infinity"
                                            : "toward +infinity";
  r.findings.push_back({q, answer,
                        "terms 1.5 x 2^" + std::to_string(-width) + " and 1: exact 1 + 0.75 ulp, got " + show(*up) +
                            "; negated: got " + show(*down)});
  return s;
}

// 3. Ties: 1 + 0.5 ulp and 1 + 1.5 ulp.
void probe_ties(Prober& probe, ProbeReport& r, int width, const SumRounding& s) {
  const double ulp = std::ldexp(1.0, 1 - width);
  const std::string q = "ties (1 + 0.5 ulp, 1 + 1.5 ulp)";
  if (!s.nearest) {
    not_run(r, q, s.ran ? "the sum is not rounded to nearest" : "needs the rounding found above");
    return;
  }
  auto t1 = probe.dot({{-width}, {0}});
  auto t2 = probe.dot({{1 - width, false, 1.5}, {0}});  // two terms, as above
  if (!t1 || !t2) return not_run(r, q, t1 ? t2.error() : t1.error());
  const bool even = *t1 == 1 && *t2 == 1 + 2 * ulp, away = *t1 == 1 + ulp && *t2 == 1 + 2 * ulp;
  r.findings.push_back({q,
                        even   ? "to even"
                        : away ? "away from zero"
                               : "neither (see evidence)",
                        "got " + show(*t1) + " and " + show(*t2)});
}

struct SeenBits {
  int bits = -1;       // -1: not run
  bool exact = false;  // else a lower bound (all the probe can tell, or the input's range)
};

// 4. Bits seen below the partial sums' last place while aligning the terms: a term 2^-j ulp
// below a tie (nearest) or below an exact value (truncation) changes the result only if the
// adder still sees it. The probe can tell up to p - 1 bits (a sequential adder's small
// partial sums stop being exact there).
//
// Three terms, so the order matters: where the small two meet first, their exact sum meets 1
// in one rounding. A rounding to nearest is tried in several places along K (the small terms
// before the 1, after it, two, four and eight positions apart: a sequential adder either way,
// and lanes of 2, 4 or 8 partial sums), and a term counts as seen where any place shows it --
// an adder that drops it (aligning, or rounding 1 + tie first) cannot bring it back. A
// truncating adder is tried in one block only: there the small terms' exact sum, ulp - tiny,
// truncated to the bits the adder keeps, would pull 1 + ulp down even when the adder drops
// the tiny term itself.
SeenBits probe_seen_bits(Prober& probe, ProbeReport& r, int width, const SumRounding& s) {
  const double ulp = std::ldexp(1.0, 1 - width);
  const std::string q = "bits seen below the last place";
  if (!s.nearest && !s.truncating) {
    not_run(r, q, "needs the rounding found above");
    return {};
  }
  const bool nearest = s.nearest;
  int seen = 0;
  bool limited = false;  // the input dtype cannot hold the next probe's terms
  std::string evidence;
  // Places of (tiny, other small term, 1) along K.
  const std::vector<std::vector<size_t>> places =
      nearest ? std::vector<std::vector<size_t>>{{0, 1, 2}, {1, 2, 0}, {0, 2, 1}, {0, 4, 1}, {0, 8, 1}}
              : std::vector<std::vector<size_t>>{{0, 1, 2}};
  for (int j = 1; j < width && !limited; ++j) {
    const std::vector<Term> terms =
        nearest ? std::vector<Term>{{-width - j}, {-width}, {0}}               // tie + tiny: up if seen
                : std::vector<Term>{{1 - width - j, true}, {1 - width}, {0}};  // 1 + ulp - tiny: down if seen
    bool saw = false;
    double got = 0;
    for (const auto& at : places) {
      auto v = probe.dot(terms, at);
      if (!v) {
        evidence = "stopped at " + std::to_string(j) + ": " + v.error();
        limited = true;
        break;
      }
      got = *v;
      if ((saw = nearest ? *v == 1 + ulp : *v == 1)) break;
    }
    if (limited) break;
    if (!saw) {
      evidence = "a term 2^-" + std::to_string(j) + " ulp below is lost (got " + show(got) +
                 (places.size() > 1 ? " in every order tried)" : ")");
      break;
    }
    seen = j;
  }
  const std::string answer = seen == width - 1 ? "at least " + std::to_string(seen) + " (all the probe can tell)"
                             : limited         ? "at least " + std::to_string(seen) + " (the input dtype's range)"
                                               : std::to_string(seen);
  r.findings.push_back(
      {q, answer,
       evidence.empty() ? "every term down to 2^-" + std::to_string(width - 1) + " ulp was seen" : evidence});
  return {seen, seen < width - 1 && !limited};
}

// 5. Promotion: with terms just below what a partial sum keeps, those added to the 1 are lost,
// but partial sums that start from zero keep them until they are promoted and added in full
// precision. 1 followed by 4095 such terms: the number lost, plus one, is the interval.
void probe_promotion(Prober& probe, ProbeReport& r, int kept, int p) {
  const std::string q = "products between promotions to float32 (1, then 4095 terms of 2^-e)";
  if (kept <= 0 || kept >= p)
    return not_run(r, q,
                   kept >= p ? "partial sums keep the accumulator's full precision" : "needs the partial sum's width");
  const int e = kept + 1;
  std::vector<Term> t{{0}};
  for (int i = 0; i < 4095; ++i) t.push_back({-e});
  auto v = probe.dot(t);
  if (!v) return not_run(r, q, v.error());
  const double counted = std::round((*v - 1) / std::ldexp(1.0, -e));
  const int lost = 4095 - int(counted);
  r.promotion_interval = lost >= 4095 ? 0 : lost + 1;
  r.findings.push_back({q, r.promotion_interval ? std::to_string(r.promotion_interval) : "none within 4096",
                        "e = " + std::to_string(e) + ": " + std::to_string(lost) + " of 4095 small terms lost"});
}

// 6. Normalisation: whether partial sums are normalised after each addition, or a block of
// products is aligned to its largest term and normalised once (a multi-term adder).
void probe_normalisation(Prober& probe, ProbeReport& r, DType input, int width, const SumRounding& s,
                         const SeenBits& seen) {
  if (!s.nearest && !s.truncating) return not_run(r, kNormalisation, "needs the rounding found above");
  if (seen.bits < 0) return not_run(r, kNormalisation, "needs the bits seen below the last place");
  if (!seen.exact)
    return not_run(r, kNormalisation,
                   "the adder sees at least " + std::to_string(seen.bits) +
                       " bits below its last place; the probe's small terms must sit just below what it sees");
  // A multi-term adder that rounds to nearest shows one bit fewer than it keeps: the tie itself
  // takes the first (see the bits-seen probe).
  r.findings.push_back(normalisation(probe, r, info(input).format.precision(), width,
                                     s.truncating ? seen.bits : seen.bits + 1, s.truncating));
}

// The accumulation model that emulates what was found, checked against the device.
void suggest_model(Backend& backend, const ProductSpec& base, ProbeReport& r, const SumRounding& s) {
  // float64's 53 bits, rounded to nearest: the f64 model (hardware addition, in sequence).
  if (r.accumulator_bits == 53 && s.nearest) {
    const Accumulation m{AccumKind::Float64, DType::float64};
    r.model_note = "emulates the partial sums' width and rounding, summed in sequence; not the device's order";
    r.model = accumulation_spec(m);
    r.findings.push_back(model_check(backend, base, m));
    return;
  }
  const DType narrow = r.accumulator_bits == 24   ? DType::float32
                       : r.accumulator_bits == 11 ? DType::tf32
                       : r.accumulator_bits == 8  ? DType::bfloat16
                                                  : DType::bool_;
  if (narrow == DType::bool_) {
    r.model_note = r.accumulator_bits == 0
                       ? "the partial sums' width was not found"
                       : "no model's accumulator keeps " + std::to_string(r.accumulator_bits) +
                             " bits with float32's exponent range (the models here: float32 24, tf32 11, "
                             "bfloat16 8, float64 53)";
    return;
  }
  if (!s.nearest && !s.truncating) {
    r.model_note = "the rounding was not found";
    return;
  }
  Accumulation m{AccumKind::Sequential, narrow, s.truncating ? Rounding::TowardZero : Rounding::NearestEven};
  if (r.promotion_interval > 0) {
    m.kind = AccumKind::Chunked, m.chunk = r.promotion_interval, m.outer = DType::float32;
    r.model_note = "emulates the partial sums' width, rounding and promotion; not the order within a block";
  } else if (r.block_terms > 0) {
    m.kind = AccumKind::Multiterm, m.block = r.block_terms, m.extra_bits = r.extra_bits;
    r.model_note = "emulates the multi-term adder found: block, extra bits, width and rounding";
  } else {
    r.model_note = "emulates the partial sums' width and rounding; not the order within a block";
  }
  r.model = accumulation_spec(m);
  r.findings.push_back(model_check(backend, base, m));
}

}  // namespace

Expected<ProbeReport> probe_accumulation(Backend& backend, DType input, const Accumulation& acc,
                                         bool fast_accumulation) {
  auto probed = probed_product(backend, input, acc, fast_accumulation);
  if (!probed) return Error{probed.error()};
  const ProductSpec base = *probed;
  ProbeReport r;
  r.backend = backend.name();
  r.device = backend.device_info().name;
  r.input = input;
  r.accumulate = acc;
  r.fast_accumulation = fast_accumulation;
  Prober probe(backend, base);
  const int p = accumulator_precision(acc);
  const int kept = probe_kept_bits(probe, r, p);
  // The rounding probes work at the precision the partial sums have (a narrow accumulator that
  // rounds to nearest would otherwise look like truncation at float32's last place).
  const int width = kept > 0 ? kept : p;
  const SumRounding rounding = probe_sum_rounding(probe, r, width);
  probe_ties(probe, r, width, rounding);
  const SeenBits seen = probe_seen_bits(probe, r, width, rounding);
  probe_promotion(probe, r, kept, p);
  probe_normalisation(probe, r, input, width, rounding, seen);
  r.method = probe.method();
  suggest_model(backend, base, r, rounding);
  return r;
}

}  // namespace pl::experiment
