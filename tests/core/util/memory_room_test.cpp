// The memory room (core/util/memory_room.h): its parsers read the kernel's files as Linux writes
// them, the check's message says what is needed and what is free, and a run, a cast and a file
// read too large for the room are refused with that message before they allocate (a process
// under `ulimit -v` ended in std::bad_alloc and std::terminate).
#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/experiment/matmul.h"
#include "core/experiment/roundtrip.h"
#include "core/experiment/throughput.h"
#include "core/io/npy.h"
#include "core/util/memory_room.h"

namespace pl {
namespace {

TEST(MemoryRoom, ParsesTheKernelsFiles) {
  const char* meminfo =
      "MemTotal:       24617128 kB\nMemFree:          512000 kB\nMemAvailable:   24217128 kB\nBuffers: 1 kB\n";
  EXPECT_EQ(kib_field(meminfo, "MemAvailable:"), 24217128.0 * 1024);
  EXPECT_EQ(kib_field(meminfo, "MemFree:"), 512000.0 * 1024);
  EXPECT_FALSE(kib_field(meminfo, "SwapTotal:"));
  EXPECT_FALSE(kib_field("MemAvailable: lots kB\n", "MemAvailable:"));
  EXPECT_EQ(kib_field("Name:\tprecision-lab\nVmSize:\t  123456 kB\n", "VmSize:"), 123456.0 * 1024);
  EXPECT_EQ(cgroup_number("4294967296\n"), 4294967296.0);
  EXPECT_GE(*cgroup_number("max\n"), 0x1p60);  // no limit
  EXPECT_FALSE(cgroup_number(""));
  const char* stat = "active_anon 100\ninactive_file 2048\nactive_file 4096\ntotal_inactive_file 8192\n";
  EXPECT_EQ(stat_field(stat, "inactive_file"), 2048.0);  // not total_inactive_file's
  EXPECT_EQ(stat_field(stat, "total_inactive_file"), 8192.0);
  EXPECT_FALSE(stat_field(stat, "inactive_anon"));
}

TEST(MemoryRoom, TheCheckSaysWhatIsNeededAndWhatIsFree) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  const MemoryRoom room{2.5 * kGiB, "ulimit -v"};
  EXPECT_EQ(check_room(2 * kGiB, "the shape", room).error(), "");
  EXPECT_EQ(check_room(6 * kGiB, "the shape", room).error(),
            "the shape needs about 6.0 GiB of working memory; 2.5 GiB is free here (ulimit -v)");
  EXPECT_EQ(check_room(1e30, "the shape", std::nullopt).error(), "");  // nothing known, nothing refused
  const auto here = memory_room();
  ASSERT_TRUE(here) << "Linux has /proc/meminfo";
  EXPECT_GT(here->bytes, 0);
  EXPECT_FALSE(here->source.empty());
}

// Lowers the address-space limit for the scope (the runs below must be refused, not killed).
class AddressSpaceLimit {
 public:
  explicit AddressSpaceLimit(rlim_t bytes) {
    getrlimit(RLIMIT_AS, &before_);
    rlimit lowered = before_;
    lowered.rlim_cur = bytes;
    ok_ = setrlimit(RLIMIT_AS, &lowered) == 0;
  }
  ~AddressSpaceLimit() { setrlimit(RLIMIT_AS, &before_); }
  bool ok() const { return ok_; }

 private:
  rlimit before_{};
  bool ok_ = false;
};

// Under an address-space limit 1 GiB above what the process has, a run needing more is refused
// with the limit named, and one that fits runs.
TEST(MemoryRoom, RunsAndFilesPastTheRoomAreRefusedBeforeTheyAllocate) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers' shadow memory does not live under an address-space limit";
#endif
  const auto before = memory_room();
  ASSERT_TRUE(before);
  std::ifstream status("/proc/self/status");
  std::string text((std::istreambuf_iterator<char>(status)), std::istreambuf_iterator<char>());
  const auto size = kib_field(text, "VmSize:");
  ASSERT_TRUE(size);
  // A fresh .npy of 2^28 float64s (2 GiB of data, sparse on disk), written before the limit.
  const std::string path = ::testing::TempDir() + "pl_memory_room_" + std::to_string(getpid()) + ".npy";
  {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (16384, 16384), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    out << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff) << char(header.size() >> 8) << header;
    out.seekp(static_cast<std::streamoff>(10 + header.size() + (size_t{1} << 31) - 1));
    out.put('\0');
  }
  {
    const AddressSpaceLimit limit(static_cast<rlim_t>(*size) + (rlim_t{1} << 30));
    if (!limit.ok()) GTEST_SKIP() << "cannot lower RLIMIT_AS here";
    experiment::MatmulConfig big;
    big.m = big.n = 8192;
    big.k = 2048;
    const auto refused = experiment::run_matmul(big);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("the shape needs about 7.5 GiB of working memory; "), std::string::npos)
        << refused.error();
    EXPECT_NE(refused.error().find("(ulimit -v)"), std::string::npos) << refused.error();
    experiment::MatmulConfig small;
    small.m = small.n = small.k = 64;
    EXPECT_TRUE(experiment::run_matmul(small).ok());

    experiment::RoundtripConfig cast;
    cast.rows = cast.cols = 16384;
    const auto cast_refused = experiment::run_roundtrip(cast);
    ASSERT_FALSE(cast_refused.ok());
    EXPECT_EQ(cast_refused.error().rfind("the array needs about 10.0 GiB of working memory; ", 0), 0u)
        << cast_refused.error();

    const auto file = io::read_npy(path);
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.error().rfind("reading " + path + " needs about 4.0 GiB of working memory; ", 0), 0u)
        << file.error();
    // The throughput bench's operands at 4096^2 (0.75 GiB at the peak), under 0.5 GiB of room.
    const AddressSpaceLimit tighter(static_cast<rlim_t>(*size) + (rlim_t{1} << 29));
    ASSERT_TRUE(tighter.ok());
    const auto bench = experiment::prepare_product_bench(DType::float32, 4096, BackendChoice::Cpu);
    ASSERT_FALSE(bench.ok());
    EXPECT_EQ(bench.error().rfind("float32's 4096^3 product needs about 0.8 GiB of working memory; ", 0), 0u)
        << bench.error();
    const auto header = io::read_npy_header(path);  // reads 1 MiB at most
    ASSERT_TRUE(header.ok()) << header.error();
    EXPECT_EQ(header->shape, (std::vector<size_t>{16384, 16384}));
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pl
