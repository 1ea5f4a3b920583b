// How much more memory this process may take, so that a run too large for the machine is
// refused with a message before anything is allocated. Without it a 8192 x 8192 x 2048 product
// under `ulimit -v 3000000` ended in std::bad_alloc and std::terminate, and one past the RAM in
// the kernel's OOM killer -- both with the user's window or shell gone.
//
// The room is the smallest of the limits Linux sets: the memory the kernel could hand out
// without swapping (MemAvailable), the container's memory cgroup (its limit less what it holds
// beyond reclaimable file pages), and the address-space limit (ulimit -v) less the process's
// address space. A limit that cannot be read is left out; with none read, nothing is refused.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/util/expected.h"

namespace pl {

struct MemoryRoom {
  double bytes = 0;
  std::string source;  // which limit it is: "MemAvailable in /proc/meminfo", "ulimit -v", ...
};

// The room now (a fresh read each call: runs are seconds apart and the machine changes).
std::optional<MemoryRoom> memory_room();

// Nothing when `needed` bytes fit the room (or no room is known), else an error for `what`:
// "the shape needs about 6.0 GiB of working memory; 2.9 GiB is free here (ulimit -v)".
Status check_room(double needed, std::string_view what, const std::optional<MemoryRoom>& room);

// The readers' parsers, for tests: a "Key:  N kB" line of /proc/meminfo or /proc/self/status in
// bytes, and a cgroup file's number ("max" is no limit).
std::optional<double> kib_field(std::string_view text, std::string_view key);
std::optional<double> cgroup_number(std::string_view text);
// A "key N" line of a cgroup's memory.stat.
std::optional<double> stat_field(std::string_view text, std::string_view key);

}  // namespace pl
