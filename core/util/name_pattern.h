// A regular expression over names (a checkpoint's tensor names, for `scan --tensors`), in RE2's
// syntax: matched in time linear in the name, with no backtracking and no recursion, so a
// pattern such as (a*)*b or a name 20,000 characters long can neither hang the scan beyond
// Ctrl-C's reach nor overflow the stack, as std::regex did with both.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/util/expected.h"

namespace re2 {
class RE2;
}

namespace pl {

class NamePattern {
 public:
  // The pattern compiled, or why it is not a regular expression (RE2's own words).
  static Expected<NamePattern> compile(const std::string& pattern);
  // Whether the pattern matches somewhere in `name` (as std::regex_search did).
  bool found_in(std::string_view name) const;

 private:
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace pl
