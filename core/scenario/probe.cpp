#include "core/util/printable.h"
#include "core/scenario/probe.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>

#include "core/accumulate/accumulate.h"
#include "core/accumulate/accumulation_spec.h"
#include "core/backend/peak_rates.h"
#include "core/dtype/codec.h"
#include "core/dtype/format_lookup.h"
#include "core/dtype/int_convert.h"
#include "core/experiment/dot_sweep.h"
#include "core/promote/engine.h"
#include "core/promote/torch_api.h"
#include "core/promote/torch_engine.h"
#include "core/util/number_text.h"

namespace pl::scenario {
namespace {

using nlohmann::json;

// The parameters of one probe, read strictly: every key must be known and a string.
struct Params {
  const json& j;
  std::set<std::string> known;

  Status check_keys() const {
    if (!j.is_object()) return Error{"must be an object"};
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!known.count(it.key())) return Error{"unknown key '" + printable(it.key()) + "'"};
      const bool count = it.key() == "count";
      if (count ? !it.value().is_number_unsigned() : !it.value().is_string())
        return Error{"'" + it.key() + "' must be a " + (it.key() == "count" ? "positive integer" : "string")};
    }
    return {};
  }
  std::string text(const char* key, std::string fallback = {}) const {
    return j.contains(key) ? j[key].get<std::string>() : fallback;
  }
};

// "'key'", appended rather than chained: GCC 12 warns falsely on "'" + std::string(key) + ...
// once inlined (-Wrestrict, GCC bug 105329).
std::string quoted(const char* key) { return std::string("'").append(key).append("'"); }

Expected<DType> dtype_param(const Params& p, const char* key) {
  if (!p.j.contains(key)) return Error{quoted(key) + " is required"};
  auto t = parse_dtype(p.text(key));
  if (!t) return Error{quoted(key) + ": " + t.error()};
  return t;
}

Expected<CastOptions> cast_options(const Params& p) {
  CastOptions o;
  const std::string r = p.text("rounding", "rne"), v = p.text("overflow", "default"), path = p.text("path", "direct");
  if (!parse_rounding(r.c_str(), &o.rounding) || o.rounding == Rounding::Stochastic)
    return Error{"'rounding': '" + r + "' is not rne, rna, rtz, up or down"};
  if (!parse_overflow(v.c_str(), &o.overflow))
    return Error{"'overflow': '" + v + "' is not default, saturate or no-saturate"};
  if (!parse_cast_path(path.c_str(), &o.path))
    return Error{"'path': '" + path + "' is not one of " + cast_path_names()};
  return o;
}

Expected<std::string> promote_probe(const json& j) {
  Params p{j,
           {"framework", "op", "a", "b", "bias", "a_kind", "b_kind", "a_value", "b_value", "a_device", "b_device",
            "a_shape", "b_shape"}};
  if (auto ok = p.check_keys(); !ok) return Error{ok.error()};
  const std::string id = p.text("framework", "torch");
  const promote::Engine* e = promote::find_engine(id);
  if (!e) return Error{"'framework': unknown '" + id + "' (" + promote::engine_names() + ")"};
  promote::Query q;
  q.op = p.text("op");
  if (std::find(e->ops.begin(), e->ops.end(), q.op) == e->ops.end())
    return Error{"'op': " + id + " has no op '" + q.op + "'"};
  for (const char* side : {"a", "b"}) {
    auto t = dtype_param(p, side);
    if (!t) return Error{t.error()};
    if (!e->has_dtype(*t)) return Error{quoted(side) + ": " + promote::missing_dtype_text(*e, *t)};
    promote::Operand& o = side[0] == 'a' ? q.a : q.b;
    o.dtype = *t;
    const std::string kind_key = std::string(side) + "_kind", value_key = std::string(side) + "_value";
    if (j.contains(kind_key)) {
      auto k = promote::parse_operand_kind(p.text(kind_key.c_str()));
      if (!k) return Error{"'" + kind_key + "' must be tensor, zerodim or scalar"};
      o.kind = *k;
    }
    o.value = p.text(value_key.c_str());
  }
  if (j.contains("bias")) {
    auto t = dtype_param(p, "bias");
    if (!t) return Error{t.error()};
    if (std::find(e->bias_ops.begin(), e->bias_ops.end(), q.op) == e->bias_ops.end())
      return Error{"'bias': " + id + "'s " + q.op + " takes no bias"};
    q.bias = *t;
  }
  if (auto placed = promote::place_operands(*e, q, p.text("a_device"), p.text("b_device"), "'a_device'", "'b_device'");
      !placed)
    return Error{placed.error()};
  if (j.contains("a_shape") || j.contains("b_shape")) {
    if (std::find(e->shape_ops.begin(), e->shape_ops.end(), q.op) == e->shape_ops.end())
      return Error{"'a_shape' and 'b_shape' are for conv1d and conv2d on the CPU torch engines"};
    auto shape =
        promote::torch::conv_shape_from_text(*promote::torch::parse_op(q.op), p.text("a_shape"), p.text("b_shape"),
                                             std::nullopt, std::nullopt, "'a_shape'", "'b_shape'", q.op + ": ");
    if (!shape) return Error{shape.error()};
    q.conv = *shape;
  }
  const promote::Outcome o = e->evaluate(q);
  if (o.ok()) return std::string(name(*o.result));
  if (!o.other_result.empty()) return o.other_result;
  return o.error_type + ": " + o.message;
}

// "A/B" or "A*B" held exactly (ExactValue), or a plain number. The quotient's remainder and the
// product's error are exact unless the result is near float64's subnormal range: refused there,
// as a result float64 rounds to zero is. One past its largest is held as beyond_float64().
Expected<ExactValue> exact_expression(const std::string& text) {
  auto t = parse_number_terms(text);
  if (!t) return Error{t.error()};
  if (t->op == 0) return ExactValue{t->a, 0, 1};
  const double hi = t->op == '/' ? t->a / t->b : t->a * t->b;
  const bool finite_terms = std::isfinite(t->a) && std::isfinite(t->b) && t->b != 0.0;
  if (!finite_terms || t->a == 0.0) return ExactValue{hi, 0, 1};  // (NaN, inf or 0, exactly)
  if (std::isinf(hi)) return beyond_float64(std::signbit(hi));
  if (std::fabs(hi) < 0x1p-969 || (t->op == '/' && std::fabs(t->a) < 0x1p-969))
    return Error{"'" + text + "' is too close to float64's subnormal range to be formed exactly"};
  if (t->op == '/') return ExactValue{hi, std::fma(-hi, t->b, t->a), t->b};
  return ExactValue{hi, std::fma(t->a, t->b, -hi), 1};
}

Expected<std::string> cast_probe(const json& j) {
  Params p{j, {"value", "dtype", "rounding", "overflow", "path"}};
  if (auto ok = p.check_keys(); !ok) return Error{ok.error()};
  auto x = exact_expression(p.text("value"));
  if (!x) return Error{"'value': " + x.error()};
  if (!j.contains("dtype")) return Error{"'dtype' is required"};
  auto f = parse_float_format(p.text("dtype"));
  if (!f) return Error{"'dtype': " + f.error()};
  auto o = cast_options(p);
  if (!o) return Error{o.error()};
  return shortest_double(decode(f->format, encode_exact(f->format, *x, *o).code));
}

Expected<std::string> int_cast_probe(const json& j) {
  Params p{j, {"value", "to", "mode"}};
  if (auto ok = p.check_keys(); !ok) return Error{ok.error()};
  auto to = dtype_param(p, "to");
  if (!to) return Error{to.error()};
  if (!is_integer(*to) && *to != DType::bool_)
    return Error{"'to': " + std::string(name(*to)) + " is not an integer dtype"};
  const std::string mode = p.text("mode", "wrap");
  const auto parsed_mode = parse_int_overflow(mode);
  if (!parsed_mode) return Error{"'mode' must be one of " + int_overflow_names()};
  const IntOverflow m = *parsed_mode;
  if (auto st = check_int_cast(*to, m); !st) return Error{"'to': " + st.error()};
  const std::string v = p.text("value");
  // An integer literal converts as an integer (200 -> int8 wraps exactly); anything else is a
  // float value truncated toward zero, as a C cast does.
  const bool negative = !v.empty() && v[0] == '-';
  const std::string digits = negative ? v.substr(1) : v;
  // (Every literal up to 2^64 - 1, uint64's largest: 20 digits.)
  uint64_t magnitude = 0;
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos &&
      std::from_chars(digits.data(), digits.data() + digits.size(), magnitude).ec == std::errc{})
    return int_bits_to_string(*to, int_to_int(*to, negative, magnitude, m).bits);
  auto x = parse_number_expression(v);
  if (!x) return Error{"'value': " + x.error()};
  return int_bits_to_string(*to, float_to_int(*to, *x, m).bits);
}

// `steps`: at most this many of the count's steps (check_probe takes one).
Expected<std::string> running_sum_probe(const json& j, const std::atomic<bool>* cancel, uint64_t steps) {
  Params p{j, {"value", "count", "dtype", "rounding"}};
  if (auto ok = p.check_keys(); !ok) return Error{ok.error()};
  auto x = exact_expression(p.text("value"));
  if (!x) return Error{"'value': " + x.error()};
  if (!j.contains("count") || j["count"].get<uint64_t>() == 0 || j["count"].get<uint64_t>() > 100'000'000)
    return Error{"'count' must be between 1 and 100000000"};
  auto f = parse_float_format(p.text("dtype"));
  if (!f) return Error{"'dtype': " + f.error()};
  auto o = cast_options(p);
  if (!o) return Error{o.error()};
  // s <- round(s + x), one rounding per step as an accumulator in the format does: s + x held
  // exactly (TwoSum), then rounded once. (Formed in float64 and rounded again, it would be right
  // only to nearest into formats of at most 25 significand bits: 0.1 added ten times in float64,
  // rounded up, came out below 1.)
  const double term = decode(f->format, encode_exact(f->format, *x, *o).code);
  // To nearest even into at most 25 significand bits the float64 sum's own rounding is innocuous
  // (53 >= 2p + 2; Figueroa, "When is double rounding innocuous?", 1995): the fast path.
  const bool innocuous = o->rounding == Rounding::NearestEven && 2 * f->format.precision() + 2 <= 53;
  double s = 0;
  const uint64_t n = std::min(steps, j["count"].get<uint64_t>());
  constexpr uint64_t kStretch = uint64_t{1} << 20;  // steps between looks at the cancel flag
  for (uint64_t i = 0; i < n; i += kStretch) {
    if (cancel && cancel->load()) return Error{"cancelled"};
    for (uint64_t k = i, end = std::min(n, i + kStretch); k < end; ++k) {
      const double hi = s + term;
      if (std::isinf(hi) && std::isfinite(s) && std::isfinite(term)) {  // a finite sum past float64's largest
        s = decode(f->format, encode_exact(f->format, beyond_float64(std::signbit(hi)), *o).code);
        continue;
      }
      if (innocuous) {
        s = round_to(f->format, hi, *o);
        continue;
      }
      const double v = hi - s, lo = (s - (hi - v)) + (term - v);  // TwoSum (Knuth)
      s = lo == 0 ? round_to(f->format, hi, *o)
                  : decode(f->format, encode_exact(f->format, ExactValue{hi, lo, 1}, *o).code);
    }
  }
  return shortest_double(s);
}

// {"terms": "T1, T2, ...", "accumulate": MODEL}: the terms (float32 numbers: hex floats, say)
// summed as the products term x 1 under the model, as a dot product or dot sweep runs it.
Expected<std::string> sum_probe(const json& j) {
  Params p{j, {"terms", "accumulate"}};
  if (auto ok = p.check_keys(); !ok) return Error{ok.error()};
  auto model = experiment::parse_accumulation(p.text("accumulate"));
  if (!model) return Error{"'accumulate': " + model.error()};
  std::vector<double> terms;
  const std::string list = p.text("terms");
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    std::string item = list.substr(at, comma - at);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    auto x = parse_number_expression(item);
    if (!x) return Error{"'terms': " + x.error()};
    if (static_cast<double>(static_cast<float>(*x)) != *x && !std::isnan(*x))
      return Error{"'terms': " + item + " is not a float32 number (the models' products must be exact)"};
    terms.push_back(*x);
    at = comma + 1;
  }
  return shortest_double(experiment::dot(terms, std::vector<double>(terms.size(), 1.0), *model));
}

Expected<std::string> api_probe(const json& j) {
  Params p{j, {"snippet"}};
  if (auto ok = p.check_keys(); !ok) return Error{ok.error()};
  if (!j.contains("snippet")) return Error{"'snippet' is required"};
  auto r = promote::torch_snippet(p.text("snippet"));
  if (!r) return Error{"'snippet': " + r.error()};
  return r;
}

// {"part", "dtype"}: the dtype's fastest published rate, as printed ("989.4"); with "over": the
// ratio of the two dtypes' rates to three significant digits ("14.8"). A dtype the part cannot
// run answers "the A100 SXM4 has no float8_e4m3fn arithmetic".
Expected<std::string> peak_probe(const json& j) {
  Params p{j, {"part", "dtype", "over"}};
  if (auto ok = p.check_keys(); !ok) return Error{ok.error()};
  const peak::Part* part = peak::find_part(p.text("part"));
  if (!part) return Error{"'part': no '" + p.text("part") + "' in the peak table (precision-lab devices --peaks)"};
  auto t = dtype_param(p, "dtype");
  if (!t) return Error{t.error()};
  if (!j.contains("over")) {
    const auto rate = peak::fastest_rate(*part, *t);
    if (!rate) return rate.error();  // an answer, not a bad parameter
    return std::string(rate->published);
  }
  auto over = dtype_param(p, "over");
  if (!over) return Error{over.error()};
  auto ratio = peak::speedup(*part, *t, *over);
  if (!ratio) return ratio.error();
  return shortest_double(*ratio);
}

}  // namespace

bool same_answer(const std::string& a, const std::string& b) {
  auto x = parse_number(a), y = parse_number(b);
  if (!x || !y) return a == b;
  if (std::isnan(*x) || std::isnan(*y)) return std::isnan(*x) && std::isnan(*y);
  return *x == *y && std::signbit(*x) == std::signbit(*y);
}

namespace {

Expected<std::string> probe(const Check& c, const std::atomic<bool>* cancel, uint64_t running_sum_steps) {
  switch (c.kind) {
    case CheckKind::Promote: return promote_probe(c.params);
    case CheckKind::Cast: return cast_probe(c.params);
    case CheckKind::IntCast: return int_cast_probe(c.params);
    case CheckKind::RunningSum: return running_sum_probe(c.params, cancel, running_sum_steps);
    case CheckKind::Api: return api_probe(c.params);
    case CheckKind::Peak: return peak_probe(c.params);
    case CheckKind::Sum: return sum_probe(c.params);
    case CheckKind::Metric: break;
  }
  return Error{"a metric check has no probe: it reads an evidence run"};
}

}  // namespace

Expected<std::string> evaluate_probe(const Check& c, const std::atomic<bool>* cancel) {
  return probe(c, cancel, UINT64_MAX);
}

Status check_probe(const Check& c) {
  if (auto r = probe(c, nullptr, 1); !r) return Error{r.error()};
  return {};
}

}  // namespace pl::scenario
