// What a file dropped on the window (or given to --open) opens as, by its name.
#include "app/ui/shell/file_drop.h"

#include <gtest/gtest.h>

#include <fstream>

namespace pl::ui {
namespace {

TEST(FileDrop, ACheckpointsIndexOrFolderIsScannedAndTheRestKeepTheirPanels) {
  const std::string sharded = std::string(PL_CHECKPOINT_DIR) + "/sharded";
  EXPECT_EQ(drop_kind(sharded), DropKind::Checkpoint);
  EXPECT_EQ(drop_kind(sharded + "/model.safetensors.index.json"), DropKind::Checkpoint);
  EXPECT_EQ(drop_kind("/tmp/setup.json"), DropKind::Setup);
  EXPECT_EQ(drop_kind(sharded + "/model-00001-of-00002.safetensors"), DropKind::Tensor);  // one tensor of it
  EXPECT_EQ(drop_kind("/tmp/x.npy"), DropKind::Tensor);
  EXPECT_EQ(drop_kind("/tmp/notes.txt"), DropKind::Unknown);
}

// Bug: the Checkpoint panel said "drop it on the window" of a model's safetensors, and a dropped
// single-file model opened as an Experiment operand. With the Checkpoint panel on screen it is
// scanned; elsewhere it is still an operand's file.
TEST(FileDrop, ASafetensorsFileDroppedOnTheCheckpointPanelIsScanned) {
  const std::string file = std::string(PL_CHECKPOINT_DIR) + "/sharded/model-00001-of-00002.safetensors";
  EXPECT_EQ(drop_kind(file, true), DropKind::Checkpoint);
  EXPECT_EQ(drop_kind(file, false), DropKind::Tensor);
  EXPECT_EQ(drop_kind("/tmp/x.npy", true), DropKind::Tensor);
  EXPECT_EQ(drop_kind("/tmp/setup.json", true), DropKind::Setup);
}

// Bug: a dropped (or --open) tensor file was placed in the Experiment's field unread: a file that
// is no .npy said nothing until the run, and a screenshot of it showed the last run's results with
// exit 0. Its header is read first; a file the run can read passes.
TEST(FileDrop, ATensorDropsHeaderIsReadBeforeItIsTaken) {
  const std::string io = std::string(PL_DATA_DIR) + "/io";
  EXPECT_TRUE(tensor_drop_problem(io + "/f32_big_endian.npy"));
  EXPECT_TRUE(tensor_drop_problem(std::string(PL_CHECKPOINT_DIR) + "/sharded/model-00001-of-00002.safetensors"));
  const std::string dir = ::testing::TempDir();
  for (const char* name : {"garbage.npy", "garbage.safetensors"}) {
    const std::string file = dir + "/" + name;
    {
      std::ofstream out(file, std::ios::binary);
      out << "garbage";
      ASSERT_TRUE(out.flush()) << file;
    }
    const Status st = tensor_drop_problem(file);
    ASSERT_FALSE(st) << file;
    EXPECT_NE(st.error().find(name), std::string::npos) << st.error();  // it names the file
  }
  EXPECT_FALSE(tensor_drop_problem(dir + "/no-such-file.npy"));
}

}  // namespace
}  // namespace pl::ui
