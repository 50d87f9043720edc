// Bindings for the linalg op family (ops/linalg.h).
#include "ops/linalg.h"
#include "python/bind.h"

namespace mt {

void init_linalg(py::module_& m, TensorClass& cls) {}

}  // namespace mt
