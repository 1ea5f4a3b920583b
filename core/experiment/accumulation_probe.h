// Probes of how a backend's library GEMM adds (after Fasi, Higham, Mikaitis and Pranesh,
// "Numerical behavior of NVIDIA tensor cores", PeerJ Computer Science 7:e330, 2021): dot
// products of crafted powers of two whose exact sums need more bits than the accumulator
// keeps. What comes back says whether the sum is rounded to nearest or truncated, how many
// bits below the accumulator's last place the hardware still sees, whether ties go to even,
// how many bits a partial sum keeps (float8 tensor cores keep fewer than float32's 24), and
// after how many products partial sums are promoted to full float32.
//
// Each probe is a 16 x 16 x K product through Backend::product (row 0 of A and of B carry the
// terms, every other element is zero; K padded to 16), so it runs the kernels the library
// picks for tensor-core shapes. The backend's order of addition is not known: a probe of two
// terms is rounded once in any order, and a probe of three is tried with its terms in several
// places along K (accumulation_probe.cpp says which and why). Every term is a
// product x * y of two numbers of the input dtype; a probe whose terms the dtype cannot hold
// is reported as not run, with the reason. Device-independent: on the CPU backend it reads
// OpenBLAS (round to nearest, 24 bits, no promotion interval).
#pragma once

#include <string>
#include <vector>

#include "core/accumulate/accumulate.h"
#include "core/backend/backend.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct ProbeFinding {
  std::string question;  // "rounding of a sum", "extra bits seen below the last place", ...
  std::string answer;    // "round to nearest", "3", "not run"
  std::string evidence;  // the terms, the exact sum and what came back
};

struct ProbeReport {
  std::string backend, device, method;  // method: what ran (the backend's account)
  DType input = DType::float16;
  Accumulation accumulate;
  bool fast_accumulation = false;
  std::vector<ProbeFinding> findings;
  // Read off the findings: the partial sums' bits of precision (24 for full float32) and the
  // promotion interval in products (0: none seen up to the longest probe).
  int accumulator_bits = 0;
  int promotion_interval = 0;
  bool truncating = false;  // the sums were truncated (else rounded to nearest, or not known)
  // A multi-term adder, where the normalisation probe found one: products it adds at once with
  // the running sum, and bits kept below the last place while aligning (0 and -1: none found).
  int block_terms = 0;
  int extra_bits = -1;
  // The findings as an accumulation model the experiments can run ("tf32:chunked:32:rtz"), when
  // a dtype has the partial sums' precision (24: float32, 11: tf32, 8: bfloat16 -- each with
  // float32's exponent range -- and 53, to nearest: float64); else empty, and `model_note` says why.
  std::string model;
  std::string model_note;
};

// Why the probes cannot ask about this input and model (an integer sum, an integer input), or
// nothing: the request's own fault, checked before a device is opened.
Status check_probe_request(DType input, const Accumulation& acc);

// Runs every probe on `backend` (which must support the library product of `input` x `input`
// under `accumulate`, by default float32 accumulation).
Expected<ProbeReport> probe_accumulation(Backend& backend, DType input,
                                         const Accumulation& accumulate = {AccumKind::Blas, DType::float32},
                                         bool fast_accumulation = false);

// How well `model` reproduces the same library product on random inputs (64 x 64 x 1024, how
// many elements bit for bit): the probe's last finding, for a model given instead of read off
// the findings -- to compare candidate models against a device (accumulation-probe
// --check-model). An error where probe_accumulation would give one.
Expected<ProbeFinding> check_model(Backend& backend, DType input, const Accumulation& accumulate,
                                   bool fast_accumulation, const Accumulation& model);

}  // namespace pl::experiment
