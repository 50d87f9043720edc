// torch.norm and torch.split are Python in PyTorch (torch/functional.py): their bindings hand a tensor-like
// first argument to its __torch_function__ (or a mode's) through minitorch.overrides.handle_torch_function,
// with the keywords PyTorch's Python passes. Only a call whose input is not a Tensor asks, so tensors pay
// nothing (torch_function.cpp).
#pragma once

#include <utility>

#include "python/bind.h"

namespace mt {

bool python_function_overridden(py::handle x);
template <typename... Kw>
py::object handle_python_function(const char* name, py::handle x, const py::tuple& args, Kw&&... kw) {
  py::object handle = py::module_::import("minitorch.overrides").attr("handle_torch_function");
  return handle(py::module_::import("minitorch").attr(name), py::make_tuple(x), *args,
                std::forward<Kw>(kw)...);
}

}  // namespace mt
