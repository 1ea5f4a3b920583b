// What a second Ctrl-C removes before the process ends: the scratch paths held then, whole, with
// the enclosing folders made for them, and nothing else.
#include "core/util/scratch_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace pl {
namespace {

namespace fs = std::filesystem;

class ScratchPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("scratch-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  static void touch(const fs::path& p) { std::ofstream(p) << "x"; }
  fs::path root_;
};

// A folder of more entries than one reading of the listing returns, with a folder in it, goes
// whole, and so do the two enclosing folders made for it.
TEST_F(ScratchPaths, AHeldFolderGoesWholeWithTheFoldersMadeForIt) {
  const fs::path made = root_ / "a" / "b", tmp = made / ".out.tmp-123456";
  fs::create_directories(tmp / "sub" / "deeper");
  for (int i = 0; i < 400; ++i) touch(tmp / ("figure-with-a-long-name-" + std::to_string(i) + ".png"));
  touch(tmp / "sub" / "deeper" / "result.json");
  const ScratchPath scratch(tmp.string(), 2);
  remove_scratch_paths();
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_FALSE(fs::exists(root_ / "a"));
  EXPECT_TRUE(fs::exists(root_));  // the folder that was there before
}

// An enclosing folder that holds something else stays, and so does everything in it.
TEST_F(ScratchPaths, AnEnclosingFolderThatHoldsMoreStays) {
  const fs::path tmp = root_ / "a" / ".out.tmp-123456";
  fs::create_directories(tmp);
  touch(root_ / "a" / "someone-elses.txt");
  touch(tmp / "result.json");
  const ScratchPath scratch(tmp.string(), 1);
  remove_scratch_paths();
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_TRUE(fs::exists(root_ / "a" / "someone-elses.txt"));
}

// A file is a scratch path too (a single output written to a temporary name).
TEST_F(ScratchPaths, AHeldFileGoes) {
  const fs::path tmp = root_ / ".c.npy.tmp-123456";
  touch(tmp);
  const ScratchPath scratch(tmp.string());
  remove_scratch_paths();
  EXPECT_FALSE(fs::exists(tmp));
}

// A path released (committed, or removed by its owner) is no longer scratch: renamed into place,
// a folder of that name again is someone's.
TEST_F(ScratchPaths, AReleasedPathStays) {
  const fs::path tmp = root_ / ".out.tmp-123456";
  fs::create_directories(tmp);
  touch(tmp / "result.json");
  {
    ScratchPath scratch(tmp.string());
    scratch.release();
  }
  ScratchPath gone(tmp.string());
  ScratchPath moved = std::move(gone);  // (held by the object it moved to)
  moved.release();
  remove_scratch_paths();
  EXPECT_TRUE(fs::exists(tmp / "result.json"));
}

// An owner takes its path back before renaming it into place, and then a handler leaves it alone;
// a path a handler has taken is not its owner's to rename (a commit on another thread would have
// carried the folder being emptied into the destination).
TEST_F(ScratchPaths, AClaimedPathStaysAndATakenOneCannotBeClaimed) {
  const fs::path tmp = root_ / ".out.tmp-123456";
  fs::create_directories(tmp);
  touch(tmp / "result.json");
  ScratchPath mine(tmp.string());
  EXPECT_TRUE(mine.claim());
  remove_scratch_paths();
  EXPECT_TRUE(fs::exists(tmp / "result.json"));
  ScratchPath taken(tmp.string());
  remove_scratch_paths();
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_FALSE(taken.claim());
  EXPECT_TRUE(ScratchPath().claim());  // (nothing noted: nothing to lose)
}

// A link in a scratch folder goes, not what it points to.
TEST_F(ScratchPaths, ALinkGoesNotWhatItPointsTo) {
  const fs::path tmp = root_ / ".out.tmp-123456", outside = root_ / "outside";
  fs::create_directories(tmp);
  fs::create_directories(outside);
  touch(outside / "keep.txt");
  fs::create_directory_symlink(outside, tmp / "link");
  const ScratchPath scratch(tmp.string());
  remove_scratch_paths();
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_TRUE(fs::exists(outside / "keep.txt"));
}

// Slots are given back: more paths than slots, held and released one after another, are each
// removed while held.
TEST_F(ScratchPaths, SlotsAreGivenBack) {
  for (int i = 0; i < 40; ++i) {
    const fs::path tmp = root_ / (".out.tmp-" + std::to_string(i));
    touch(tmp);
    const ScratchPath scratch(tmp.string());
    remove_scratch_paths();
    EXPECT_FALSE(fs::exists(tmp)) << i;
  }
}

}  // namespace
}  // namespace pl
