// The window's remembered settings (app/ui/shell/settings.h): what a bad settings.json costs is its
// bad keys, never the start of the window.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

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
  EXPECT_EQ(s.problem, "");
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

}  // namespace
}  // namespace pl::ui
