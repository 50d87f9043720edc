// Bindings for the index op family (ops/index.h).
#include "ops/index.h"
#include "python/bind.h"

namespace mt {

void init_index(py::module_& m, TensorClass& cls) {}

}  // namespace mt
