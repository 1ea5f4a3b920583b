#include "kernels/lt_gemm.h"

#include "kernels/cublaslt_api.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace pl::cuda {
namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;  // what cuBLAS recommends for Hopper

// Which of the heuristic's candidates a plan runs: the first, unless PL_LT_ALGO_INDEX names
// another -- a diagnostic for measuring the candidates one by one (float64 ran 6-9% behind
// cuBLAS's own choice on an H100), never a choice by timing: the product's bits would then
// depend on timing noise.
int algorithm_index() {
  static const int index = [] {
    const char* v = std::getenv("PL_LT_ALGO_INDEX");
    const int i = v ? std::atoi(v) : 0;
    return i >= 0 && i < 64 ? i : 0;
  }();
  return index;
}

cudaDataType_t data_type(Element e) {
  switch (e) {
    case Element::F64: return CUDA_R_64F;
    case Element::F32: return CUDA_R_32F;
    case Element::F16: return CUDA_R_16F;
    case Element::BF16: return CUDA_R_16BF;
    case Element::E4M3: return CUDA_R_8F_E4M3;
    case Element::E5M2: return CUDA_R_8F_E5M2;
    case Element::I8: return CUDA_R_8I;
    default: return CUDA_R_32I;
  }
}

cublasComputeType_t compute_type(LtCompute c) {
  switch (c) {
    case LtCompute::F64: return CUBLAS_COMPUTE_64F;
    case LtCompute::F32Pedantic: return CUBLAS_COMPUTE_32F_PEDANTIC;
    case LtCompute::F32FastTf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case LtCompute::F32: return CUBLAS_COMPUTE_32F;
    case LtCompute::F16: return CUBLAS_COMPUTE_16F;
    default: return CUBLAS_COMPUTE_32I;
  }
}

// alpha = 1, beta = 0 in the scale type the compute type asks for.
struct Scalars {
  cudaDataType_t type;
  alignas(8) unsigned char one[8] = {}, zero[8] = {};
};
Scalars scalars(LtCompute c) {
  Scalars s{};
  if (c == LtCompute::F64) {
    s.type = CUDA_R_64F;
    const double v = 1.0;
    std::memcpy(s.one, &v, sizeof v);
  } else if (c == LtCompute::F16) {
    s.type = CUDA_R_16F;
    const uint16_t v = 0x3C00;  // 1.0 in binary16
    std::memcpy(s.one, &v, sizeof v);
  } else if (c == LtCompute::I32) {
    s.type = CUDA_R_32I;
    const int32_t v = 1;
    std::memcpy(s.one, &v, sizeof v);
  } else {
    s.type = CUDA_R_32F;
    const float v = 1.0f;
    std::memcpy(s.one, &v, sizeof v);
  }
  return s;
}

std::string lt_error(const CublasLtApi& api, const std::string& what, cublasStatus_t st) {
  return what + ": " + api.status_string(st);
}

// The descriptors of one product; destroyed with it.
struct Descriptors {
  const CublasLtApi& api;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  ~Descriptors() {
    if (d) api.layout_destroy(d);
    if (b) api.layout_destroy(b);
    if (a) api.layout_destroy(a);
    if (op) api.desc_destroy(op);
  }
};

Status describe(const LtPlan& p, const LtShape& s, const Scalars& sc, Descriptors& d) {
  const CublasLtApi& api = d.api;
  cublasStatus_t st = api.desc_create(&d.op, compute_type(p.compute), sc.type);
  if (st != CUBLAS_STATUS_SUCCESS) return Error{lt_error(api, "cublasLtMatmulDescCreate", st)};
  const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  api.desc_set(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
  api.desc_set(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n);
  if (p.min_compute_capability >= 89) {  // fp8: the accumulation mode is explicit either way
    const int8_t fast = p.fast_accumulation ? 1 : 0;
    api.desc_set(d.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
  }
  // cuBLAS's A is the weight (k x n column-major, transposed), its B the input (k x m).
  st = api.layout_create(&d.a, data_type(p.weight), s.k, s.n, static_cast<int64_t>(s.k));
  if (st == CUBLAS_STATUS_SUCCESS)
    st = api.layout_create(&d.b, data_type(p.input), s.k, s.m, static_cast<int64_t>(s.k));
  if (st == CUBLAS_STATUS_SUCCESS) st = api.layout_create(&d.d, data_type(p.out), s.n, s.m, static_cast<int64_t>(s.n));
  if (st != CUBLAS_STATUS_SUCCESS) return Error{lt_error(api, "cublasLtMatrixLayoutCreate", st)};
  return {};
}

}  // namespace

struct LtGemm::Cached {
  cublasLtMatmulAlgo_t algo;
  size_t workspace = 0;
  int uses = 0;
};

Expected<std::unique_ptr<LtGemm>> LtGemm::create() {
  auto api = cublaslt_api();
  if (!api) return Error{api.error()};
  std::unique_ptr<LtGemm> g(new LtGemm());
  g->api_ = *api;
  cublasLtHandle_t h = nullptr;
  if (cublasStatus_t st = g->api_->create(&h); st != CUBLAS_STATUS_SUCCESS)
    return Error{lt_error(*g->api_, "cublasLtCreate", st)};
  g->handle_ = h;
  if (cudaError_t e = g->workspace_.allocate(kWorkspaceBytes); e != cudaSuccess)
    return Error{cuda_error("out of GPU memory for the cuBLASLt workspace", e)};
  return g;
}

LtGemm::~LtGemm() {
  if (handle_) api_->destroy(static_cast<cublasLtHandle_t>(handle_));
}

Expected<LtRun> LtGemm::run(const LtPlan& plan, const LtShape& s, const void* a, const void* b, void* d,
                            cudaStream_t stream) {
  auto handle = static_cast<cublasLtHandle_t>(handle_);
  const CublasLtApi& api = *api_;
  const Scalars sc = scalars(plan.compute);
  Descriptors desc{api};
  if (auto ok = describe(plan, s, sc, desc); !ok) return Error{ok.error()};

  const std::string key =
      plan.label + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  std::shared_ptr<Cached> cached;
  if (auto it = algorithms_.find(key); it != algorithms_.end()) cached = it->second;
  if (!cached) {
    cublasLtMatmulPreference_t pref = nullptr;
    api.pref_create(&pref);
    const size_t ws = kWorkspaceBytes;
    api.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    const int want = algorithm_index();
    std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(want) + 1);
    int found = 0;
    const cublasStatus_t st =
        api.heuristic(handle, desc.op, desc.a, desc.b, desc.d, desc.d, pref, want + 1, results.data(), &found);
    api.pref_destroy(pref);
    const std::string at =
        plan.label + " at " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0 || results[0].state != CUBLAS_STATUS_SUCCESS)
      return Error{"cuBLASLt has no algorithm for " + at + " on this GPU" +
                   (st != CUBLAS_STATUS_SUCCESS ? " (" + lt_error(api, "heuristic", st) + ")" : "")};
    if (found <= want || results[static_cast<size_t>(want)].state != CUBLAS_STATUS_SUCCESS)
      return Error{"PL_LT_ALGO_INDEX=" + std::to_string(want) + ": cuBLASLt's heuristic offers " +
                   std::to_string(found) + " algorithms for " + at};
    const cublasLtMatmulHeuristicResult_t& result = results[static_cast<size_t>(want)];
    cached = std::make_shared<Cached>(Cached{result.algo, result.workspaceSize, 0});
    algorithms_[key] = cached;
  }
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaEventRecord(t0, stream);
  const cublasStatus_t st = api.matmul(handle, desc.op, sc.one, b, desc.a, a, desc.b, sc.zero, d, desc.d, d, desc.d,
                                       &cached->algo, workspace_.get(), cached->workspace, stream);
  cudaEventRecord(t1, stream);
  const cudaError_t e = cudaEventSynchronize(t1);
  LtRun run;
  cudaEventElapsedTime(&run.milliseconds, t0, t1);
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  if (st != CUBLAS_STATUS_SUCCESS) return Error{lt_error(api, "cublasLtMatmul " + plan.label, st)};
  if (e != cudaSuccess) return Error{cuda_error("cublasLtMatmul failed on the device", e)};
  run.algorithm = (algorithm_index() == 0 ? std::string("heuristic's first algorithm")
                                          : "heuristic's algorithm #" + std::to_string(algorithm_index())) +
                  ", workspace " + std::to_string(cached->workspace >> 10) + " KiB" +
                  (cached->uses++ > 0 ? ", cached" : "");
  return run;
}

}  // namespace pl::cuda
