// What a file dropped on the window (or given to --open) opens as, by its name.
#include "app/ui/shell/file_drop.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pl::ui
