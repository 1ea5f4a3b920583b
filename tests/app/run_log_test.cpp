// The run log: every panel appends to it, and the Log panel copies and wraps it every frame it
// is shown, so it keeps its most recent entries and says how many earlier ones it let go.
#include "app/ui/shell/run_log.h"

#include <gtest/gtest.h>

#include <string>

namespace pl::ui {
namespace {

// Bug: the log grew without end; after a long session of edit-triggered re-runs the Log panel
// copied and wrapped every entry each frame, slower frame after frame.
TEST(RunLog, KeepsItsMostRecentEntriesAndCountsThoseLetGo) {
  RunLog log;
  const size_t n = 3 * RunLog::kKept;
  for (size_t i = 0; i < n; ++i) log.add("test", std::to_string(i));
  size_t dropped = 0;
  const auto entries = log.entries(&dropped);
  EXPECT_GE(entries.size(), RunLog::kKept);
  EXPECT_LE(entries.size(), RunLog::kKept + RunLog::kKept / 10);
  EXPECT_EQ(entries.back().text, std::to_string(n - 1));  // the newest kept, in order
  EXPECT_EQ(dropped + entries.size(), n);
  EXPECT_EQ(entries.front().text, std::to_string(dropped));
  RunLog few;
  few.add("test", "one");
  EXPECT_EQ(few.entries(&dropped).size(), 1u);
  EXPECT_EQ(dropped, 0u);
}

}  // namespace
}  // namespace pl::ui
