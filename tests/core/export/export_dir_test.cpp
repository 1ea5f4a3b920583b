// Exports never share a folder or file: two in the same second (a key repeat, a second click
// while the first export is still writing) get -2, -3, ...
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "core/export/export_dir.h"

namespace pl::exporting {
namespace {

TEST(ExportDir, EveryExportGetsAFolderOfItsOwn) {
  const auto root = std::filesystem::temp_directory_path() / "pl_export_dir_test";
  std::filesystem::remove_all(root);
  std::set<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    auto dir = new_export_dir("throughput", root.string());
    ASSERT_TRUE(dir) << dir.error();
    EXPECT_TRUE(std::filesystem::is_directory(*dir));
    EXPECT_NE(dir->find("-throughput"), std::string::npos);
    EXPECT_TRUE(seen.insert(*dir).second) << *dir << " handed out twice";
  }
  std::filesystem::remove_all(root);
}

TEST(ExportDir, AFileNameIsNeverOneThatExists) {
  const auto root = std::filesystem::temp_directory_path() / "pl_export_file_test";
  std::filesystem::remove_all(root);
  auto first = new_export_file("window", "png", root.string());
  ASSERT_TRUE(first) << first.error();
  EXPECT_FALSE(std::filesystem::exists(*first));
  std::ofstream(*first) << "x";
  auto second = new_export_file("window", "png", root.string());
  ASSERT_TRUE(second);
  EXPECT_NE(*first, *second);
  EXPECT_EQ(second->substr(second->size() - 4), ".png");
  std::filesystem::remove_all(root);
}

TEST(ExportDir, AnUncreatableRootIsAnError) {
  const auto file = std::filesystem::temp_directory_path() / "pl_export_root_is_a_file";
  std::ofstream(file) << "x";
  auto dir = new_export_dir("", (file / "sub").string());
  EXPECT_FALSE(dir);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace pl::exporting
