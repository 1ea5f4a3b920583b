// .npy and .safetensors readers against files written by NumPy and the safetensors package
// (tests/data/io/gen_io.py), the .npy writer by round trip, and hostile files: every
// truncation of a valid file, lying headers, huge shapes -- a clear error, never a crash.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/dtype/codec.h"
#include "core/dtype/custom_dtype.h"
#include "core/dtype/format_lookup.h"
#include "core/io/file_read.h"
#include "core/io/load.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/util/number_text.h"
#include "tests/core/test_util.h"

namespace pl::io {
namespace {

const std::string kDir = PL_IO_DIR;

nlohmann::json expected() {
  std::ifstream in(kDir + "/expected.json");
  EXPECT_TRUE(in) << "missing tests/data/io/expected.json";
  return nlohmann::json::parse(in);
}

std::vector<double> doubles(const nlohmann::json& j) {
  std::vector<double> v;
  for (const auto& x : j) v.push_back(*parse_number(x.get<std::string>()));
  return v;
}

std::vector<uint8_t> bytes_of(const std::string& file) {
  auto b = read_file(kDir + "/" + file, 1 << 20);
  EXPECT_TRUE(b) << b.error();
  return b ? *b : std::vector<uint8_t>{};
}

TEST(Npy, ReadsWhatNumpyWrote) {
  const auto e = expected();
  ASSERT_GE(e["npy"].size(), 13u);
  for (const auto& f : e["npy"]) {
    const std::string file = f["file"];
    SCOPED_TRACE(file);
    std::optional<DType> raw;
    if (!f["raw"].is_null()) raw = *parse_dtype(f["raw"].get<std::string>());
    auto t = read_npy(kDir + "/" + file, raw);
    ASSERT_TRUE(t) << t.error();
    EXPECT_EQ(t->shape, f["shape"].get<std::vector<size_t>>());
    EXPECT_EQ(t->values, doubles(f["values"]));
  }
}

TEST(Npy, RawBytesNeedADtypeAndTheRightWidth) {
  auto t = read_npy(kDir + "/bf16_raw.npy", DType::float8_e4m3fn);  // 2-byte codes, 1-byte type
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("cannot hold raw float8_e4m3fn"), std::string::npos);
  t = read_npy(kDir + "/f64.npy", DType::bfloat16);
  ASSERT_FALSE(t);
  t = read_npy(kDir + "/f64.npy", DType::float32);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("read natively"), std::string::npos);
}

TEST(Npy, WriterRoundTripsEveryKind) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::vector<double> v = {1.5, -2.25, 0.0, 448.0, -0.001953125, 3.0};
  // Custom formats as raw codes of their storage width: 13 bits in 2 bytes, 24 in 4, 52 in 8
  // (before, only up to 2 bytes: a 24-bit e8m15 result could not be written).
  for (DType t :
       {DType::float64, DType::float32, DType::float16, DType::bfloat16, DType::float8_e4m3fn, DType::float4_e2m1fn,
        DType::int16, *parse_dtype("e5m7"), *parse_dtype("e8m15"), *parse_dtype("e10m41")}) {
    SCOPED_TRACE(std::string(name(t)));
    const std::string path = (dir / ("pl_rt_" + short_name(t) + ".npy")).string();
    std::vector<double> in = v;
    if (t == DType::int16) in = {1, -2, 0, 448, -7, 3};
    ASSERT_TRUE(write_npy(path, {2, 3}, in, t));
    const bool raw = t == DType::bfloat16 || t == DType::float8_e4m3fn || t == DType::float4_e2m1fn || is_custom(t);
    auto back = read_npy(path, raw ? std::optional<DType>(t) : std::nullopt);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->shape, (std::vector<size_t>{2, 3}));
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_EQ(back->values[i], is_float(t) ? round_to(info(t).format, in[i], {}) : in[i]) << i;
    std::filesystem::remove(path);
  }
  EXPECT_FALSE(write_npy((dir / "pl_bad.npy").string(), {1}, std::vector<double>{0.5}, DType::int8));
}

TEST(Npy, EveryTruncationIsAnError) {
  const auto good = bytes_of("f32_big_endian.npy");
  for (size_t n = 0; n < good.size(); ++n) {
    auto t = parse_npy(std::span(good).first(n));
    EXPECT_FALSE(t) << "prefix of " << n << " bytes";
    // The magic, where it is there, is not said to be missing (6 to 9 bytes said "no magic").
    if (n >= 6) {
      EXPECT_EQ(t.error().find("magic"), std::string::npos) << n << ": " << t.error();
    }
  }
  EXPECT_TRUE(parse_npy(good));
  auto longer = good;
  longer.push_back(0);
  auto t = parse_npy(longer);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("after the array's data"), std::string::npos);
}

std::vector<uint8_t> npy_with_header(const std::string& dict, size_t data_bytes = 0) {
  const uint8_t prefix[10] = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              static_cast<uint8_t>(dict.size() & 0xff),
                              static_cast<uint8_t>(dict.size() >> 8)};
  std::vector<uint8_t> b(10 + dict.size() + data_bytes, 0);
  std::memcpy(b.data(), prefix, 10);
  std::memcpy(b.data() + 10, dict.data(), dict.size());
  return b;
}

// A folder named like a safetensors file is not a tensor reference: models.safetensors.d/x.npy
// was read as the file "models.safetensors" and the tensor ".d/x.npy".
TEST(LoadTensor, ASafetensorsNameInAFolderIsNoTensorReference) {
  const auto r = load_tensor("/nonexistent/models.safetensors.d/x.npy");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("cannot open /nonexistent/models.safetensors.d/x.npy: No such file or directory"),
            std::string::npos)
      << r.error();
  EXPECT_NE(load_tensor("m.safetensors").error().find("name the tensor, as m.safetensors:TENSOR"), std::string::npos);
}

TEST(Npy, LyingOrHostileHeadersAreErrors) {
  const std::pair<std::string, std::string> cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", "elements"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", "truncated"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "complex"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "structured"},
      {"{'descr': '<f4', 'fortran_order': maybe, 'shape': (1,), }", "fortran_order"},
      {"{'descr': '<f4', 'shape': (1,), }", "lacks"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "unexpected header key"},
      {"{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", "not supported"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,) ", "malformed"},
      {"{'descr': 'O', 'fortran_order': False, 'shape': (1,), }", "not a simple"},
      {"[1, 2]", "not a dictionary"},
      // A dict literal keeps the last of two equal keys: the reader merged them.
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (2,), }", "names 'shape' twice"},
      // literal_eval refuses "01"; the reader read it as 1.
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (01,), }", "leading zero"},
  };
  for (const auto& [dict, expect] : cases) {
    auto t = parse_npy(npy_with_header(dict, 4));
    ASSERT_FALSE(t) << dict;
    EXPECT_NE(t.error().find(expect), std::string::npos) << dict << " -> " << t.error();
  }
  std::vector<uint8_t> v9 = npy_with_header("{}");
  v9[6] = 9;
  EXPECT_NE(parse_npy(v9).error().find("version 9"), std::string::npos);
  // A bool byte other than 0/1 and an int64 beyond 2^53 are refused, not misread.
  auto b = npy_with_header("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }");
  b.push_back(2);
  EXPECT_FALSE(parse_npy(b));
}

TEST(Safetensors, ListsAndReadsWhatTheLibraryWrote) {
  const auto e = expected()["safetensors"];
  auto list = list_safetensors_file(kDir + "/model.safetensors");
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ(list->size(), 4u);
  for (const auto& name : {"layer.weight", "layer.bias", "emb", "bf"}) {
    SCOPED_TRACE(name);
    auto t = read_safetensors_file(kDir + "/model.safetensors", name);
    ASSERT_TRUE(t) << t.error();
    EXPECT_EQ(t->shape, e[name]["shape"].get<std::vector<size_t>>());
    EXPECT_EQ(t->values, doubles(e[name]["values"]));
  }
  auto slice = parse_slice("1:4,2:5");
  ASSERT_TRUE(slice);
  auto t = read_safetensors_file(kDir + "/model.safetensors", "layer.weight", *slice);
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(t->values, doubles(e["layer.weight[1:4,2:5]"]["values"]));
  // The in-memory reader agrees with the file reader.
  auto mem = read_safetensors(bytes_of("model.safetensors"), "bf");
  ASSERT_TRUE(mem);
  EXPECT_EQ(mem->values, doubles(e["bf"]["values"]));
}

TEST(Safetensors, BadNamesSlicesAndFilesAreErrors) {
  auto t = read_safetensors_file(kDir + "/model.safetensors", "nope");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("layer.weight"), std::string::npos);  // names what is there
  t = read_safetensors_file(kDir + "/model.safetensors", "layer.weight", Slice{0, 7, 0, 5});
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("does not fit"), std::string::npos);
  EXPECT_FALSE(parse_slice("1:2"));
  EXPECT_FALSE(parse_slice("a:2,0:1"));
  // An explicit empty range is refused, not read as the whole (an end of 0 meant "to the end").
  t = read_safetensors_file(kDir + "/model.safetensors", "layer.weight", *parse_slice("0:0,0:5"));
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("slice 0:0,0:5 does not fit"), std::string::npos) << t.error();
  // Open ends run to the end; a number past size_t is named, not saturated.
  t = read_safetensors_file(kDir + "/model.safetensors", "layer.weight", *parse_slice("4:,:2"));
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(t->shape, (std::vector<size_t>{2, 2}));
  auto too_far = parse_slice("99999999999999999999:1,0:1");
  ASSERT_FALSE(too_far);
  EXPECT_NE(too_far.error().find("'99999999999999999999' is too large"), std::string::npos) << too_far.error();
  const auto good = bytes_of("model.safetensors");
  for (size_t n = 0; n < good.size(); n += 7) EXPECT_FALSE(read_safetensors(std::span(good).first(n), "bf")) << n;
  auto lie = [](const std::string& header) {
    std::vector<uint8_t> b(8);
    uint64_t n = header.size();
    std::memcpy(b.data(), &n, 8);
    b.insert(b.end(), header.begin(), header.end());
    b.resize(b.size() + 16, 0);
    return b;
  };
  const std::pair<std::string, std::string> cases[] = {
      {R"({"x":{"dtype":"F32","shape":[4],"data_offsets":[0,32]}})", "outside"},
      {R"({"x":{"dtype":"F32","shape":[4],"data_offsets":[16,0]}})", "data_offsets [16, 0] end before they begin"},
      {R"({"x":{"dtype":"F32","shape":[5],"data_offsets":[0,16]}})", "needs 20 bytes"},
      {R"({"x":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,16]}})", "elements"},
      {R"({"x":{"dtype":"C64","shape":[2],"data_offsets":[0,16]}})", "not supported"},
      {R"({"x":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})", "non-negative"},
      {R"({"x":[1,2]})", "needs dtype"},
      {R"({"x":)", "not a JSON object"},
  };
  for (const auto& [header, expect] : cases) {
    auto r = list_safetensors(lie(header));
    ASSERT_FALSE(r) << header;
    EXPECT_NE(r.error().find(expect), std::string::npos) << header << " -> " << r.error();
  }
  std::vector<uint8_t> huge(16, 0xff);
  huge[8] = '{';
  EXPECT_NE(list_safetensors(huge).error().find("limit"), std::string::npos);
  const std::vector<uint8_t> cut = {64, 0, 0, 0, 0, 0, 0, 0, '{', '"', 'x', '"'};  // 64 header bytes claimed, 4 there
  EXPECT_NE(list_safetensors(cut).error().find("header is truncated"), std::string::npos);
  // Another kind of file (JSON, text) is said to be no safetensors file, not a header of 10^17 bytes.
  const std::string json = R"({"weight_map": {"a": "model.safetensors"}})";
  EXPECT_NE(list_safetensors(std::vector<uint8_t>(json.begin(), json.end())).error().find("not a safetensors file"),
            std::string::npos);
  // The same through the file reader, which reads the header's length and first byte from the
  // file: a JSON file, and files of 8 and 5 bytes (the reader's buffer is the first 9 bytes).
  const std::string tmp = ::testing::TempDir() + "pl_not_safetensors_" + std::to_string(::getpid());
  for (const std::string& bytes : {json, std::string("\xff\xff\xff\xff\xff\xff\xff\x7f"), std::string("abcde")}) {
    std::ofstream(tmp, std::ios::binary) << bytes;
    const auto r = list_safetensors_file(tmp);
    ASSERT_FALSE(r) << bytes.size();
    EXPECT_NE(r.error().find("not a safetensors file"), std::string::npos) << r.error();
  }
  std::remove(tmp.c_str());
}

// As strict as the reference library (safetensors' Metadata::validate): the tensors follow one
// another in offset order without gap or overlap and cover the data exactly; a name given twice
// was merged by the JSON parser (the last one won); the header comment said overlaps were fine.
TEST(Safetensors, LayoutNamesAndMetadataAreAsStrictAsTheReference) {
  auto file = [](const std::string& header, size_t data) {
    // Sized once and filled in place: GCC 12 warns (-Warray-bounds, falsely) about an insert
    // into the 8-byte vector.
    std::vector<uint8_t> b(8 + header.size() + data, 0);
    const uint64_t n = header.size();
    std::memcpy(b.data(), &n, 8);
    std::memcpy(b.data() + 8, header.data(), header.size());
    return b;
  };
  const std::string a = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  const std::string b = R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]})";
  ASSERT_TRUE(list_safetensors(file("{" + a + "," + b + "}", 16)));
  ASSERT_TRUE(list_safetensors(file("{" + b + "," + a + "}", 16)));  // any order in the header
  // A field named in two entries, and __metadata__'s own names, are no field given twice.
  ASSERT_TRUE(list_safetensors(file("{" + a + R"(,"__metadata__":{"dtype":"x","format":"pt"}})", 8)));
  const std::tuple<std::string, size_t, std::string> cases[] = {
      {"{" + a + R"(,"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 16,
       "tensor 'b' [4, 12) overlaps tensor 'a' [0, 8)"},
      {"{" + a + R"(,"b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})", 20,
       "a gap of 4 bytes before tensor 'b' [12, 20) (tensor 'a' ends at 8)"},
      {R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12,
       "a gap of 4 bytes before tensor 'b' [4, 12) (the data section starts at 0)"},
      {"{" + a + "," + b + "}", 20, "4 bytes after the last tensor ('b' ends at 16)"},
      {"{" + a + "," + a + "}", 8, "tensor 'a' is named twice"},
      // Bug: a field given twice took the last value (F16 read as F32).
      {R"({"a":{"dtype":"F16","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8, "tensor 'a' gives dtype twice"},
      {"{" + a + R"(,"b":{"shape":[2],"dtype":"F32","data_offsets":[8,16],"shape":[2]}})", 16,
       "tensor 'b' gives shape twice"},
      {"{" + a + R"(,"__metadata__":{"format":3}})", 8, "__metadata__ 'format' is not a string"},
      {"{" + a + R"(,"__metadata__":["pt"]})", 8, "__metadata__ is not a map of strings to strings"},
      {"\xEF\xBB\xBF{" + a + "}", 8, "byte-order mark"},
      // Bug: an array's object had its keys at depth 2 before any tensor's name: a crash.
      {R"([{"dtype":"F32","dtype":"F16"}])", 8, "not a JSON object"},
      {R"({"a\u0000b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8, "NUL"},
      // Bug: the parser ended the header at a raw NUL byte, and what followed went unread.
      {"{" + a + std::string(1, '\0') + "GARBAGE{\"x\": not json", 8, "holds a NUL byte at offset"},
      {R"({"a":)" + std::string(40, '[') + std::string(40, ']') + "}", 8, "nested deeper than 16"},
  };
  for (const auto& [header, data, expect] : cases) {
    auto r = list_safetensors(file(header, data));
    ASSERT_FALSE(r) << header;
    EXPECT_NE(r.error().find(expect), std::string::npos) << header << " -> " << r.error();
  }
  // A name holding a terminal escape sequence is printed escaped.
  const auto esc =
      list_safetensors(file(R"({"\u001b]0;pwned\u0007":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 12));
  ASSERT_FALSE(esc);
  EXPECT_EQ(esc.error().find('\x1b'), std::string::npos) << esc.error();
  EXPECT_NE(esc.error().find("\\x1b]0;pwned\\x07"), std::string::npos) << esc.error();
}

}  // namespace
}  // namespace pl::io
