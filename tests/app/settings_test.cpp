// The window's remembered settings (app/ui/shell/settings.h): what a bad settings.json costs is its
// bad keys, never the start of the window.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "app/ui/shell/remembered_state.h"
#include "app/ui/shell/settings.h"

namespace pl::ui {
namespace {

// Points XDG_CONFIG_HOME at a fresh folder for one test, and back afterwards.
class SettingsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("XDG_CONFIG_HOME")) saved_ = old;
    root_ = std::filesystem::temp_directory_path() /
            ("pl_settings_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "precision-lab");
    setenv("XDG_CONFIG_HOME", root_.c_str(), 1);
  }
  void TearDown() override {
    if (saved_) setenv("XDG_CONFIG_HOME", saved_->c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
    std::filesystem::remove_all(root_);
  }
  std::filesystem::path file() const { return root_ / "precision-lab" / "settings.json"; }
  void write(const std::string& text) const { std::ofstream(file()) << text; }

  std::filesystem::path root_;
  std::optional<std::string> saved_;
};

TEST_F(SettingsFile, SavedSettingsReadBack) {
  Settings s;
  s.panel = "throughput", s.presentation = true, s.width = 1600, s.height = 900;
  ASSERT_TRUE(save_settings(s).ok());
  const Settings back = load_settings();
  EXPECT_EQ(back.problem, "");
  EXPECT_EQ(back.panel, "throughput");
  EXPECT_TRUE(back.presentation);
  EXPECT_EQ(back.width, 1600);
  EXPECT_EQ(back.height, 900);
}

TEST_F(SettingsFile, SizesOutOfRangeAreDroppedNotWrapped) {
  // 4294967396 is 2^32 + 100: read as an int it wrapped to a 100-pixel-wide window.
  write(R"({"panel": "promotion", "width": 4294967396, "height": 18446744073709551615})");
  const Settings s = load_settings();
  EXPECT_NE(s.problem.find("\"width\" is not a size in pixels from 1 to 8192"), std::string::npos) << s.problem;
  EXPECT_EQ(s.panel, "promotion");  // the good key is kept
  EXPECT_EQ(s.width, 0);            // the default size
  EXPECT_EQ(s.height, 0);
  write(R"({"width": 8193, "height": -5})");
  EXPECT_EQ(load_settings().width, 0);
  EXPECT_EQ(load_settings().height, 0);
  write(R"({"width": 8192, "height": 1.5e3, "presentation": "yes"})");
  const Settings t = load_settings();
  EXPECT_EQ(t.width, 8192);
  EXPECT_EQ(t.height, 0);        // not an integer
  EXPECT_FALSE(t.presentation);  // not a boolean
}

// Bug: a value of the wrong type, out of range, or an unknown key was dropped without a word (and
// the next save wrote the defaults over it). Each one not used is said; the rest are used.
TEST_F(SettingsFile, EachValueNotUsedIsSaid) {
  write(R"({"panel": 5, "width": 99999, "height": "tall", "presentation": "yes", "bogus": 1})");
  const Settings s = load_settings();
  for (const char* says :
       {"\"panel\" is not a panel's name", "\"width\" is not a size in pixels", "\"height\" is not a size in pixels",
        "\"presentation\" is neither true nor false", "unknown key \"bogus\"", "(the rest used; defaults for these)"})
    EXPECT_NE(s.problem.find(says), std::string::npos) << says << " in: " << s.problem;
  EXPECT_TRUE(std::filesystem::exists(file()));  // (a file that reads is not set aside)
  write(R"({"panel": "log", "width": 1600})");
  EXPECT_EQ(load_settings().problem, "");
}

TEST_F(SettingsFile, AnUnusableFileMeansDefaultsAndSaysWhy) {
  write("{ not json");
  Settings s = load_settings();
  std::string problem = s.problem;
  EXPECT_EQ(s.panel, "formats");
  EXPECT_NE(problem.find("not valid JSON"), std::string::npos) << problem;
  EXPECT_NE(problem.find("using defaults"), std::string::npos) << problem;
  // Kept aside, not left to be written over by the next save.
  EXPECT_NE(problem.find("the file was kept as " + file().string() + ".bad-"), std::string::npos) << problem;
  EXPECT_FALSE(std::filesystem::exists(file()));
  size_t kept = 0;
  for (const auto& e : std::filesystem::directory_iterator(file().parent_path()))
    kept += e.path().filename().string().rfind("settings.json.bad-", 0) == 0;
  EXPECT_EQ(kept, 1u);

  write("[1, 2]");
  s = load_settings();
  problem = s.problem;
  EXPECT_NE(problem.find("is not a JSON object"), std::string::npos) << problem;

  std::filesystem::remove(file());
  std::filesystem::create_directory(file());  // a folder where the file should be
  s = load_settings();
  problem = s.problem;
  EXPECT_EQ(s.panel, "formats");
  EXPECT_NE(problem.find("is a directory"), std::string::npos) << problem;
}

std::string text_of(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The remembered files are written as they change, each only when its text does, and never over
// the file on disk when the text did not change.
TEST_F(SettingsFile, RememberedFilesAreWrittenWhenTheirTextChanges) {
  const std::filesystem::path dir = file().parent_path();
  write("{\"panel\": \"log\"}\n");
  RememberedState saver(dir.string());
  const std::string settings = text_of(file());
  const auto inode = [](const std::filesystem::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? st.st_ino : ino_t{0};
  };
  const ino_t settings_inode = inode(file());  // (an atomic write renames a new file into place)
  ASSERT_TRUE(saver.save_changed_now({settings, "{\"m\": 8}\n", ""}).ok());
  EXPECT_EQ(text_of(dir / "last-setup.json"), "{\"m\": 8}\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "imgui.ini"));          // no text yet: nothing written
  EXPECT_FALSE(saver.save_changed({settings, "{\"m\": 8}\n", ""}));  // nothing changed
  ASSERT_TRUE(saver.save_changed({settings, "{\"m\": 16}\n", "[Table][0x1]\n"}));
  while (saver.saving()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(saver.take_failure(), std::nullopt);
  EXPECT_EQ(text_of(dir / "last-setup.json"), "{\"m\": 16}\n");
  EXPECT_EQ(text_of(dir / "imgui.ini"), "[Table][0x1]\n");
  EXPECT_EQ(text_of(file()), settings);
  EXPECT_EQ(inode(file()), settings_inode);  // never written: its text did not change
}

// Files past `bytes` cannot be written while one of these lives (EFBIG, SIGXFSZ ignored); the
// limit and the handler come back however the test leaves the scope.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) : old_handler_(std::signal(SIGXFSZ, SIG_IGN)) {
    getrlimit(RLIMIT_FSIZE, &old_);
    rlimit small = old_;
    small.rlim_cur = bytes;
    ok_ = setrlimit(RLIMIT_FSIZE, &small) == 0;
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  rlimit old_{};
  void (*old_handler_)(int);
  bool ok_ = false;
};

// A save that fails leaves the file that was there, and says why; the window wrote last-setup.json
// in place, and a failed write left no file at all.
TEST_F(SettingsFile, AFailedSaveKeepsTheFileBeforeItAndSaysWhy) {
  const std::filesystem::path dir = file().parent_path();
  const std::string before = "{\"m\": 8}\n";
  std::ofstream(dir / "last-setup.json") << before;
  RememberedState saver(dir.string());
  Status saved;
  {
    const FileSizeLimit limit(64);
    ASSERT_TRUE(limit.ok());
    saved = saver.save_changed_now({"", "{\"m\": 8, \"note\": \"" + std::string(200, 'x') + "\"}\n", ""});
  }
  ASSERT_FALSE(saved.ok());
  EXPECT_NE(saved.error().find("last-setup.json"), std::string::npos) << saved.error();
  EXPECT_EQ(text_of(dir / "last-setup.json"), before);
  // The same from the worker: the failure is handed out once, for the header.
  {
    const FileSizeLimit limit(64);
    ASSERT_TRUE(limit.ok());
    ASSERT_TRUE(saver.save_changed({"", "{\"m\": 9, \"note\": \"" + std::string(200, 'y') + "\"}\n", ""}));
    while (saver.saving()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::optional<std::string> failure = saver.take_failure();
  ASSERT_TRUE(failure.has_value());
  EXPECT_NE(failure->find("last-setup.json"), std::string::npos) << *failure;
  EXPECT_EQ(saver.take_failure(), std::nullopt);
  EXPECT_EQ(text_of(dir / "last-setup.json"), before);
}

// An ini text ImGui has not given (the window could not read the file it had) is not written:
// an empty one would replace the user's table widths.
TEST_F(SettingsFile, AnEmptyTextIsNeverWrittenOverAFile) {
  const std::filesystem::path dir = file().parent_path();
  std::ofstream(dir / "imgui.ini") << "[Table][0x1]\n";
  RememberedState saver(dir.string());
  ASSERT_TRUE(saver.save_changed_now({"", "", ""}).ok());
  EXPECT_EQ(text_of(dir / "imgui.ini"), "[Table][0x1]\n");
}

}  // namespace
}  // namespace pl::ui
