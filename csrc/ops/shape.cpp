// Views and shape ops. Views rewrite sizes/strides/offset over the same storage; cat/stack copy.
#include "ops/shape.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/CopyBytes.h"
#include "core/FreshWrites.h"
#include "core/GradMode.h"
#include "core/Parallel.h"
#include "core/SafeMath.h"
#include "core/StorageAlias.h"
#include "core/TypeMeta.h"
#include "generated/native.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/kernels.h"
#include "ops/layout.h"
#include "ops/out.h"

namespace mt {

DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector out(shape.begin(), shape.end());
  int64_t known = 1, infer = -1;
  bool overflow = false;  // a product past int64 can never equal numel: the shape is invalid, not wrapped
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      MT_CHECK(infer < 0, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      MT_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i], " at index ", i, " of shape ",
               shape_str(shape));
      overflow |= mul_overflows(known, shape[i], &known);
      if (shape[i] == 0) overflow = false, known = 0;  // a zero-size dim: no element, whatever the rest
    }
  }
  // PyTorch multiplies without a check and refuses the wrapped product as it would any other, or, where the
  // wrapped product happens to fit, fails later on the tensor's numel: the same two errors here
  if (overflow) {
    bool fits = known == numel || (infer >= 0 && known > 0 && numel % known == 0);
    MT_CHECK(!fits, "numel: integer multiplication overflow");
    MT_ERROR("shape '", shape_str(shape), "' is invalid for input of size ", numel);
  }
  if (infer >= 0 && known == 0) {
    MT_CHECK(numel != 0, "cannot reshape tensor of 0 elements into shape ", shape_str(shape),
             " because the unspecified dimension size -1 can be any value and is ambiguous");
    MT_ERROR("shape '", shape_str(shape), "' is invalid for input of size ", numel);
  }
  bool ok = infer >= 0 ? numel % known == 0 : known == numel;
  MT_CHECK(ok, "shape '", shape_str(shape), "' is invalid for input of size ", numel);
  if (infer >= 0) out[infer] = numel / known;
  return out;
}

Tensor native::as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  MT_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  MT_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  int64_t max_off = offset;
  bool overflow = false, empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    MT_CHECK(sizes[i] >= 0, "as_strided: negative size ", sizes[i]);
    MT_CHECK(strides[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
             shape_str(strides));
    if (sizes[i] == 0) empty = true, max_off = -1;
    int64_t span = 0;
    // sizes and strides may come from a file (minitorch.load): never let the bound wrap around
    if (!empty)
      overflow |= mul_overflows(sizes[i] - 1, strides[i], &span) || add_overflows(max_off, span, &max_off);
  }
  uint64_t need = 0;  // bytes
  overflow |= __builtin_mul_overflow(static_cast<uint64_t>(max_off + 1), self.itemsize(), &need) ||
              need > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  MT_CHECK(!overflow || empty, "Storage size calculation overflowed with sizes=", shape_str(sizes),
           " and strides=", shape_str(strides));
  int64_t cap = static_cast<int64_t>(self.storage()->nbytes / self.itemsize());
  MT_CHECK(max_off < cap, "setStorage: sizes ", shape_str(sizes), ", strides ", shape_str(strides),
           ", storage offset ", offset, ", and itemsize ", self.itemsize(), " requiring a storage size of ",
           need, " are out of bounds for storage of size ", self.storage()->nbytes);
  return make_view(self, sizes, strides, offset);
}

const Tensor& resize_(const Tensor& self, IntArrayRef sizes) {
  MT_CHECK(!self.requires_grad(), "cannot resize variables that require grad");
  for (int64_t s : sizes)
    MT_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", shape_str(sizes));
  if (IntArrayRef(self.sizes()).equals(sizes)) return self;  // the same sizes keep the strides (PyTorch's)
  const int64_t n = compute_numel(sizes), off = self.storage_offset();
  const int64_t have = static_cast<int64_t>(self.storage()->nbytes / self.itemsize());
  if (off + n > have) {
    // borrowed memory (NumPy arrays, buffers, DLPack, shared memory) cannot grow: a copy would leave the
    // owner's array behind, and later writes would no longer reach it
    MT_CHECK(!storage_root(self.storage().get())->deleter, "Trying to resize storage that is not resizable");
    Tensor bigger = make_empty({off + n}, self.dtype(), self.device());
    if (have > 0) {
      Tensor old = make_view(self, {have}, {1}, 0);
      FreshWrites fresh;
      copy_(make_view(bigger, {have}, {1}, 0), old);
    }
    // the new memory continues self's version count (PyTorch grows the storage in place, counter and all)
    bigger.storage()->version.store(self.version(), std::memory_order_relaxed);
    self.impl()->set_data(*bigger.impl());
  }
  self.impl()->set_sizes_strides(sizes, contiguous_strides(sizes), off);
  wrote(self);
  return self;
}

namespace {

bool inference_write_refused(const Tensor& self) {
  return self.is_inference() && !tls_inference_mode;
}

// self takes `storage` (whose counter continues self's, bumped once: views of the old memory see the bump, as
// the ones sharing PyTorch's TensorImpl counter do) and the geometry
void take_storage(const Tensor& self, Storage storage, IntArrayRef sizes, IntArrayRef strides,
                  int64_t offset) {
  storage->version.store(self.version(), std::memory_order_relaxed);
  // an inference tensor stays one and a normal tensor normal, whatever memory it takes (PyTorch's key set)
  storage->inference = self.storage()->inference;
  TensorImpl next(std::move(storage), sizes, strides, offset, self.dtype());
  self.impl()->set_data(next);
}

void check_writable_inference(const Tensor& self) {
  MT_CHECK(
      !inference_write_refused(self),
      "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
      "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
      "details.");
}

}  // namespace

void set_storage_(const Tensor& self, const Storage& storage, int64_t offset, IntArrayRef sizes,
                  const IntArrayRef* strides) {
  check_writable_inference(self);
  // PyTorch's checks, in the order its parts make them
  if (strides)
    MT_CHECK(strides->size() == sizes.size(), "unequal size length (", sizes.size(), ") and stride length (",
             strides->size(), ")");
  MT_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  const bool same = storage_root(self.storage().get()) == storage_root(storage.get());
  MT_CHECK(same || self.device() == storage->device, "Attempted to set the storage of a tensor on device \"",
           self.device().str(), "\" to a storage on different device \"", storage->device.str(),
           "\".  This is no longer allowed; the devices must match.");
  // PyTorch's unsigned numel wraps a negative size around (its own message); one beside a zero size would
  // make a tensor of negative size there, refused here too
  int64_t numel = 0;
  for (int64_t s : sizes) MT_CHECK(s >= 0, "numel: integer multiplication overflow");
  MT_CHECK(checked_numel(sizes, &numel), "numel: integer multiplication overflow");
  DimVector st = strides ? strides->vec() : contiguous_strides(sizes);
  // the bytes the geometry reaches (PyTorch's computeStorageNbytes: none once a size is 0, whatever the
  // strides; a negative stride of a longer dim overflows its unsigned arithmetic)
  uint64_t need = 0;
  if (numel > 0) {
    bool overflow = false;
    int64_t last = offset;
    for (size_t i = 0; i < sizes.size(); ++i) {
      int64_t span = 0;
      if (sizes[i] > 1)
        overflow |=
            st[i] < 0 || mul_overflows(sizes[i] - 1, st[i], &span) || add_overflows(last, span, &last);
    }
    overflow = overflow || __builtin_mul_overflow(static_cast<uint64_t>(last) + 1, self.itemsize(), &need) ||
               need > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    MT_CHECK(!overflow, "Storage size calculation overflowed with sizes=", shape_str(sizes),
             " and strides=", shape_str(strides ? *strides : IntArrayRef()));
  }
  // PyTorch's TensorImpl::set_sizes_and_strides: a negative stride (of a dim of size 0 or 1 here) becomes 1
  // in the last dim, else the next dim's extent, keeping strides monotonic
  for (int64_t i = static_cast<int64_t>(st.size()) - 1; i >= 0; --i)
    if (st[i] < 0)
      st[i] = i + 1 == static_cast<int64_t>(st.size()) ? 1 : std::max<int64_t>(sizes[i + 1], 1) * st[i + 1];
  const bool grow = need > storage->nbytes;
  if (grow) {
    // PyTorch resizes the storage only when the geometry changes (resize_impl_cpu_ returns early otherwise)
    // and then finds it out of bounds
    const bool unchanged =
        IntArrayRef(self.sizes()).equals(sizes) && (!strides || IntArrayRef(self.strides()).equals(*strides));
    MT_CHECK(!unchanged, "setStorage: sizes ", shape_str(sizes), ", strides ",
             shape_str(strides ? *strides : IntArrayRef()), ", storage offset ", offset, ", and itemsize ",
             self.itemsize(), " requiring a storage size of ", need,
             " are out of bounds for storage of size ", storage->nbytes);
    // borrowed memory (NumPy arrays, buffers, DLPack, shared memory) cannot grow, as resize_'s
    MT_CHECK(!storage_root(storage.get())->deleter, "Trying to resize storage that is not resizable");
  }
  wrote(self);
  if (same && !grow) {
    // the same memory: self keeps its storage object, and with it its counter, as PyTorch keeps a storage it
    // is already set to
    self.impl()->set_sizes_strides(sizes, st, offset);
    return;
  }
  if (!grow) {
    take_storage(self, alias_storage(storage, 0), sizes, st, offset);
    return;
  }
  // PyTorch grows the one storage in place, so the source sees the new bytes; ours gives self a copy (an
  // alias over the old memory must never dangle)
  Tensor bigger = make_empty({static_cast<int64_t>(need)}, ScalarType::Byte, storage->device);
  if (storage->nbytes > 0) {
    const auto n = static_cast<int64_t>(storage->nbytes);
    Tensor old(std::make_shared<TensorImpl>(storage, IntArrayRef{n}, IntArrayRef{1}, 0, ScalarType::Byte));
    FreshWrites fresh;
    copy_(make_view(bigger, {n}, {1}, 0), old);
  }
  take_storage(self, bigger.storage(), sizes, st, offset);
}

void set_empty_(const Tensor& self) {
  check_writable_inference(self);
  wrote(self);
  Tensor e = make_empty({0}, self.dtype(), self.device());
  take_storage(self, e.storage(), e.sizes(), e.strides(), 0);
}

void check_set_source(const Tensor& self, const Tensor& source, bool with_geometry) {
  if (with_geometry) {
    MT_CHECK(source.is_contiguous(), "passed in tensor to be used as storage must be contiguous");
    return;
  }
  MT_CHECK(source.dtype() == self.dtype(), "Could not set tensor of type ", cpp_type_name(source.dtype()),
           " to a tensor of type ", cpp_type_name(self.dtype()));
}

bool is_set_to(const Tensor& self, const Tensor& src) {
  return storage_root(self.storage().get()) == storage_root(src.storage().get()) &&
         self.storage_offset() == src.storage_offset() && IntArrayRef(self.sizes()).equals(src.sizes()) &&
         IntArrayRef(self.strides()).equals(src.strides());
}

Tensor view_dtype(const Tensor& self, ScalarType dtype) {
  const int64_t from = static_cast<int64_t>(self.itemsize()),
                to_size = static_cast<int64_t>(element_size(dtype));
  if (from == to_size) return make_view(self, self.sizes(), self.strides(), self.storage_offset(), dtype);
  const std::string what = str(" to view ", dtype_short_name(self.dtype()), " as ", dtype_short_name(dtype),
                               " (different element sizes)");
  MT_CHECK(self.dim() > 0, "self.dim() cannot be 0", what);
  MT_CHECK(self.stride(-1) == 1, "self.stride(-1) must be 1", what, ", but got ", self.stride(-1));
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset();
  if (from > to_size) {
    const int64_t k = from / to_size;
    for (size_t d = 0; d + 1 < strides.size(); ++d) strides[d] *= k;
    sizes.back() *= k;
    offset *= k;
  } else {
    const int64_t k = to_size / from;
    MT_CHECK(sizes.back() % k == 0, "self.size(-1) must be divisible by ", k, what, ", but got ",
             sizes.back());
    for (size_t d = 0; d + 1 < strides.size(); ++d)
      MT_CHECK(strides[d] % k == 0, "self.stride(", d, ") must be divisible by ", k, what, ", but got ",
               strides[d]);
    MT_CHECK(offset % k == 0, "self.storage_offset() must be divisible by ", k, what, ", but got ", offset);
    for (size_t d = 0; d + 1 < strides.size(); ++d) strides[d] /= k;
    sizes.back() /= k;
    offset /= k;
  }
  return make_view(self, sizes, strides, offset, dtype);
}

Tensor native::alias(const Tensor& self) {
  return make_view(self, self.sizes(), self.strides(), self.storage_offset());
}

// Strides for viewing `self` with `shape` without copying, or empty when impossible (PyTorch's
// computeStride).
static bool view_strides(const Tensor& self, IntArrayRef shape, DimVector& out) {
  IntArrayRef old_sizes = self.sizes(), old_strides = self.strides();
  out.assign(shape.size(), 0);
  if (old_sizes.empty()) {
    out.assign(shape.size(), 1);
    return true;
  }
  if (self.numel() == 0) {
    out = contiguous_strides(shape);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor native::view(const Tensor& self, IntArrayRef sizes) {
  DimVector shape = infer_size(sizes, self.numel());
  DimVector strides;
  MT_CHECK(
      view_strides(self, shape, strides),
      "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
      "two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, strides, self.storage_offset());
}

Tensor native::reshape(const Tensor& self, IntArrayRef sizes) {
  DimVector shape = infer_size(sizes, self.numel());
  DimVector strides;
  if (view_strides(self, shape, strides)) return make_view(self, shape, strides, self.storage_offset());
  // a copy, which is no view of self nor of the temporary clone (PyTorch's _unsafe_view): native, unmarked
  return native::view(mt::clone(self), shape);
}

Tensor native::permute(const Tensor& self, IntArrayRef dims) {
  int64_t n = self.dim();
  MT_CHECK(static_cast<int64_t>(dims.size()) == n,
           "permute(sparse_coo): number of dimensions in the tensor input "
           "does not match the length of the desired ordering of dimensions i.e. input.dim() = ",
           n, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n);
    MT_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor native::transpose(const Tensor& self, int64_t d0, int64_t d1) {
  int64_t n = self.dim();
  d0 = wrap_dim(d0, n);
  d1 = wrap_dim(d1, n);
  if (n == 0) return mt::alias(self);
  DimVector sizes = self.sizes(), strides = self.strides();
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor t(const Tensor& self) {
  MT_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  return self.dim() < 2 ? alias(self) : transpose(self, 0, 1);
}

Tensor native::squeeze(const Tensor& self) {
  DimVector sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (self.sizes()[i] != 1) {
      sizes.push_back(self.sizes()[i]);
      strides.push_back(self.strides()[i]);
    }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor native::squeeze(const Tensor& self, IntArrayRef dims) {
  std::vector<bool> drop(std::max<int64_t>(self.dim(), 1), false), seen(drop.size(), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, self.dim());
    MT_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (self.dim() > 0 && self.sizes()[w] == 1) drop[w] = true;
  }
  DimVector sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (!drop[i]) {
      sizes.push_back(self.sizes()[i]);
      strides.push_back(self.strides()[i]);
    }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor native::unsqueeze(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim() + 1);
  DimVector sizes = self.sizes(), strides = self.strides();
  int64_t st = 1;  // any stride suits a size-1 dim; PyTorch's choice, wrapped rather than overflowed
  if (d < self.dim()) mul_overflows(sizes[d], strides[d], &st);
  sizes.insert(d, 1);
  strides.insert(d, st);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor native::expand(const Tensor& self, IntArrayRef sizes) {
  int64_t n = static_cast<int64_t>(sizes.size());
  MT_CHECK(n >= self.dim(), "expand(", "torch.FloatTensor{", shape_str(self.sizes()),
           "}, size=", shape_str(sizes), "): the number of sizes provided (", n,
           ") must be greater or equal to the number of dimensions in the "
           "tensor (",
           self.dim(), ")");
  DimVector out_sizes(n), out_strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t off = n - 1 - i;
    int64_t sd = self.dim() - 1 - off;
    int64_t target = sizes[i];
    if (sd >= 0) {
      int64_t s = self.sizes()[sd];
      if (target == -1) target = s;
      MT_CHECK(target >= 0, "Trying to create tensor with negative dimension ", target, ": ",
               shape_str(sizes));
      MT_CHECK(s == target || s == 1, "The expanded size of the tensor (", target,
               ") must match the existing size (", s, ") at non-singleton dimension ", i,
               ".  Target sizes: ", shape_str(sizes), ".  Tensor sizes: ", shape_str(self.sizes()));
      out_sizes[i] = target;
      out_strides[i] = s == target ? self.strides()[sd] : 0;
    } else {
      MT_CHECK(target >= 0, "The expanded size of the tensor (", target,
               ") isn't allowed in a leading, non-existing dimension ", i);
      out_sizes[i] = target;
      out_strides[i] = 0;
    }
  }
  return make_view(self, out_sizes, out_strides, self.storage_offset());
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  start_dim = wrap_dim(start_dim, self.dim());  // before the 0-dim case: flatten(1, 4) of a scalar raises
  end_dim = wrap_dim(end_dim, self.dim());
  MT_CHECK(start_dim <= end_dim, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (self.dim() == 0) return reshape(self, {1});
  DimVector shape;
  for (int64_t i = 0; i < start_dim; ++i) shape.push_back(self.sizes()[i]);
  int64_t prod = 0;
  MT_CHECK(
      checked_numel(IntArrayRef(self.sizes().data() + start_dim, size_t(end_dim - start_dim + 1)), &prod),
      "numel: integer multiplication overflow");
  shape.push_back(prod);
  for (int64_t i = end_dim + 1; i < self.dim(); ++i) shape.push_back(self.sizes()[i]);
  return reshape(self, shape);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  dim = wrap_dim(dim, self.dim());
  MT_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  DimVector inner = infer_size(sizes, self.sizes()[dim]);
  DimVector shape;
  for (int64_t i = 0; i < dim; ++i) shape.push_back(self.sizes()[i]);
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = dim + 1; i < self.dim(); ++i) shape.push_back(self.sizes()[i]);
  return view(self, shape);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  MT_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  MT_CHECK_INDEX(start >= -size && start <= size, "start out of range (expected to be in range of [", -size,
                 ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  MT_CHECK(length >= 0 && start <= size - length, "start (", start, ") + length (", length,
           ") exceeds dimension size (", size, ").");
  return slice(self, dim, start, start + length, 1);
}

Tensor native::select(const Tensor& self, int64_t dim, int64_t index) {
  MT_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  MT_CHECK_INDEX(index >= -size && index < size, "index ", index, " is out of bounds for dimension ", dim,
                 " with size ", size);
  if (index < 0) index += size;
  DimVector sizes = self.sizes(), strides = self.strides();
  int64_t offset = self.storage_offset() + index * strides[dim];
  sizes.erase(dim);
  strides.erase(dim);
  return make_view(self, sizes, strides, offset);
}

Tensor native::slice(const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step) {
  MT_CHECK_VALUE(step > 0, "step must be greater than zero");
  dim = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  DimVector sizes = self.sizes(), strides = self.strides();
  int64_t offset = self.storage_offset() + start * strides[dim];
  sizes[dim] = ceil_div(end - start, step);
  // a step past the dim's size leaves at most one element, whose stride is never used: stride * step may
  // overflow there (x[::2**62], found by UBSan), and PyTorch's wrapped value is as good as any, so keep it
  int64_t stepped = 0;
  if (mul_overflows(strides[dim], step, &stepped))
    MT_CHECK(sizes[dim] <= 1, "slice: stride calculation overflowed");
  else
    strides[dim] = stepped;
  return make_view(self, sizes, strides, offset);
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  MT_CHECK(self.dim() > 0, "split expects at least a 1-dimensional tensor");
  MT_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  dim = wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  MT_CHECK(split_size > 0 || size == 0,
           "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  std::vector<Tensor> out;
  if (size == 0) {
    out.push_back(alias(self));
    return out;
  }
  DimVector sizes;
  for (int64_t s = 0; s < size; s += split_size) sizes.push_back(std::min(size, s + split_size) - s);
  return split_with_sizes(self, sizes, dim);
}

std::vector<Tensor> native::split_with_sizes(const Tensor& self, IntArrayRef sizes, int64_t dim) {
  MT_CHECK(self.dim() > 0, "split expects at least a 1-dimensional tensor");  // PyTorch's, not an IndexError
  dim = wrap_dim(dim, self.dim());
  int64_t total = 0;
  bool overflow = false;
  for (int64_t s : sizes) {
    MT_CHECK(s >= 0,
             "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
             shape_str(sizes));
    overflow |= add_overflows(total, s, &total);
  }
  MT_CHECK(!overflow && total == self.sizes()[dim], "split_with_sizes expects split_sizes to sum exactly to ",
           self.sizes()[dim], " (input tensor's size at dimension ", dim,
           "), but got split_sizes=", shape_str(sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(mt::slice(self, dim, start, start + s, 1));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  MT_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  MT_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t size = self.sizes()[wrap_dim(dim, self.dim())];
  int64_t split_size = ceil_div(size, chunks);
  if (split_size == 0 && size == 0) {
    std::vector<Tensor> out;
    // `chunks` empty views, as PyTorch: reserving first makes an absurd count (chunk(2**62) of an empty dim,
    // found by the fuzzer) fail at once (length_error / OutOfMemoryError) instead of filling memory
    out.reserve(static_cast<size_t>(chunks));
    for (int64_t i = 0; i < chunks; ++i) out.push_back(alias(self));
    return out;
  }
  return split(self, split_size, dim);
}

namespace {
int64_t tensor_split_dim(const Tensor& self, int64_t dim) {
  MT_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
           self.dim(), " dims");
  return wrap_dim(dim, self.dim());
}
}  // namespace

std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  int64_t d = tensor_split_dim(self, dim);
  MT_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  int64_t n = self.sizes()[d], q = n / sections, r = n % sections, start = 0;
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(sections));  // an absurd count fails here, before any view is made
  for (int64_t i = 0; i < sections; ++i) {
    int64_t len = q + (i < r ? 1 : 0);
    out.push_back(narrow(self, d, start, len));
    start += len;
  }
  return out;
}

std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  int64_t d = tensor_split_dim(self, dim);
  int64_t n = self.sizes()[d];
  auto bound = [n](int64_t i) { return std::min(std::max(i < 0 ? i + n : i, int64_t(0)), n); };
  std::vector<Tensor> out;
  out.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t i : indices) {
    int64_t end = bound(i);
    out.push_back(narrow(self, d, start, std::max(end - start, int64_t(0))));
    start = end;
  }
  out.push_back(narrow(self, d, start, n - start));
  return out;
}

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes());
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(expand(t, shape));
  return out;
}

std::vector<Tensor> native::unbind(const Tensor& self, int64_t dim) {
  dim = wrap_dim(dim, self.dim());
  MT_CHECK_INDEX(self.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.sizes()[dim]; ++i) out.push_back(mt::select(self, dim, i));
  return out;
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  MT_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty()) {
    MT_CHECK(shifts.size() == 1, "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:0");
    return view(roll(flatten(self), shifts, DimVector{0}), self.sizes());
  }
  MT_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
           ", dims:", dims.size());
  if (self.numel() == 0) return clone(self);  // PyTorch returns before it reads the dims
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_size_dim(dims[i], self.dim());
    int64_t n = self.size(d);
    int64_t s = n ? ((shifts[i] % n) + n) % n : 0;
    // one pass of cat per rolled dim: the last s entries move to the front
    if (s) out = cat({narrow(out, d, n - s, s), narrow(out, d, 0, n - s)}, d);
  }
  return out.is_same(self) ? clone(self) : out;
}

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  const int64_t n = static_cast<int64_t>(repeats.size()), nd = self.dim();
  MT_CHECK(n >= nd,
           "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  // self's sizes padded with leading ones; the result viewed as (r0, s0, r1, s1, ...) is self, each size-1
  // dim interleaved in front of its own, expanded: one strided copy fills it (PyTorch's unfolded view of the
  // result)
  DimVector inter, big, out;
  bool ones = true;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = i < n - nd ? 1 : self.sizes()[i - (n - nd)];
    inter.push_back(1);
    inter.push_back(s);
    big.push_back(repeats[i]);
    big.push_back(s);
    int64_t o = 0;
    MT_CHECK(!__builtin_mul_overflow(repeats[i], s, &o), "repeat(): the result size overflows");
    out.push_back(o);
    ones = ones && repeats[i] == 1;
  }
  int64_t numel = 1;
  for (int64_t o : out) {
    MT_CHECK(o >= 0, "Trying to create tensor with negative dimension ", o, ": ", shape_str(out));
    MT_CHECK(!__builtin_mul_overflow(numel, o, &numel), "repeat(): the result size ", shape_str(out),
             " overflows");
  }
  Tensor x = reshape(self, inter);
  // recorded through the view ops: expand's backward sums the gradient over the repeats (PyTorch's
  // RepeatBackward0)
  if (!ones && needs_grad(self)) return reshape(expand(x, big), out);
  Tensor result = make_empty(out, self.dtype(), self.device());
  // the result's own filling: it starts at version 0, as PyTorch's
  FreshWrites fresh;
  if (ones)  // a copy all the same, as repeat always makes (copy_ records it under autograd)
    copy_(result, reshape(x, out));
  else if (result.numel() != 0)
    copy_(view(result, big), expand(x, big));
  return result;
}

Tensor movedim(const Tensor& self, int64_t src, int64_t dst) {
  int64_t n = self.dim();
  src = wrap_dim(src, n);
  dst = wrap_dim(dst, n);
  if (n == 0) return alias(self);  // a scalar: movedim(0, 0) and movedim(-1, 0) are no-ops
  DimVector order;
  for (int64_t i = 0; i < n; ++i)
    if (i != src) order.push_back(i);
  order.insert(dst, src);
  return permute(self, order);
}

Tensor movedim(const Tensor& self, IntArrayRef src, IntArrayRef dst) {
  MT_CHECK(src.size() == dst.size(), "movedim: Invalid source or destination dims: source (", shape_str(src),
           " dims) should contain the same number of dims as destination (", shape_str(dst), " dims)");
  const int64_t n = self.dim();
  DimVector s, d;
  for (size_t i = 0; i < src.size(); ++i) {
    s.push_back(wrap_dim(src[i], n));
    d.push_back(wrap_dim(dst[i], n));
  }
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      MT_CHECK(s[i] != s[j], "movedim: repeated dim in `source` (", shape_str(src), ")");
      MT_CHECK(d[i] != d[j], "movedim: repeated dim in `destination` (", shape_str(dst), ")");
    }
  if (n == 0) return alias(self);
  DimVector order(static_cast<size_t>(n), -1), used(static_cast<size_t>(n), 0);
  for (size_t i = 0; i < s.size(); ++i) {
    order[d[i]] = s[i];
    used[s[i]] = 1;
  }
  int64_t next = 0;  // the dims not moved fill the free places in their own order
  for (int64_t k = 0; k < n; ++k) {
    if (order[k] >= 0) continue;
    while (used[next]) ++next;
    order[k] = next++;
  }
  return permute(self, order);
}

// One strided copy from a view of self that walks each flipped dim backwards: a negative stride, which only
// this copy's iterator ever sees (PyTorch restrides flip's input for TensorIterator the same way). Rows keep
// their memcpy when an outer dim flips; a flipped last dim is a reversed run in the copy kernel.
Tensor native::flip(const Tensor& self, IntArrayRef dims) {
  const int64_t nd = self.dim();
  SmallVector<bool, 8> seen(static_cast<size_t>(std::max<int64_t>(nd, 1)), false);
  DimVector strides = self.strides();
  int64_t offset = self.storage_offset();
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, nd);
    MT_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (nd == 0 || self.sizes()[w] < 2) continue;
    offset += (self.sizes()[w] - 1) * strides[w];
    strides[w] = -strides[w];
  }
  Tensor out = empty_strided_dense(self.sizes(), preserved_strides(self), self.dtype(), self.device());
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, make_view(self, self.sizes(), strides, offset)});
  copy_stub.get(out.device())(it);
  return out;
}

Tensor native::diagonal(const Tensor& self, int64_t offset, int64_t d1, int64_t d2) {
  int64_t n = self.dim();
  d1 = wrap_dim(d1, n);
  d2 = wrap_dim(d2, n);
  MT_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", d1, ", ", d2);
  int64_t s1 = self.sizes()[d1], s2 = self.sizes()[d2];
  int64_t len = offset >= 0 ? std::max<int64_t>(0, std::min(s1, s2 - offset))
                            : std::max<int64_t>(0, std::min(s1 + offset, s2));
  int64_t start = self.storage_offset();
  if (len > 0) start += offset >= 0 ? offset * self.strides()[d2] : -offset * self.strides()[d1];
  DimVector sizes, strides;
  for (int64_t i = 0; i < n; ++i)
    if (i != d1 && i != d2) {
      sizes.push_back(self.sizes()[i]);
      strides.push_back(self.strides()[i]);
    }
  sizes.push_back(len);
  strides.push_back(self.strides()[d1] + self.strides()[d2]);
  return make_view(self, sizes, strides, start);
}

namespace {
// A run of 16..127 bytes in inline 16-byte moves: a memcpy call per run (a [4096, 16] float32 input's 64-byte
// rows) cost more than the move, and 3 of them per row ran cat along dim 1 (F.pad's circular edges) at 0.6 of
// PyTorch's speed.
inline void copy_short_run(char* d, const char* s, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
#endif
  if (i < n) std::memcpy(d + i, s + i, static_cast<size_t>(n - i));
}

// cat along an inner dim of contiguous CPU inputs of out's dtype: out written front to back, each outer row
// taking every input's run in turn (PyTorch's serial cat). A strided copy per input wrote out in one pass
// per input, each touching every row (three 256x256 float32 along dim 1: 18.8 us against PyTorch's 15.2).
// false: some input needs the general copy (a conversion, other strides) or has runs too short to pay.
bool cat_rows(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  const int64_t nd = out.dim();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= out.sizes()[d];
  for (int64_t d = dim + 1; d < nd; ++d) inner *= out.sizes()[d];
  const int64_t item = static_cast<int64_t>(element_size(out.dtype()));
  struct Run {
    const char* p;
    int64_t bytes;
  };
  SmallVector<Run, 8> runs;
  for (const Tensor& t : tensors) {
    if (t.dim() != nd || t.sizes()[dim] == 0) continue;  // skipped 1-D empties, empty parts
    if (t.dtype() != out.dtype() || !t.is_contiguous()) return false;
    // shorter runs (a stack along the last dim: one item each) cost a move per item here; the per-input
    // strided copies handle those 7x faster
    if (t.sizes()[dim] * inner * item < 16) return false;
    runs.push_back({static_cast<const char*>(t.data_ptr()), t.sizes()[dim] * inner * item});
  }
  const int64_t row_bytes = out.sizes()[dim] * inner * item;
  char* o = static_cast<char*>(out.data_ptr());
  auto rows = [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      char* dst = o + r * row_bytes;
      for (const Run& run : runs) {
        if (run.bytes < 128)
          copy_short_run(dst, run.p + r * run.bytes, run.bytes);
        else
          copy_bytes(dst, run.p + r * run.bytes, static_cast<size_t>(run.bytes));
        dst += run.bytes;
      }
    }
  };
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 22) / std::max<int64_t>(row_bytes, 1));
  if (outer <= grain)
    rows(0, outer);
  else
    parallel_for(0, outer, grain, rows);
  return true;
}
// cat's checks, in PyTorch's order: the result's sizes and dtype, dim wrapped
struct CatShape {
  DimVector sizes;
  ScalarType dtype;
  Device device;
  int64_t dim;
};
CatShape cat_shape(const std::vector<Tensor>& tensors, int64_t dim) {
  MT_CHECK_VALUE(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  // 1-D empty tensors are skipped, as PyTorch (legacy behaviour)
  const Tensor* ref = nullptr;
  for (const Tensor& t : tensors)
    if (!(t.dim() == 1 && t.numel() == 0)) {
      ref = &t;
      break;
    }
  ScalarType dt = tensors[0].dtype();
  for (const Tensor& t : tensors) dt = promote_types(dt, t.dtype());
  // PyTorch's cat_check_no_zero_dim, over every input before the dim is read
  for (size_t i = 0; i < tensors.size(); ++i)
    MT_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
  // every input 1-D and empty: PyTorch's legacy_cat_wrap_dim reads no dim (any is taken), the result empty
  if (!ref) return {DimVector{0}, dt, tensors[0].device(), 0};
  dim = wrap_dim(dim, ref->dim());
  DimVector out_sizes = ref->sizes();
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    MT_CHECK(t.device() == ref->device(),
             "Expected all tensors to be on the same device, but found at least two "
             "devices, ",
             ref->device().str(), " and ", t.device().str(), "!");
    if (t.dim() == 1 && t.numel() == 0 && t.dim() != ref->dim()) continue;
    if (t.dim() == 1 && t.numel() == 0 && ref->dim() != 1) continue;
    MT_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
             t.dim());
    for (int64_t d = 0; d < t.dim(); ++d)
      MT_CHECK(d == dim || t.sizes()[d] == ref->sizes()[d],
               "Sizes of tensors must match except in dimension ", dim, ". Expected size ", ref->sizes()[d],
               " but got size ", t.sizes()[d], " for tensor number ", i, " in the list.");
    MT_CHECK(!add_overflows(total, t.sizes()[dim], &total), "cat(): the total size along dimension ", dim,
             " overflows");
  }
  out_sizes[dim] = total;
  return {out_sizes, dt, ref->device(), dim};
}

// cat's copies into out (the result's sizes and dtype, contiguous)
void cat_to(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  const ScalarType dt = out.dtype();
  // along dim 0 too below the copy kernel's threading grain (1 MiB): one copy per input without the
  // TensorIterator each (stack of 16 [33, 100] float32 in 8.5 us against PyTorch's 4.5)
  const bool rows_pay = dim > 0 || out.numel() * static_cast<int64_t>(element_size(dt)) < (int64_t(1) << 20);
  if (rows_pay && out.device().is_cpu() && out.numel() > 0 && cat_rows(out, tensors, dim)) return;
  int64_t off = 0;
  DimVector part = out.sizes();
  for (const Tensor& t : tensors) {
    if (t.dim() != out.dim()) continue;
    int64_t len = t.sizes()[dim];
    if (len == 0) continue;
    part[dim] = len;  // out's slice [off, off + len) along dim
    copy_into_fresh(make_view(out, part, out.strides(), off * out.strides()[dim]), t);
    off += len;
  }
}
}  // namespace

Tensor native::cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const CatShape c = cat_shape(tensors, dim);
  Tensor out = make_empty(c.sizes, c.dtype, c.device);
  cat_to(out, tensors, c.dim);
  return out;
}

bool cat_into(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  const CatShape c = cat_shape(tensors, dim);
  if (c.device.is_meta() || !out_takes(out, c.sizes, c.dtype, c.device, false, {})) return false;
  for (const Tensor& t : tensors)
    if (same_memory(out, t)) return false;
  cat_to(out, tensors, c.dim);
  wrote(out);
  return true;
}

namespace {
// stack's checks; dim wrapped
int64_t check_stack(const std::vector<Tensor>& tensors, int64_t dim) {
  MT_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  dim = wrap_dim(dim, tensors[0].dim() + 1);
  for (size_t i = 1; i < tensors.size(); ++i)
    MT_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack expects each tensor to be equal size, but got ",
             shape_str(tensors[0].sizes()), " at entry 0 and ", shape_str(tensors[i].sizes()), " at entry ",
             i);
  return dim;
}
}  // namespace

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (autocast::active()) {
    autocast::Scope s(autocast::Op::stack, tensors);
    return stack(s(tensors), dim);
  }
  dim = check_stack(tensors, dim);
  // along dim 0, the inputs laid end to end are the result: cat them as they are and view the result with the
  // new dim, instead of an unsqueezed view of each first (a DataLoader's collate of 64 small samples spent
  // half its time making those views)
  if (dim == 0 && tensors[0].dim() > 0) {
    DimVector sizes = tensors[0].sizes();
    sizes.insert(0, static_cast<int64_t>(tensors.size()));
    Tensor r = cat(tensors, 0);
    if (r.requires_grad()) return view(r, sizes);                      // the graph's view
    r.impl()->set_sizes_strides(sizes, contiguous_strides(sizes), 0);  // a fresh tensor no one else holds
    return r;
  }
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, dim));
  return cat(parts, dim);
}

bool stack_into(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  dim = check_stack(tensors, dim);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, dim));
  return cat_into(out, parts, dim);
}

}  // namespace mt
