#include "core/experiment/scan/tensor_place.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace pl::experiment {
namespace {

std::vector<std::string_view> parts_of(std::string_view name) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t dot; (dot = name.find('.', start)) != std::string_view::npos; start = dot + 1)
    parts.push_back(name.substr(start, dot - start));
  parts.push_back(name.substr(start));
  return parts;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string joined(const std::vector<std::string_view>& parts, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to; ++i) {
    if (i > from) s += '.';
    s.append(parts[i]);
  }
  return s;
}

}  // namespace

TensorPlace place_of(std::string_view name) {
  const auto parts = parts_of(name);
  TensorPlace p;
  if (parts.size() == 1) {  // a bare name: its own role
    p.role = std::string(name);
    return p;
  }
  p.param = std::string(parts.back());
  const size_t module_end = parts.size() - 1;
  const auto layer = std::find_if(parts.begin(), parts.begin() + static_cast<long>(module_end), all_digits);
  if (layer == parts.begin() + static_cast<long>(module_end)) {
    p.role = joined(parts, 0, module_end);
    return p;
  }
  const size_t at = static_cast<size_t>(layer - parts.begin());
  p.stack = joined(parts, 0, at);
  p.layer = std::stol(std::string(parts[at]));
  p.role = at + 1 < module_end ? joined(parts, at + 1, module_end) : p.param;  // "layers.3.weight"
  return p;
}

}  // namespace pl::experiment
