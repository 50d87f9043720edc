// The binding helpers of the `module: nn` rows of csrc/ops/ops.schema (python/bind_nn.h), whose bindings into
// minitorch._C._nn the generator writes.
#include "python/bind_nn.h"

#include <string>

namespace mt {

void warn_size_mismatch(const Tensor& input, const Tensor& target) {
  if (IntArrayRef(input.sizes()).equals(target.sizes())) return;
  std::string msg =
      "Using a target size (torch.Size(" + shape_str(target.sizes()) +
      ")) that is different to the input size (torch.Size(" + shape_str(input.sizes()) +
      ")). This will likely lead to incorrect results due to broadcasting. Please ensure they have "
      "the same size.";
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 2) != 0) throw py::error_already_set();
}

}  // namespace mt
