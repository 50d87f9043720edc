// The __torch_function__ of Tensor subclasses, as the bindings reach it (defined in torch_function.cpp).
#pragma once

#include <Python.h>

#include <cstddef>

namespace mt {

// A subclass that takes part has been defined (Tensor.__init_subclass__): from then on the bindings look at
// each call's arguments for an instance of one.
extern bool g_subclass_tf;
// What reached the subclass's handler: a Tensor method, a function (by its pybind11 record), an operator, a
// property's getter.
enum class SubclassCall { method = 0, function = 1, op = 2, getter = 3 };
// A call holding an instance of such a subclass goes to minitorch.overrides: *handled then, with the
// handler's result (nullptr and the error set when it raised), else the call binds as usual. `key` names the
// callable: the method's, operator's or property's name, or the function's record.
PyObject* subclass_torch_function(SubclassCall kind, PyObject* key, PyObject* const* args, size_t nargsf,
                                  PyObject* kwnames, bool* handled);
PyObject* subclass_call(SubclassCall kind, const char* name, PyObject* const* args, size_t nargsf,
                        PyObject* kwnames, bool* handled);
PyObject* subclass_call_record(PyObject* record, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                               bool* handled);

}  // namespace mt
