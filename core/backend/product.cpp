#include "core/backend/product.h"

namespace pl {

bool is_float16_library_product(const experiment::Accumulation& a) {
  return a.kind == experiment::AccumKind::Blas && a.format == DType::float16 &&
         a.rounding == Rounding::NearestEven;
}

}  // namespace pl
