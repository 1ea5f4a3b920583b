// Exports never share a folder or file: two in the same second (a key repeat, a second click
// while the first export is still writing) get -2, -3, ...
#include <filesystem>
#include <fstream>
#include <new>
#include <set>

#include <gtest/gtest.h>

#include "core/export/export_dir.h"
#include "core/export/result_folder.h"
#include "core/io/checked_write.h"
#include "core/util/scratch_paths.h"

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
  EXPECT_EQ(first->substr(first->size() - 4), ".png");
  // Taken as it is handed out, before anything is written into it: a second export of the same
  // name in the same second was handed the same path, and its rename replaced the first's file.
  EXPECT_TRUE(std::filesystem::is_regular_file(*first));
  EXPECT_EQ(std::filesystem::file_size(*first), 0u);
  std::set<std::string> seen{*first};
  for (int i = 0; i < 3; ++i) {
    auto next = new_export_file("window", "png", root.string());
    ASSERT_TRUE(next) << next.error();
    EXPECT_TRUE(seen.insert(*next).second) << *next << " handed out twice";
  }
  std::filesystem::remove_all(root);
}

// The empty file that holds an export's name goes when the export fails or throws, and stays
// filled when it succeeds.
TEST(ExportDir, AFailedExportLeavesNoEmptyFile) {
  const auto root = std::filesystem::temp_directory_path() / "pl_export_fill_test";
  std::filesystem::remove_all(root);
  auto failed = new_export_file("x", "png", root.string());
  ASSERT_TRUE(failed) << failed.error();
  EXPECT_FALSE(fill_export_file(*failed, [] { return Status(Error{"disk full"}); }).ok());
  EXPECT_FALSE(std::filesystem::exists(*failed));
  auto threw = new_export_file("x", "png", root.string());
  ASSERT_TRUE(threw);
  EXPECT_THROW((void)fill_export_file(*threw, []() -> Status { throw std::bad_alloc(); }), std::bad_alloc);
  EXPECT_FALSE(std::filesystem::exists(*threw));
  auto written = new_export_file("x", "png", root.string());
  ASSERT_TRUE(written);
  EXPECT_TRUE(fill_export_file(*written, [&] {
                std::ofstream(*written) << "png";
                return Status();
              }).ok());
  EXPECT_EQ(std::filesystem::file_size(*written), 3u);
  std::filesystem::remove_all(root);
}

// A second Ctrl-C ends the process at once, with what the scratch paths note removed first
// (remove_scratch_paths, called here as its handler would): the export's empty file, or its
// folder, goes with the temporary being written.
TEST(ExportDir, ASecondCtrlCWhileAnExportIsWrittenLeavesNoPlaceholder) {
  const auto root = std::filesystem::temp_directory_path() / "pl_export_signal_test";
  std::filesystem::remove_all(root);
  auto file = new_export_file("window", "png", root.string());
  ASSERT_TRUE(file) << file.error();
  (void)fill_export_file(*file, [&] {
    remove_scratch_paths();
    EXPECT_FALSE(std::filesystem::exists(*file)) << "the handler left the empty file";
    return Status(Error{"interrupted"});
  });
  auto dir = new_export_dir("figures", root.string());
  ASSERT_TRUE(dir) << dir.error();
  (void)fill_export_dir(*dir, [&](const std::string& tmp) {
    std::ofstream(tmp + "/result.json") << "{}";
    remove_scratch_paths();
    EXPECT_FALSE(std::filesystem::exists(*dir)) << "the handler left the empty folder";
    EXPECT_FALSE(std::filesystem::exists(tmp));
    return Status(Error{"interrupted"});
  });
  EXPECT_TRUE(std::filesystem::is_empty(root));
  std::filesystem::remove_all(root);
}

// The placeholder stays noted until its fill returns; the rename onto it takes it back first, so
// that a second Ctrl-C after the rename leaves the export it has become (the handler would
// otherwise remove a complete file or folder).
TEST(ExportDir, ASecondCtrlCAfterTheRenameLeavesTheExport) {
  const auto root = std::filesystem::temp_directory_path() / "pl_export_claim_test";
  std::filesystem::remove_all(root);
  auto file = new_export_file("window", "png", root.string());
  ASSERT_TRUE(file) << file.error();
  EXPECT_TRUE(fill_export_file(*file, [&] {
                Status written = io::write_file_atomic(*file, "png");
                remove_scratch_paths();  // (a second Ctrl-C just after the rename)
                return written;
              }).ok());
  EXPECT_EQ(std::filesystem::file_size(*file), 3u);
  auto dir = new_export_dir("figures", root.string());
  ASSERT_TRUE(dir) << dir.error();
  {
    const ScratchPath placeholder(*dir);  // (as fill_export_dir notes it)
    auto begun = ResultFolder::begin(*dir, false);
    ASSERT_TRUE(begun) << begun.error();
    ResultFolder folder = std::move(begun).value();
    ASSERT_TRUE(io::write_file(folder.path() + "/result.json", "{}").ok());
    ASSERT_TRUE(folder.commit().ok());
    remove_scratch_paths();
  }
  EXPECT_TRUE(std::filesystem::exists(*dir + "/result.json"));
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
