// TensorImpl bookkeeping: cached numel/contiguity, shape helpers shared by every layer.
#include "core/Tensor.h"

#include <limits>

#include "autograd/AutogradMeta.h"
#include "core/SafeMath.h"
#include "core/StorageAlias.h"

namespace mt {

std::string shape_str(IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + "]";
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector st(sizes.size(), 1);
  int64_t acc = 1;
  bool overflow = false;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    // possible only with a zero size elsewhere (numel is checked); PyTorch refuses such shapes too
    MT_CHECK(!overflow, "Stride calculation overflowed");
    st[i] = acc;
    overflow = mul_overflows(acc, std::max<int64_t>(sizes[i], 1), &acc);
  }
  return st;
}

int64_t compute_numel(IntArrayRef sizes) {
  for (int64_t s : sizes)
    MT_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", shape_str(sizes));
  int64_t n = 0;
  MT_CHECK(checked_numel(sizes, &n), "Storage size calculation overflowed with sizes=", shape_str(sizes));
  return n;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim <= 0 ? 1 : ndim;  // a 0-dim tensor accepts dim 0 and -1
  MT_CHECK_INDEX(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [", -n, ", ",
                 n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

int64_t wrap_size_dim(int64_t dim, int64_t ndim) {
  MT_CHECK_INDEX(ndim > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  return wrap_dim(dim, ndim);
}

TensorImpl::TensorImpl(Storage storage, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                       ScalarType dtype)
    : storage_(std::move(storage)),
      sizes_(sizes.begin(), sizes.end()),
      strides_(strides.begin(), strides.end()),
      offset_(offset),
      dtype_(dtype) {
  refresh();
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_sizes_strides(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  sizes_.assign(sizes.begin(), sizes.end());
  strides_.assign(strides.begin(), strides.end());
  offset_ = offset;
  refresh();
}

void TensorImpl::refresh() {
  // the last line of defence: a shape whose element count wraps must never reach a kernel
  MT_CHECK(checked_numel(sizes_, &numel_), "numel: integer multiplication overflow");
  contiguous_ = true;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contiguous_ = numel_ == 0;
      break;
    }
    expected *= sizes_[i];
  }
}

AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_) autograd_ = std::make_unique<AutogradMeta>();
  return *autograd_;
}

bool Tensor::is_leaf_requiring_grad() const {
  auto* m = impl_->autograd_meta();
  return m && m->requires_grad && !m->grad_fn && !impl_->is_view();
}

bool Tensor::requires_grad() const {
  // a view requires grad when its base does (the base may have gained history after the view was made)
  for (const TensorImpl* t = impl_.get(); t; t = t->view_base().get())
    if (auto* m = t->autograd_meta(); m && m->requires_grad) return true;
  return false;
}

void Tensor::throw_no_data() {
  MT_CHECK_NOT_IMPLEMENTED(false,
                           "Cannot access data of a meta tensor: meta tensors have a shape, dtype and "
                           "strides but no data. Make it on 'cpu' or 'cuda' (Module.to_empty(device=...) "
                           "for a module) to compute values.");
}

Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device) {
  return make_empty_with(sizes, dtype, device, get_allocator(device.type));
}

Tensor make_empty_with(IntArrayRef sizes, ScalarType dtype, Device device, Allocator* allocator) {
  int64_t n = compute_numel(sizes);
  size_t item = element_size(dtype);
  MT_CHECK(n == 0 || static_cast<uint64_t>(n) <= std::numeric_limits<uint64_t>::max() / item,
           "Trying to create tensor with ", n, " elements: size in bytes overflows");
  auto storage = StorageImpl::allocate(static_cast<size_t>(n) * item, device, allocator);
  DimVector strides = contiguous_strides(sizes);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, 0, dtype));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return make_view(base, sizes, strides, offset, base.dtype());
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 ScalarType dtype) {
  // Every view op computes its metadata from a valid tensor; this bound check (a few ns) turns a mistake in
  // that arithmetic, or an overflow it missed, into an error instead of a read outside the storage.
  MT_INTERNAL_ASSERT(sizes.size() == strides.size());
  int64_t lo = offset, hi = offset;
  bool empty = false, overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) empty = true;
    int64_t span = 0;
    overflow |= mul_overflows(sizes[i] - 1, strides[i], &span);
    overflow |= add_overflows(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi);
  }
  if (!empty) {
    int64_t cap = static_cast<int64_t>(base.storage()->nbytes / element_size(dtype));
    MT_CHECK(!overflow && lo >= 0 && hi < cap, "view of sizes ", shape_str(sizes), ", strides ",
             shape_str(strides), " and storage offset ", offset, " is out of bounds for storage of ", cap,
             " elements");
  }
  return Tensor(std::make_shared<TensorImpl>(base.storage(), sizes, strides, offset, dtype));
}

namespace {
// An alias's deleter: its context is the root Storage it keeps alive.
void release_root(void* ctx, void*) {
  delete static_cast<Storage*>(ctx);
}
}  // namespace

const StorageImpl* storage_root(const StorageImpl* s) {
  return s->deleter == release_root ? static_cast<const Storage*>(s->deleter_ctx)->get() : s;
}

Storage alias_storage(const Storage& src, uint32_t version) {
  const Storage& root = src->deleter == release_root ? *static_cast<const Storage*>(src->deleter_ctx) : src;
  auto s = std::make_shared<StorageImpl>();
  s->data = root->data;
  s->nbytes = root->nbytes;
  s->device = root->device;
  s->inference = root->inference;
  s->deleter_ctx = new Storage(root);
  s->deleter = release_root;
  s->version.store(version, std::memory_order_relaxed);
  return s;
}

Tensor data_alias(const Tensor& t) {
  return Tensor(std::make_shared<TensorImpl>(alias_storage(t.storage(), 0), t.sizes(), t.strides(),
                                             t.storage_offset(), t.dtype()));
}

void set_data_keep_version(const Tensor& self, const Tensor& src) {
  if (self.is_same(src)) return;
  TensorImpl moved(alias_storage(src.storage(), self.version()), src.sizes(), src.strides(),
                   src.storage_offset(), src.dtype());
  self.impl()->set_data(moved);
}

}  // namespace mt
