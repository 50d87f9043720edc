// Bindings for the reduce op family (ops/reduce.h).
#include "ops/reduce.h"
#include "python/bind.h"

namespace mt {

void init_reduce(py::module_& m, TensorClass& cls) {}

}  // namespace mt
