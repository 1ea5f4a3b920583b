// Result folders are complete or absent, and every write is checked: a folder is refused when it
// would mix runs, replaced as a whole with --force, removed when never committed; a file write
// that fails says so and leaves nothing.
#include "core/export/result_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/io/checked_write.h"
#include "core/util/interrupt.h"

namespace pl::exporting {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path p = fs::temp_directory_path() / ("pl-result-folder-" + std::to_string(::getpid()));
  TempDir() { fs::remove_all(p), fs::create_directories(p); }
  ~TempDir() { fs::remove_all(p); }
};

std::string read(const fs::path& f) {
  std::ifstream in(f);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t entries(const fs::path& d) { return static_cast<size_t>(std::distance(fs::directory_iterator(d), {})); }

TEST(ResultFolder, WritesANewFolderWhole) {
  TempDir t;
  const fs::path dest = t.p / "out";
  auto ok = write_result_folder(dest.string(), false,
                                [](const std::string& dir) { return io::write_file(dir + "/result.json", "{}\n"); });
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(read(dest / "result.json"), "{}\n");
  EXPECT_EQ(entries(t.p), 1u);  // no temporary folder left beside it
}

// Bug: a result folder was made 0755 and an atomically written file 0644 whatever the umask, so
// results were readable by every user under umask 077. They get what mkdir(2) and open(2) give.
TEST(ResultFolder, FoldersAndFilesTakeTheUmask) {
  TempDir t;
  const mode_t before = ::umask(077);
  const fs::path dest = t.p / "private";
  auto ok = write_result_folder(dest.string(), false,
                                [](const std::string& dir) { return io::write_file(dir + "/a.json", "{}\n"); });
  const Status atomic = io::write_file_atomic((t.p / "b.json").string(), "{}\n");
  ::umask(before);
  ASSERT_TRUE(ok) << ok.error();
  ASSERT_TRUE(atomic) << atomic.error();
  const auto mode = [](const fs::path& p) { return fs::status(p).permissions() & fs::perms::mask; };
  EXPECT_EQ(mode(dest), fs::perms::owner_all);
  EXPECT_EQ(mode(dest / "a.json"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(mode(t.p / "b.json"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(io::created_mode(0666), 0666u & ~static_cast<unsigned>(before));
}

// A single output file is checked before the work: a folder there, no folder to write it in, a
// file where its folder should be, or an input of the run there; a plain new file or one already
// there (the caller's to replace) passes.
TEST(FileRefusal, NamesWhyASingleFileCannotBeWritten) {
  TempDir t;
  ASSERT_TRUE(io::write_file((t.p / "a-file").string(), "x"));
  ASSERT_TRUE(io::write_file((t.p / "input.json").string(), "{}"));
  const auto why = [&](const fs::path& p, std::vector<NamedInput> inputs = {}) {
    const Status st = file_refusal(p.string(), "the PNG file", inputs);
    return st ? std::string() : st.error();
  };
  EXPECT_NE(why(t.p).find("is a folder: name the PNG file"), std::string::npos);
  EXPECT_NE(why(t.p / "nowhere" / "x.png").find("there is no folder"), std::string::npos);
  EXPECT_NE(why(t.p / "a-file" / "x.png").find("a-file is not a folder"), std::string::npos);
  EXPECT_NE(why(t.p / "input.json", {{"--setup", (t.p / "input.json").string()}}).find("is --setup, an input"),
            std::string::npos);
  EXPECT_EQ(why(t.p / "new.png"), "");
  EXPECT_EQ(why(t.p / "a-file"), "");  // (replacing it is the caller's choice)
  EXPECT_NE(why("").find("empty"), std::string::npos);
}

TEST(ResultFolder, RefusesToMixRunsUnlessForcedThenReplacesWhole) {
  TempDir t;
  const fs::path dest = t.p / "out";
  fs::create_directories(dest);
  std::ofstream(dest / "framework.json") << "stale";
  EXPECT_NE(ResultFolder::refusal(dest.string(), false).error().find("is not empty: give --force"), std::string::npos);
  EXPECT_FALSE(write_result_folder(dest.string(), false, [](const std::string&) -> Status { return {}; }));
  EXPECT_TRUE(fs::exists(dest / "framework.json"));
  auto ok = write_result_folder(dest.string(), true,
                                [](const std::string& dir) { return io::write_file(dir + "/result.json", "new"); });
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_FALSE(fs::exists(dest / "framework.json"));  // nothing of the earlier run survives
  EXPECT_EQ(read(dest / "result.json"), "new");
  EXPECT_EQ(entries(t.p), 1u);
}

// Bug: --force checked the folder for files no run writes before the work, not when the results
// replace it: a notes.txt and a mydata/thesis.tex put there while a slow export was drawing went
// with the folder. The commit asks again and replaces nothing.
TEST(ResultFolder, ForceKeepsWhatWasPutInTheFolderWhileTheResultsWereMade) {
  TempDir t;
  const fs::path dest = t.p / "out";
  fs::create_directories(dest);
  std::ofstream(dest / "result.json") << "earlier";
  auto made = write_result_folder(dest.string(), true, [&](const std::string& dir) {
    std::ofstream(dest / "notes.txt") << "mine";  // (while the results are being made)
    return io::write_file(dir + "/result.json", "new");
  });
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().find("now holds notes.txt, which no run writes"), std::string::npos) << made.error();
  EXPECT_EQ(read(dest / "notes.txt"), "mine");
  EXPECT_EQ(read(dest / "result.json"), "earlier");
  EXPECT_EQ(entries(t.p), 1u);  // nothing staged left beside it
}

// Bug: --force replaced a folder that held what the run read (`scan ck --out ck --force` removed
// the checkpoint it had just scanned, `matmul --a md/a.npy --save md --force` its operands). A
// folder that is or holds an input is refused, with or without a trailing slash or "..".
TEST(ResultFolder, ReplacingAFolderThatHoldsAnInputIsRefused) {
  TempDir t;
  const fs::path dest = t.p / "ck";
  fs::create_directories(dest / "sub");
  std::ofstream(dest / "sub/model.safetensors") << "x";
  std::ofstream(t.p / "elsewhere.npy") << "x";
  const std::string model = (dest / "sub/model.safetensors").string();
  const std::string is_dest = ResultFolder::refusal(dest.string(), true, {dest.string() + "/"}).error();
  EXPECT_NE(is_dest.find("ck is an input of this run"), std::string::npos) << is_dest;
  const std::string holds = ResultFolder::refusal(dest.string(), true, {model}).error();
  EXPECT_NE(holds.find("holds " + model + ", an input of this run"), std::string::npos) << holds;
  EXPECT_FALSE(ResultFolder::refusal((t.p / "ck/sub/../").string(), true, {model}));
  EXPECT_FALSE(ResultFolder::refusal(t.p.string(), true, {model}));  // a folder above it too
  // Inputs elsewhere, or not there at all, do not refuse it; the model does, as a file no run
  // writes.
  const std::string foreign =
      ResultFolder::refusal(dest.string(), true, {(t.p / "elsewhere.npy").string(), "", "absent.npy"}).error();
  EXPECT_NE(foreign.find("holds sub/model.safetensors, which no run writes"), std::string::npos) << foreign;
  EXPECT_TRUE(fs::exists(model));
}

// Bug: "explore 1 --out /dev" told root to give --force, which would have moved /dev aside and
// removed it. --force replaces an earlier run's results -- the files a run writes, in folders a
// few levels deep -- and nothing else.
TEST(ResultFolder, ForceReplacesOnlyAnEarlierRunsResults) {
  TempDir t;
  const fs::path dest = t.p / "out";
  fs::create_directories(dest / "fix-1");
  for (const char* f : {"result.json", "setup.json", "histograms.csv", "error.png", "error.svg", "error.pdf",
                        "story.md", "slides.html", "fix-1/result.json"})
    std::ofstream(dest / f) << "x";
  EXPECT_TRUE(ResultFolder::refusal(dest.string(), true)) << ResultFolder::refusal(dest.string(), true).error();
  const std::string without_force = ResultFolder::refusal(dest.string(), false).error();
  EXPECT_NE(without_force.find("give --force"), std::string::npos) << without_force;
  auto refused_for = [&](const fs::path& extra) {
    const std::string why = ResultFolder::refusal(dest.string(), true).error();
    std::error_code ec;
    fs::remove_all(extra, ec);
    return why;
  };
  std::ofstream(dest / "notes.txt") << "mine";
  EXPECT_NE(refused_for(dest / "notes.txt").find("out holds notes.txt, which no run writes: --force replaces only"),
            std::string::npos);
  fs::create_directory_symlink(t.p, dest / "link");
  EXPECT_NE(refused_for(dest / "link").find("holds link,"), std::string::npos);
  fs::create_directories(dest / "a/b/c/d");
  EXPECT_NE(refused_for(dest / "a").find("holds a/b/c/d,"), std::string::npos);
  std::ofstream(dest / "fix-1/model.npy") << "x";
  const std::string without = ResultFolder::refusal(dest.string(), false).error();
  EXPECT_NE(without.find("holds fix-1/model.npy, which no run writes: write the results to another folder"),
            std::string::npos)
      << without;  // (no advice to give --force)
  EXPECT_NE(refused_for(dest / "fix-1/model.npy").find("holds fix-1/model.npy,"), std::string::npos);
  EXPECT_TRUE(ResultFolder::refusal(dest.string(), true));
}

// Bug: the folders made to hold a result folder stayed behind, empty, when it was never
// committed (`run x.json --out p1/p2/x` that failed left p1/p2); a path under a file was
// refused only when made, as a failure of the machine (exit 1), not as bad input.
TEST(ResultFolder, AnAbandonedFolderTakesTheFoldersMadeForItAlong) {
  TempDir t;
  std::ofstream(t.p / "file") << "x";
  {
    auto begun = ResultFolder::begin((t.p / "p1/p2/out").string(), false);
    ASSERT_TRUE(begun) << begun.error();
    EXPECT_TRUE(fs::is_directory(t.p / "p1/p2"));
  }
  EXPECT_FALSE(fs::exists(t.p / "p1"));
  EXPECT_EQ(entries(t.p), 1u);
  {
    auto begun = ResultFolder::begin((t.p / "p1/out").string(), false);
    ASSERT_TRUE(begun);
    ResultFolder folder = std::move(begun).value();
    ASSERT_TRUE(io::write_file(folder.path() + "/a", "a"));
    ASSERT_TRUE(folder.commit());
  }
  EXPECT_TRUE(fs::exists(t.p / "p1/out/a"));  // committed: kept with its parent
  const std::string under = ResultFolder::refusal((t.p / "file/sub/out").string(), false).error();
  EXPECT_NE(under.find("file is not a folder"), std::string::npos) << under;
  // A dangling link on the way is no folder, and is never taken for one the folder made.
  fs::create_symlink(t.p / "nowhere", t.p / "dangling");
  const std::string dangling = ResultFolder::refusal((t.p / "dangling/out").string(), false).error();
  EXPECT_NE(dangling.find("dangling is not a folder"), std::string::npos) << dangling;
  EXPECT_FALSE(ResultFolder::begin((t.p / "dangling/out").string(), false));
  EXPECT_TRUE(fs::is_symlink(t.p / "dangling"));
}

TEST(ResultFolder, AnEmptyFolderIsTakenWithoutForce) {
  TempDir t;
  fs::create_directories(t.p / "out");
  EXPECT_EQ(ResultFolder::refusal((t.p / "out/").string(), false).error(), "");
  EXPECT_TRUE(write_result_folder((t.p / "out").string(), false,
                                  [](const std::string& dir) { return io::write_file(dir + "/a", "a"); }));
  EXPECT_TRUE(fs::exists(t.p / "out/a"));
}

TEST(ResultFolder, RefusesFilesLinksAndEmptyNames) {
  TempDir t;
  std::ofstream(t.p / "file") << "x";
  fs::create_directory_symlink(t.p, t.p / "link");
  EXPECT_NE(ResultFolder::refusal((t.p / "file").string(), true).error().find("is not a folder"), std::string::npos);
  EXPECT_NE(ResultFolder::refusal((t.p / "link").string(), true).error().find("symbolic link"), std::string::npos);
  EXPECT_NE(ResultFolder::refusal("", true).error().find("empty"), std::string::npos);
}

TEST(ResultFolder, AFailedOrAbandonedFolderLeavesNothing) {
  TempDir t;
  const fs::path dest = t.p / "out";
  auto failed = write_result_folder(dest.string(), false, [](const std::string& dir) -> Status {
    if (auto w = io::write_file(dir + "/setup.json", "{}"); !w) return w;
    return Error{"cannot write " + dir + "/figure.png: disk full"};
  });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error(), "cannot write " + dest.string() + "/figure.png: disk full");  // the folder the user named
  EXPECT_FALSE(fs::exists(dest));
  EXPECT_EQ(entries(t.p), 0u);
  {
    auto f = ResultFolder::begin(dest.string(), false);
    ASSERT_TRUE(f);
  }  // never committed
  EXPECT_EQ(entries(t.p), 0u);
}

TEST(ResultFolder, AnInterruptStopsTheCommit) {
  TempDir t;
  note_interrupt(2);
  auto r = write_result_folder((t.p / "out").string(), false,
                               [](const std::string& dir) { return io::write_file(dir + "/a", "a"); });
  clear_interrupt();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("interrupted"), std::string::npos);
  EXPECT_EQ(entries(t.p), 0u);
}

TEST(CheckedWrite, NeverFollowsALinkAndReportsAFullDevice) {
  TempDir t;
  std::ofstream(t.p / "target") << "keep";
  fs::create_symlink(t.p / "target", t.p / "link");
  const auto w = io::write_file((t.p / "link").string(), "new");
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().find("symbolic link"), std::string::npos);
  EXPECT_EQ(read(t.p / "target"), "keep");
  // The atomic write replaces the link itself.
  ASSERT_TRUE(io::write_file_atomic((t.p / "link").string(), "new"));
  EXPECT_EQ(read(t.p / "target"), "keep");
  EXPECT_FALSE(fs::is_symlink(t.p / "link"));
  EXPECT_EQ(read(t.p / "link"), "new");
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this machine";
  const auto full = io::write_file_atomic("/dev/full", "bytes");
  ASSERT_FALSE(full);
  EXPECT_NE(full.error().find("No space left on device"), std::string::npos);
  EXPECT_TRUE(fs::is_character_file("/dev/full"));  // written to, never renamed over
  // Bug: a link to a device (as /dev/stdout is to /proc/self/fd/1) was replaced by a file: as
  // root, --out /dev/stdout --force would have replaced /dev/stdout. The device is written to.
  fs::create_symlink("/dev/full", t.p / "full-link");
  const auto through = io::write_file_atomic((t.p / "full-link").string(), "bytes");
  ASSERT_FALSE(through);
  EXPECT_NE(through.error().find("No space left on device"), std::string::npos) << through.error();
  EXPECT_TRUE(fs::is_symlink(t.p / "full-link"));
}

}  // namespace
}  // namespace pl::exporting
