#include "core/util/name_pattern.h"

#include <re2/re2.h>

namespace pl {

Expected<NamePattern> NamePattern::compile(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);  // the error is returned, not printed
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok()) return Error{re->error()};
  NamePattern p;
  p.re_ = std::move(re);
  return p;
}

bool NamePattern::found_in(std::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

}  // namespace pl
