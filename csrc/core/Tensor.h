// TensorImpl (storage + sizes/strides/offset + dtype + autograd slot) and Tensor, the shared handle to it.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/Device.h"
#include "core/Exception.h"
#include "core/ScalarType.h"
#include "core/SmallVector.h"
#include "core/Storage.h"

namespace mt {

// A non-owning view of int64 values (sizes, strides, dims), built from any contiguous container.
class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(const int64_t* d, size_t n) : data_(d), size_(n) {}
  template <size_t N>
  IntArrayRef(const SmallVector<int64_t, N>& v) : data_(v.data()), size_(v.size()) {}
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
  // For arguments only (`zeros({2, 3}, ...)`): the list's array lives until the end of the full expression,
  // so an IntArrayRef made from a braced list must never be stored. GCC warns about exactly that; the warning
  // is silenced here once instead of in every caller.
  // (clang-format loses the class context after the pragmas and would split every accessor below)
  // clang-format off
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  IntArrayRef(std::initializer_list<int64_t> il) : data_(il.begin()), size_(il.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t back() const { return data_[size_ - 1]; }
  DimVector vec() const { return DimVector(begin(), end()); }
  // clang-format on
  bool equals(IntArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (data_[i] != o.data_[i]) return false;
    return true;
  }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

// "[2, 3]": how PyTorch prints shapes inside error messages.
std::string shape_str(IntArrayRef s);
DimVector contiguous_strides(IntArrayRef sizes);
int64_t compute_numel(IntArrayRef sizes);  // throws on overflow
// Wraps a possibly negative dim into [0, ndim); IndexError in PyTorch's words otherwise.
int64_t wrap_dim(int64_t dim, int64_t ndim);
// wrap_dim for reading sizes()/strides(): a 0-dim tensor has none to read (IndexError, as PyTorch's size(0))
int64_t wrap_size_dim(int64_t dim, int64_t ndim);

struct AutogradMeta;  // csrc/autograd/; null for tensors that never required grad

// How a view was made, as PyTorch's CreationMeta: a view made under no_grad or inference mode, or one of the
// outputs of a multi-output view op (split, chunk, unbind), and every view of such a view, may not be written
// in place when autograd would have to record the write (check_inplace), nor read after its storage was
// written in place while its base requires grad (refresh_view_history): the history would be ambiguous.
enum class CreationMeta : uint8_t { Default, NoGradMode, MultiOutputNode, InferenceMode };

class TensorImpl {
 public:
  TensorImpl(Storage storage, IntArrayRef sizes, IntArrayRef strides, int64_t offset, ScalarType dtype);
  ~TensorImpl();

  const Storage& storage() const { return storage_; }
  const DimVector& sizes() const { return sizes_; }
  const DimVector& strides() const { return strides_; }
  int64_t storage_offset() const { return offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device; }
  int64_t numel() const { return numel_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  bool is_contiguous() const { return contiguous_; }
  void set_sizes_strides(IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  // `x.data = y`: take y's storage, metadata and dtype, keep our identity and autograd state.
  void set_data(const TensorImpl& src) {
    storage_ = src.storage_;
    dtype_ = src.dtype_;
    set_sizes_strides(src.sizes_, src.strides_, src.offset_);
  }

  // A 0-dim tensor made from a Python number: it joins type promotion only by category (int/float).
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

  AutogradMeta* autograd_meta() const { return autograd_.get(); }
  AutogradMeta& ensure_autograd_meta();

  // Every view (made by a view op from a tensor that is not an inference tensor, in any mode and of any
  // dtype) knows its root base, Tensor._base (strong: a view keeps its base alive), and how it was made. They
  // live here, not in AutogradMeta, so that a view nothing records (made under no_grad, of an integer
  // tensor) allocates nothing but itself. view_version: the storage version when the view was made or its
  // history last set; a later in-place write anywhere in the storage makes that history stale (remade from
  // the base's when next read, or refused for a CreationMeta other than Default).
  bool is_view() const { return view_base_ != nullptr; }
  const std::shared_ptr<TensorImpl>& view_base() const { return view_base_; }
  CreationMeta creation_meta() const { return creation_; }
  uint32_t view_version() const { return view_version_; }
  void set_view_version(uint32_t v) { view_version_ = v; }
  void set_view_base(std::shared_ptr<TensorImpl> base, CreationMeta creation) {
    view_base_ = std::move(base);
    creation_ = creation;
  }

 private:
  void refresh();
  Storage storage_;
  DimVector sizes_, strides_;
  int64_t offset_;
  int64_t numel_ = 0;
  ScalarType dtype_;
  bool contiguous_ = true;
  bool wrapped_number_ = false;
  CreationMeta creation_ = CreationMeta::Default;  // with the flags above, in the padding before the pointers
  uint32_t view_version_ = 0;
  std::unique_ptr<AutogradMeta> autograd_;
  std::shared_ptr<TensorImpl> view_base_;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  bool is_view() const { return impl_->is_view(); }
  // The root base of a view (Tensor._base); undefined for a tensor that is no view.
  Tensor view_base() const { return Tensor(impl_->view_base()); }

  const DimVector& sizes() const { return impl_->sizes(); }
  const DimVector& strides() const { return impl_->strides(); }
  int64_t size(int64_t d) const { return impl_->sizes()[wrap_size_dim(d, dim())]; }
  int64_t stride(int64_t d) const { return impl_->strides()[wrap_size_dim(d, dim())]; }
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  size_t itemsize() const { return element_size(impl_->dtype()); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  const Storage& storage() const { return impl_->storage(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_cuda() const { return device().is_cuda(); }

  // Address of element 0 (storage base + offset). A meta tensor has none: asking raises (out of line), so
  // no path can read through a null pointer.
  void* data_ptr() const {
    if (impl_->storage()->device.type == DeviceType::Meta) throw_no_data();
    return unchecked_data_ptr();
  }
  // The same without the meta check, for address arithmetic only (TensorIter's operand pointers, which a
  // meta op's no-op kernel never reads).
  void* unchecked_data_ptr() const {
    return static_cast<char*>(impl_->storage()->data) +
           impl_->storage_offset() * static_cast<int64_t>(itemsize());
  }
  template <typename T>
  T* data() const {
    return static_cast<T*>(data_ptr());
  }

  bool requires_grad() const;
  // A leaf that requires grad and is not a view (a parameter, as optimizers and autocast's cast cache see
  // it).
  bool is_leaf_requiring_grad() const;
  bool is_meta() const { return device().is_meta(); }
  bool is_inference() const { return storage()->inference; }
  uint32_t version() const { return storage()->version.load(std::memory_order_relaxed); }
  void bump_version() const { storage()->version.fetch_add(1, std::memory_order_relaxed); }

 private:
  [[noreturn]] static void throw_no_data();
  std::shared_ptr<TensorImpl> impl_;
};

using TensorList = std::vector<Tensor>;

// A tensor with fresh storage and contiguous strides.
Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device);
// The same, with memory from a specific allocator (pinned host memory).
Tensor make_empty_with(IntArrayRef sizes, ScalarType dtype, Device device, Allocator* allocator);
// A tensor over existing storage (views).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
// A view that reads the same bytes as another dtype (view_as_real / view_as_complex); sizes, strides and
// offset count elements of `dtype`.
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 ScalarType dtype);

}  // namespace mt
