// Indexing bindings: Tensor.__getitem__/__setitem__ parse NumPy-style keys in C++ (ints, slices, None,
// Ellipsis, bools, tensors, lists), apply the basic part as views and hand the rest to index/index_put_. Also
// the index family's schema rows with `binding: own` (index_put/index_put_'s indices, nonzero's as_tuple);
// the other rows (index_select, gather, scatter, scatter_add, masked_select) are generated from
// csrc/ops/ops.schema.
#include <algorithm>

#include "core/FreshWrites.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/index.h"
#include "ops/shape.h"
#include "python/bind.h"

namespace mt {

namespace {

Tensor as_index_tensor(py::handle h) {
  if (py::isinstance<TensorImpl>(h)) return h.cast<Tensor>();
  // lists, tuples inside lists, NumPy arrays: the Python factory infers int64/bool as PyTorch does
  Tensor t = py::module_::import("minitorch").attr("tensor")(h).cast<Tensor>();
  // an empty list selects nothing: index with int64 rather than the default float dtype
  return t.numel() == 0 && is_floating(t.dtype()) ? to(t, ScalarType::Long, t.device()) : t;
}

// index_put(_)'s indices as PyTorch's parser takes them from Python: a tuple or list of tensors, no None and
// no plain numbers (Tensor.__getitem__'s keys are the permissive form).
std::vector<std::optional<Tensor>> index_put_indices(py::handle indices, const char* fn) {
  MT_CHECK_TYPE(py::isinstance<py::tuple>(indices) || py::isinstance<py::list>(indices), fn,
                "(): argument 'indices' (position 1) must be tuple of Tensors, not ", arg_type_name(indices));
  std::vector<std::optional<Tensor>> idx;
  for (py::handle h : indices) {
    MT_CHECK_TYPE(py::isinstance<TensorImpl>(h), "expected Tensor as element ", idx.size(),
                  " in argument 0, but got ", arg_type_name(h));
    idx.push_back(h.cast<Tensor>());
  }
  return idx;
}

struct Parsed {
  Tensor view;                                  // self after ints, slices, None, Ellipsis
  std::vector<std::optional<Tensor>> advanced;  // per dim of `view`
  bool has_advanced = false;
};

// How many dims of self an item consumes (None and Ellipsis: 0).
int64_t consumed(py::handle item) {
  if (item.is_none() || item.ptr() == Py_Ellipsis || PyBool_Check(item.ptr())) return 0;
  if (py::isinstance<TensorImpl>(item)) {
    Tensor t = item.cast<Tensor>();
    return (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::Byte) ? std::max<int64_t>(t.dim(), 0)
                                                                            : 1;
  }
  return 1;
}

// PyTorch's treatSequenceAsTuple (NumPy's old rule): a list shorter than 32 holding a slice, Ellipsis, None,
// a tensor or a sequence indexes as the tuple of its items (`x[[slice(0, 1), 0]]`), with PyTorch's warning;
// one of plain ints (`x[[0, 1]]`) is a tensor index
bool list_as_tuple(py::handle key) {
  if (!PyList_Check(key.ptr())) return false;
  Py_ssize_t n = PyList_GET_SIZE(key.ptr());
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* e = PyList_GET_ITEM(key.ptr(), i);
    if (PySlice_Check(e) || e == Py_Ellipsis || e == Py_None || py::isinstance<TensorImpl>(e) ||
        (PySequence_Check(e) && !PyUnicode_Check(e) && !PyBytes_Check(e)))
      return true;
  }
  return false;
}

Parsed parse_index(const Tensor& self, py::handle key) {
  py::tuple items;
  if (py::isinstance<py::tuple>(key)) {
    items = py::reinterpret_borrow<py::tuple>(key);
  } else if (list_as_tuple(key)) {
    if (PyErr_WarnEx(
            PyExc_UserWarning,
            "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
            "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
            "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
            "a different result",
            1) < 0)
      throw py::error_already_set();
    items = py::tuple(py::reinterpret_borrow<py::list>(key));
  } else {
    items = py::make_tuple(key);
  }
  int64_t specified = 0;
  bool ellipsis = false;
  for (py::handle it : items) {
    if (it.ptr() == Py_Ellipsis) {
      MT_CHECK_INDEX(!ellipsis, "an index can only have a single ellipsis ('...')");
      ellipsis = true;
    }
    specified += consumed(it);
  }
  MT_CHECK_INDEX(specified <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Parsed p;
  Tensor v = self;
  int64_t dim = 0;
  int64_t orig = 0;  // the dim of self an int refers to, for PyTorch's error message
  auto mark = [&](StrictInt d, std::optional<Tensor> t) {
    if (static_cast<int64_t>(p.advanced.size()) <= d) p.advanced.resize(d + 1);
    p.advanced[d] = std::move(t);
    p.has_advanced = true;
  };
  // A bool (PyTorch's boolToIndexingTensor): a new dim of size 1 indexed by [0] (True) or [] (False), an
  // advanced index like any other, so several bools broadcast together instead of each adding a dim.
  auto bool_index = [&](StrictBool b) {
    v = unsqueeze(v, dim);
    mark(dim, zeros({b ? 1 : 0}, ScalarType::Long, Device(DeviceType::CPU)));
    ++dim;
  };
  for (py::handle it : items) {
    int64_t before = orig;
    orig += consumed(it);
    if (PyLong_Check(it.ptr()) && !PyBool_Check(it.ptr())) {
      int64_t i = it.cast<int64_t>(), size = v.sizes()[dim];
      MT_CHECK_INDEX(i >= -size && i < size, "index ", i, " is out of bounds for dimension ", before,
                     " with size ", size);
      v = select(v, dim, i);
    } else if (PySlice_Check(it.ptr())) {
      Py_ssize_t start, stop, step;
      MT_CHECK_TYPE(PySlice_Unpack(it.ptr(), &start, &stop, &step) == 0, "invalid slice");
      MT_CHECK_VALUE(step > 0, "step must be greater than zero");
      int64_t size = v.sizes()[dim];
      // PySlice_AdjustIndices clamps like Python; our slice() takes the clamped bounds
      PySlice_AdjustIndices(size, &start, &stop, step);
      v = slice(v, dim, start, std::max<Py_ssize_t>(start, stop), step);
      ++dim;
    } else if (it.is_none()) {
      v = unsqueeze(v, dim);
      ++dim;
    } else if (it.ptr() == Py_Ellipsis) {
      orig = self.dim() - (specified - before);
      dim += v.dim() - dim - (specified - [&] {
               int64_t before = 0;  // dims consumed by items before the ellipsis were already walked
               for (py::handle j : items) {
                 if (j.ptr() == Py_Ellipsis) break;
                 before += consumed(j);
               }
               return before;
             }());
    } else if (PyBool_Check(it.ptr())) {
      bool_index(it.ptr() == Py_True);
    } else {
      Tensor t = as_index_tensor(it);
      if (t.dim() == 0 && is_integral(t.dtype(), false)) {  // a 0-dim integer tensor indexes like an int
        v = select(v, dim, item(t).to_long());
        continue;
      }
      if (t.dim() == 0 && t.dtype() == ScalarType::Bool) {  // like a Python bool
        bool_index(item(t).to_bool());
        continue;
      }
      check_index_dtype(t);
      mark(dim, t);
      dim += (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::Byte) ? t.dim() : 1;
    }
  }
  p.view = v;
  return p;
}

}  // namespace

void init_index(py::module_& m, TensorClass& cls) {
  cls.def("__getitem__", [](const Tensor& self, py::handle key) {
    if (PyLong_Check(key.ptr()) && !PyBool_Check(key.ptr())) return select(self, 0, key.cast<int64_t>());
    Parsed p = parse_index(self, key);
    if (!p.has_advanced) return p.view.is_same(self) ? alias(self) : p.view;
    return nogil([&] { return index(p.view, p.advanced); }, p.view);
  });
  cls.def("__setitem__", [](const Tensor& self, py::handle key, py::handle value) {
    Tensor v = py::isinstance<TensorImpl>(value) ? value.cast<Tensor>() : Tensor();
    const uint32_t version = self.version();
    Parsed p = parse_index(self, key);
    // PyTorch's slicePrefix1sSize: a value of another shape loses its leading size-1 dims before it is
    // broadcast into the target (x[0] = y[None] writes y)
    if (v.defined() && (p.has_advanced || !IntArrayRef(p.view.sizes()).equals(v.sizes())))
      while (v.dim() > 0 && v.sizes()[0] == 1) v = select(v, 0, 0);
    if (!p.has_advanced) {
      // x[:] = y (or x[...] = y) writes all of x: copy into x itself, so that x records y's history when y
      // requires grad (a fresh view of x would take the history and x would silently lose it)
      bool whole = p.view.sizes() == self.sizes() && p.view.strides() == self.strides() &&
                   p.view.storage_offset() == self.storage_offset();
      if (v.defined()) {
        nogil([&] { copy_(whole ? self : p.view, v); }, p.view, v);
      } else {
        Scalar s = parse_scalar(value, "value");
        nogil([&] { fill_(p.view, s); }, p.view);
      }
    } else {
      if (!v.defined()) {
        Scalar s = parse_scalar(value, "value");
        // PyTorch's x[long_index] = number is x.index_fill_(0, ...), which refuses a complex number first
        if (s.is_complex() && !is_complex(self.dtype()) && p.view.is_same(self) && !p.advanced.empty() &&
            p.advanced[0] && p.advanced[0]->dtype() == ScalarType::Long &&
            std::count_if(p.advanced.begin(), p.advanced.end(),
                          [](const auto& a) { return a.has_value(); }) == 1)
          MT_ERROR("index_fill_(): Converting complex Scalar to non-complex type is not supported");
        v = scalar_tensor(s, self.dtype(), Device(DeviceType::CPU));
      }
      nogil([&] { index_put_(p.view, p.advanced, v, false); }, p.view, v);
    }
    // one bump per assignment, as PyTorch's; the write bumps none when it selected nothing
    if (self.version() == version) wrote(self);
  });
  cls.def(
      "index_put_",
      [](py::object self, py::object indices, const Tensor& values, StrictBool accumulate) {
        std::vector<std::optional<Tensor>> idx = index_put_indices(indices, "index_put_");
        Tensor t = self.cast<Tensor>();
        nogil([&] { index_put_(t, idx, values, accumulate); }, t, values);
        return self;
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  cls.def(
      "index_put",
      [](const Tensor& self, py::object indices, const Tensor& values, StrictBool accumulate) {
        std::vector<std::optional<Tensor>> idx = index_put_indices(indices, "index_put");
        return nogil(
            [&] {
              Tensor out = clone(self);
              FreshWrites fresh;
              index_put_(out, idx, values, accumulate);
              return out;
            },
            self, values);
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);

  auto nonzero_fn = [](const Tensor& self, StrictBool as_tuple) -> py::object {
    Tensor nz = nogil([&] { return nonzero(self); }, self);
    if (!as_tuple) return py::cast(nz);
    py::tuple t(std::max<int64_t>(self.dim(), 1));
    for (int64_t d = 0; d < std::max<int64_t>(self.dim(), 1); ++d)
      // a 0-dim input counts as one element along one dim (PyTorch: where(tensor(True)) is (tensor([0]),))
      t[d] = py::cast(self.dim() ? select(nz, 1, d) : select(nonzero(reshape(self, {1})), 1, 0));
    return t;
  };
  m.def("nonzero", nonzero_fn, py::arg("input"), py::kw_only(), py::arg("as_tuple") = false);
  cls.def("nonzero", nonzero_fn, py::kw_only(), py::arg("as_tuple") = false);
}

}  // namespace mt
