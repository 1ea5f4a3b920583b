#include "core/experiment/scan/candidate.h"

#include "core/dtype/format_lookup.h"

namespace pl::experiment {

std::string Candidate::text() const {
  std::string s(name(dtype));
  if (scaling.kind != ScalingKind::None) s.append(":").append(scaling_spec(scaling));
  return s;
}

std::string Candidate::short_text() const {
  static constexpr std::string_view kShort[kScalingKindCount] = {"",   "tensor", "delayed", "channel", "ch-asym",
                                                                 "mx", "nvfp4",  "g",       "g-asym"};
  std::string s = short_name(dtype);
  if (scaling.kind != ScalingKind::None) s.append(" ").append(kShort[static_cast<int>(scaling.kind)]);
  if (is_group(scaling.kind)) s.append(std::to_string(scaling.group));  // "i8 g128"
  return s;
}

Expected<Candidate> parse_candidate(std::string_view text) {
  const std::string quoted = "candidate '" + std::string(text) + "': ";
  std::string_view parts[3];
  size_t count = 0;
  for (size_t start = 0;;) {
    const size_t colon = text.find(':', start);
    if (count == 3) return Error{quoted + "is DTYPE[:RECIPE[:BLOCK]]"};
    parts[count++] = text.substr(start, colon == std::string_view::npos ? colon : colon - start);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  auto dtype = parse_dtype(parts[0]);
  if (!dtype) return Error{quoted + dtype.error()};
  Candidate c;
  c.dtype = *dtype;
  if (count >= 2) {
    const std::string spec = count == 3 ? std::string(parts[1]) + ":" + std::string(parts[2]) : std::string(parts[1]);
    if (!parse_scaling(parts[1]))
      return Error{quoted + "no recipe '" + std::string(parts[1]) + "' (recipes: " + candidate_recipe_names() + ")"};
    auto scaling = parse_scaling_spec(spec);
    if (!scaling) return Error{quoted + scaling.error()};
    c.scaling = *scaling;
  }
  if (c.scaling.kind == ScalingKind::PerTensorDelayed)
    return Error{quoted + "delayed scaling needs the amax of earlier steps, which a checkpoint does not have"};
  if (auto st = check(c.scaling, c.dtype); !st) return Error{quoted + st.error()};
  return c;
}

std::string candidate_recipe_names() {
  std::string names;
  for (size_t k = 0; k < kScalingKindCount; ++k)
    if (const auto kind = static_cast<ScalingKind>(k); kind != ScalingKind::PerTensorDelayed)
      names.append(names.empty() ? "" : ", ").append(scaling_name(kind));
  return names;
}

Expected<std::vector<Candidate>> parse_candidates(std::string_view list) {
  std::vector<Candidate> out;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view item = list.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) return Error{"the candidate list '" + std::string(list) + "' has an empty entry"};
    auto c = parse_candidate(item);
    if (!c) return Error{c.error()};
    for (const Candidate& before : out)
      if (before.text() == c->text()) return Error{"candidate " + c->text() + " is named twice"};
    out.push_back(*c);
  }
  if (out.empty()) return Error{"no candidate given"};
  return out;
}

int element_bits(DType t) { return value_bits(t); }

double bits_per_param(const Candidate& c, size_t rows, size_t cols) {
  const double elem = element_bits(c.dtype);
  const double params = double(rows) * double(cols);
  if (params == 0) return elem;
  const auto blocks_per_row = [&](size_t block) { return double((cols + block - 1) / block); };
  switch (c.scaling.kind) {
    case ScalingKind::None: return elem;
    case ScalingKind::PerTensor:
    case ScalingKind::PerTensorDelayed: return elem + 32.0 / params;
    case ScalingKind::PerChannel: return elem + 32.0 * double(rows) / params;
    case ScalingKind::PerChannelAsymmetric: return elem + (32.0 + elem) * double(rows) / params;
    case ScalingKind::MX: return elem + 8.0 * blocks_per_row(32) * double(rows) / params;
    case ScalingKind::NVFP4: return elem + 8.0 * blocks_per_row(16) * double(rows) / params + 32.0 / params;
    case ScalingKind::Group: return elem + 16.0 * blocks_per_row(size_t(c.scaling.group)) * double(rows) / params;
    case ScalingKind::GroupAsymmetric:
      return elem + (16.0 + elem) * blocks_per_row(size_t(c.scaling.group)) * double(rows) / params;
  }
  return elem;
}

}  // namespace pl::experiment
