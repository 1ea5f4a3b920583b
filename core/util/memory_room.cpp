#include "core/util/memory_room.h"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

namespace pl {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::optional<double> number_at(std::string_view text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  unsigned long long v = 0;
  const auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), v);
  if (ec != std::errc()) return std::nullopt;
  return static_cast<double>(v);
}

// The value after `key` at the start of a line, `key` ending in its separator.
std::optional<double> line_number(std::string_view text, std::string_view key) {
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (line.substr(0, key.size()) == key) return number_at(line, key.size());
    at = end + 1;
  }
  return std::nullopt;
}

// A limit this large is the kernel's "none" (cgroup v1 writes 2^63 less a page).
constexpr double kNoLimit = 0x1p60;

// The memory cgroup's room: its limit less what it holds beyond inactive file pages (which the
// kernel drops before it refuses), for cgroup v2 and v1. /proc/self/cgroup names the group;
// inside a container's cgroup namespace the group is the mount's root.
std::optional<MemoryRoom> cgroup_room() {
  const std::string groups = read_text("/proc/self/cgroup");
  std::istringstream lines(groups);
  for (std::string line; std::getline(lines, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    const bool v2 = line.substr(0, a) == "0" && controllers.empty();
    const bool v1 = (',' + controllers + ',').find(",memory,") != std::string::npos;
    if (!v2 && !v1) continue;
    const std::string mount = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    for (const std::string& dir : {mount + path, mount}) {
      const auto limit = cgroup_number(read_text(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes")));
      const auto used = cgroup_number(read_text(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes")));
      if (!limit || !used) continue;
      if (*limit >= kNoLimit) break;
      const auto cache = stat_field(read_text(dir + "/memory.stat"), v2 ? "inactive_file" : "total_inactive_file");
      const double held = std::max(0.0, *used - cache.value_or(0));
      return MemoryRoom{std::max(0.0, *limit - held), "the memory cgroup's limit"};
    }
  }
  return std::nullopt;
}

std::optional<MemoryRoom> address_space_room() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const auto size = kib_field(read_text("/proc/self/status"), "VmSize:");
  if (!size) return std::nullopt;
  return MemoryRoom{std::max(0.0, static_cast<double>(limit.rlim_cur) - *size), "ulimit -v"};
}

}  // namespace

std::optional<double> kib_field(std::string_view text, std::string_view key) {
  const auto kib = line_number(text, key);
  if (!kib) return std::nullopt;
  return *kib * 1024;
}

std::optional<double> cgroup_number(std::string_view text) {
  if (text.substr(0, 3) == "max") return kNoLimit;
  return number_at(text, 0);
}

std::optional<double> stat_field(std::string_view text, std::string_view key) {
  return line_number(text, std::string(key) + ' ');
}

std::optional<MemoryRoom> memory_room() {
  std::optional<MemoryRoom> room;
  auto take = [&](std::optional<MemoryRoom> r) {
    if (r && (!room || r->bytes < room->bytes)) room = std::move(r);
  };
  if (const auto available = kib_field(read_text("/proc/meminfo"), "MemAvailable:"))
    take(MemoryRoom{*available, "MemAvailable in /proc/meminfo"});
  take(cgroup_room());
  take(address_space_room());
  return room;
}

Status check_room(double needed, std::string_view what, const std::optional<MemoryRoom>& room) {
  if (!room || needed <= room->bytes) return {};
  char text[160];
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  std::snprintf(text, sizeof text, " needs about %.1f GiB of working memory; %.1f GiB is free here (", needed / kGiB,
                room->bytes / kGiB);
  return Error{std::string(what) + text + room->source + ")"};
}

}  // namespace pl
