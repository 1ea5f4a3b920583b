// A model checkpoint as PyTorch / transformers write it: one .safetensors file, a sharded
// checkpoint (`model.safetensors.index.json` whose weight_map names each tensor's shard), or a
// folder holding either. Opening reads and validates every header and the index -- nothing of the
// tensors' data -- so a bad checkpoint is refused before any work starts: a shard the index
// names that is missing or truncated, a tensor named twice (in the index, or in two files), a
// tensor the index places in a shard that does not hold it or one a shard holds that the index
// does not name. The data is read later, tensor by tensor, through a mapping of its shard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/io/mapped_file.h"
#include "core/util/expected.h"

namespace pl::io {

struct CheckpointTensor {
  std::string name;
  std::string stored;  // the file's dtype spelling: "BF16"
  DType dtype = DType::float32;
  std::vector<size_t> shape;
  size_t params = 0;               // elements
  size_t shard = 0;                // index into Checkpoint::shards
  uint64_t offset = 0, bytes = 0;  // where in the shard's file, and how many bytes

  bool is_float() const { return pl::is_float(dtype); }
};

struct Checkpoint {
  std::string path;                       // what was opened
  std::vector<std::string> shards;        // the files, in the order they are read
  std::vector<CheckpointTensor> tensors;  // shard by shard, in offset order within each
  uint64_t bytes = 0;                     // the tensors' bytes in all
};

// Opens PATH: a .safetensors file, a *.safetensors.index.json, or a folder (its one index if it
// has one, else every .safetensors file in it). Errors are bad input (exit 2).
Expected<Checkpoint> open_checkpoint(const std::string& path);

// A tensor's elements [first, first + count) as float64, read through the mapping of its shard
// (`shard` maps Checkpoint::shards[t.shard]).
Status read_elements(const MappedFile& shard, const CheckpointTensor& t, size_t first, size_t count,
                     std::vector<double>& out);
// The same into out[0, out.size()): elements [first, first + out.size()). Safe to call from
// several threads at once on parts of one tensor.
Status read_elements(const MappedFile& shard, const CheckpointTensor& t, size_t first, std::span<double> out);

}  // namespace pl::io
