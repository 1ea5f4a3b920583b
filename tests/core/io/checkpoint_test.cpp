// Opening checkpoints: the synthetic sharded checkpoint written by the safetensors package
// (tests/data/checkpoint/gen_checkpoint.py) as a folder, as its index and shard by shard, and
// every broken checkpoint refused with a message that names what is wrong.
#include "core/io/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace pl::io {
namespace {

namespace fs = std::filesystem;
const std::string kSharded = std::string(PL_CHECKPOINT_DIR) + "/sharded";
const std::string kIndex = kSharded + "/model.safetensors.index.json";
const std::string kShard1 = kSharded + "/model-00001-of-00002.safetensors";
const std::string kShard2 = kSharded + "/model-00002-of-00002.safetensors";

struct TempDir {
  fs::path p = fs::temp_directory_path() / ("pl-checkpoint-" + std::to_string(::getpid()));
  TempDir() { fs::remove_all(p), fs::create_directories(p); }
  ~TempDir() { fs::remove_all(p); }
};

std::string read(const std::string& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write(const fs::path& f, const std::string& bytes) { std::ofstream(f, std::ios::binary) << bytes; }

void expect_error(const Expected<Checkpoint>& c, const std::string& part) {
  ASSERT_FALSE(c) << "opened, expected an error with: " << part;
  EXPECT_NE(c.error().find(part), std::string::npos) << c.error();
}

TEST(Checkpoint, OpensAShardedFolderThroughItsIndex) {
  for (const std::string& path : {kSharded, kIndex}) {
    auto c = open_checkpoint(path);
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->path, kIndex);
    EXPECT_EQ(c->shards.size(), 2u);
    EXPECT_EQ(c->tensors.size(), 22u);
    std::set<std::string> names;
    for (const auto& t : c->tensors) names.insert(t.name);
    EXPECT_EQ(names.size(), 22u);
    EXPECT_TRUE(names.count("model.layers.1.mlp.down_proj.weight"));
  }
}

TEST(Checkpoint, ReadsEachTensorsDtypeShapeAndPlace) {
  auto c = open_checkpoint(kSharded);
  ASSERT_TRUE(c) << c.error();
  uint64_t bytes = 0;
  for (const auto& t : c->tensors) {
    bytes += t.bytes;
    if (t.name == "model.layers.1.self_attn.v_proj.weight") {
      EXPECT_EQ(t.stored, "F8_E4M3");
      EXPECT_EQ(t.dtype, DType::float8_e4m3fn);
      EXPECT_EQ(t.shape, (std::vector<size_t>{64, 64}));
      EXPECT_EQ(t.bytes, 64u * 64u);
    }
    if (t.name == "model.rotary_emb.position_ids") {
      EXPECT_FALSE(t.is_float());
    }
    if (t.name == "lm_head.weight") {
      EXPECT_EQ(t.stored, "BF16");
    }
  }
  EXPECT_EQ(bytes, c->bytes);
}

TEST(Checkpoint, ReadsElementsThroughTheMapping) {
  auto c = open_checkpoint(kSharded);
  ASSERT_TRUE(c) << c.error();
  for (const auto& t : c->tensors) {
    if (t.name != "model.norm.weight") continue;
    auto m = MappedFile::open(c->shards[t.shard]);
    ASSERT_TRUE(m) << m.error();
    std::vector<double> v;
    ASSERT_TRUE(read_elements(*m, t, 0, t.params, v));
    EXPECT_EQ(v, std::vector<double>(64, 1.0));     // the generator's ones
    EXPECT_FALSE(read_elements(*m, t, 60, 10, v));  // past the tensor's end
  }
}

TEST(Checkpoint, OpensOneShardOnItsOwn) {
  auto c = open_checkpoint(kShard1);
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->shards.size(), 1u);
  EXPECT_GT(c->tensors.size(), 5u);
}

TEST(Checkpoint, OpensAFolderOfFilesWithoutAnIndex) {
  TempDir t;
  fs::copy(kShard1, t.p / "a.safetensors");
  fs::copy(kShard2, t.p / "b.safetensors");
  auto c = open_checkpoint(t.p.string());
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->tensors.size(), 22u);
}

TEST(Checkpoint, RefusesAShardTheIndexNamesButIsMissing) {
  TempDir t;
  fs::copy(kIndex, t.p / "model.safetensors.index.json");
  fs::copy(kShard1, t.p / "model-00001-of-00002.safetensors");
  expect_error(open_checkpoint(t.p.string()), "names shard model-00002-of-00002.safetensors");
  expect_error(open_checkpoint(t.p.string()), "which is missing");
}

TEST(Checkpoint, RefusesAnIndexNamingATensorTwice) {
  TempDir t;
  std::string index = read(kIndex);
  const std::string entry = "\"lm_head.weight\": \"model-00002-of-00002.safetensors\",";
  ASSERT_NE(index.find(entry), std::string::npos);
  index.insert(index.find(entry), entry + "\n");
  write(t.p / "model.safetensors.index.json", index);
  fs::copy(kShard1, t.p / "model-00001-of-00002.safetensors");
  fs::copy(kShard2, t.p / "model-00002-of-00002.safetensors");
  expect_error(open_checkpoint(t.p.string()), "lm_head.weight");
}

TEST(Checkpoint, RefusesATruncatedShard) {
  TempDir t;
  fs::copy(kIndex, t.p / "model.safetensors.index.json");
  fs::copy(kShard1, t.p / "model-00001-of-00002.safetensors");
  const std::string two = read(kShard2);
  write(t.p / "model-00002-of-00002.safetensors", two.substr(0, two.size() - 100));
  expect_error(open_checkpoint(t.p.string()), "model-00002-of-00002.safetensors");
  expect_error(open_checkpoint(t.p.string()), "lie outside the");
}

TEST(Checkpoint, RefusesAnIndexThatDisagreesWithItsShards) {
  TempDir t;
  fs::copy(kShard1, t.p / "model-00001-of-00002.safetensors");
  fs::copy(kShard2, t.p / "model-00002-of-00002.safetensors");
  std::string index = read(kIndex);
  // The head moved to the other shard in the index only.
  const std::string was = "\"lm_head.weight\": \"model-00002-of-00002.safetensors\"";
  index.replace(index.find(was), was.size(), "\"lm_head.weight\": \"model-00001-of-00002.safetensors\"");
  write(t.p / "model.safetensors.index.json", index);
  expect_error(open_checkpoint(t.p.string()), "holds tensor 'lm_head.weight', which");
  expect_error(open_checkpoint(t.p.string()), "places in model-00001-of-00002.safetensors");
  // A tensor the index does not name at all.
  index = read(kIndex);
  const std::string line = "\"model.norm.weight\": \"model-00002-of-00002.safetensors\",";
  index.erase(index.find(line), line.size());
  write(t.p / "model.safetensors.index.json", index);
  expect_error(open_checkpoint(t.p.string()), "holds tensor 'model.norm.weight', which");
  expect_error(open_checkpoint(t.p.string()), "does not name");
}

TEST(Checkpoint, RefusesAShardPathOutsideTheIndexFolder) {
  TempDir t;
  write(t.p / "model.safetensors.index.json", R"({"weight_map": {"w": "../elsewhere.safetensors"}})");
  expect_error(open_checkpoint(t.p.string()), "is not a plain file name beside the index");
}

TEST(Checkpoint, RefusesFoldersItCannotRead) {
  TempDir t;
  expect_error(open_checkpoint(t.p.string()), "holds no .safetensors file");
  fs::copy(kShard1, t.p / "a.safetensors");
  fs::copy(kShard1, t.p / "b.safetensors");
  expect_error(open_checkpoint(t.p.string()), "is in both");
  fs::remove(t.p / "b.safetensors");
  write(t.p / "a.safetensors.index.json", "{}");
  write(t.p / "b.safetensors.index.json", "{}");
  expect_error(open_checkpoint(t.p.string()), "holds 2 checkpoint indexes");
  expect_error(open_checkpoint((t.p / "nothing-here").string()), "does not exist");
  expect_error(open_checkpoint((t.p / "a.safetensors.index.json").string()), "not a checkpoint index");
}

}  // namespace
}  // namespace pl::io
