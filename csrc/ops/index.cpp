// Advanced indexing, index_put_, gather/scatter, index_select, nonzero, masked_select. Advanced indexing
// reduces to element offsets (computed on the host, bounds-checked) and one gather or put kernel; gather and
// scatter walk the index tensor in the device's dim kernel where it has one.
#include "ops/index.h"

#include <numeric>

#include "core/FreshWrites.h"
#include "core/GradMode.h"
#include "core/StorageAlias.h"
#include "core/TensorIterator.h"
#include "generated/native.h"
#include "kernels/cpu/MaskScan.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/index_dim.h"
#include "ops/kernels.h"
#include "ops/layout.h"
#include "ops/out.h"
#include "ops/reduce.h"
#include "ops/scatter.h"
#include "ops/shape.h"

namespace mt {

void check_index_dtype(const Tensor& t) {
  ScalarType d = t.dtype();
  MT_CHECK_INDEX(
      d == ScalarType::Long || d == ScalarType::Int || d == ScalarType::Byte || d == ScalarType::Bool,
      "tensors used as indices must be long, int, byte or bool tensors");
}

namespace {

// A CUDA index tensor is read on the host: one device-to-host copy of the compact tensor, which waits for
// the stream (PyTorch's boolean-mask indexing syncs too). Later optimisation: compute the offsets and the
// bounds check on the device for CUDA indices and skip the round trip.
Tensor on_host(const Tensor& t) {
  return t.device().is_cpu() ? t : to(t, t.dtype(), Device(DeviceType::CPU));
}

// The index values as a contiguous int64 host tensor, in row-major order of `shape` (broadcast). No copy
// when the index already is one: large index tensors are read in place.
Tensor host_indices(const Tensor& idx, IntArrayRef shape) {
  return contiguous(to(expand(on_host(idx), shape), ScalarType::Long, Device(DeviceType::CPU)));
}

int64_t wrap_index(int64_t i, int64_t size, int64_t dim) {
  // (PyTorch's advanced indexing words an empty dim apart, without the index or the dim)
  MT_CHECK_INDEX(size != 0, "index is out of bounds for dimension with size 0");
  MT_CHECK_INDEX(i >= -size && i < size, "index ", i, " is out of bounds for dimension ", dim, " with size ",
                 size);
  return i < 0 ? i + size : i;
}

// Element offsets of every position of a (sizes, strides) box, row-major.
std::vector<int64_t> box_offsets(IntArrayRef sizes, IntArrayRef strides) {
  int64_t n = compute_numel(sizes);
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (n == 0) return out;
  int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector idx(nd, 0);
  int64_t off = 0;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = off;
    for (int64_t d = nd - 1; d >= 0; --d) {
      off += strides[d];
      if (++idx[d] < sizes[d]) break;
      off -= strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
  return out;
}

// Everything index and index_put_ share: masks expanded to long indices, the broadcast index shape,
// the result layout, and the offsets.
struct AdvancedPlan {
  DimVector result_shape;    // final shape (NumPy placement)
  DimVector work_shape;      // [B..., rest...]: the order the offsets enumerate
  DimVector work_to_result;  // permutation taking the work layout to the result layout
  Tensor outer;  // int64 on the host, one offset per broadcast index position (allocator memory: large
                 // plans reuse big pages instead of faulting in a fresh std::vector each call)
  std::vector<int64_t> inner;  // one offset per position of the non-indexed dims
};

void check_mask_shape(const Tensor& self, const Tensor& mask, int64_t d0) {
  MT_CHECK_INDEX(d0 + mask.dim() <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  for (int64_t k = 0; k < mask.dim(); ++k)
    MT_CHECK_INDEX(mask.sizes()[k] == self.sizes()[d0 + k], "The shape of the mask ", shape_str(mask.sizes()),
                   " at index ", k, " does not match the shape of the indexed tensor ",
                   shape_str(self.sizes()), " at index ", d0 + k);
}

bool is_mask(const Tensor& t) {
  return t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::Byte;
}

// One mask of at least one dim and no other index tensor (x[mask], x[mask] = v, masked_select): the offsets
// come straight from the mask in one parallel pass, without nonzero's coordinates in between.
bool plan_single_mask(const Tensor& self, const std::vector<std::optional<Tensor>>& in,
                      std::vector<int64_t>& adv, DimVector& bshape, Tensor& outer) {
  int64_t d0 = -1;
  for (size_t k = 0; k < in.size(); ++k) {
    if (!in[k]) continue;
    if (d0 >= 0) return false;
    d0 = static_cast<int64_t>(k);
  }
  if (d0 < 0) return false;
  const Tensor& t = *in[static_cast<size_t>(d0)];
  if (!is_mask(t) || t.dim() == 0) return false;
  MT_CHECK(t.device().is_cpu() || t.device() == self.device(),
           "indices should be either on cpu or on the same device as the indexed tensor (",
           self.device().str(), ")");
  check_mask_shape(self, t, d0);
  Tensor m = contiguous(to(on_host(t), ScalarType::Bool, Device(DeviceType::CPU)));
  MaskScan scan(m.data<bool>(), m.numel());
  bshape = {scan.count()};
  outer = make_empty({scan.count()}, ScalarType::Long, Device(DeviceType::CPU));
  scan.offsets(self.sizes().data() + d0, self.strides().data() + d0, t.dim(), outer.data<int64_t>());
  for (int64_t d = d0; d < d0 + t.dim(); ++d) adv.push_back(d);
  return true;
}

// x[mask] (masked_select) on the CPU where the mask covers every dim of self: the elements move in one pass
// (MaskScan::compact) instead of an int64 offset per element written, then read by the gather. Not taken
// (nullopt) for anything else, which plan_advanced handles.
std::optional<Tensor> select_by_full_mask(const Tensor& self, const std::vector<std::optional<Tensor>>& in) {
  if (in.size() != 1 || !in[0] || !self.device().is_cpu()) return std::nullopt;
  const Tensor& t = *in[0];
  if (!is_mask(t) || t.dim() == 0 || t.dim() != self.dim() || !t.device().is_cpu()) return std::nullopt;
  check_mask_shape(self, t, 0);
  Tensor m = contiguous(to(t, ScalarType::Bool, Device(DeviceType::CPU)));
  MaskScan scan(m.data<bool>(), m.numel());
  Tensor out = make_empty({scan.count()}, self.dtype(), self.device());
  if (scan.count() == 0) return out;
  dispatch_width(self.itemsize(), [&](auto w) {
    using W = decltype(w);
    scan.compact(static_cast<const W*>(self.data_ptr()), self.sizes().data(), self.strides().data(),
                 self.dim(), static_cast<W*>(out.data_ptr()));
  });
  return out;
}

// shape_only (a meta self): the result's shape without the offsets, which would read the index values.
AdvancedPlan plan_advanced(const Tensor& self, const std::vector<std::optional<Tensor>>& in,
                           bool shape_only = false) {
  MT_CHECK_INDEX(static_cast<int64_t>(in.size()) <= self.dim(), "too many indices for tensor of dimension ",
                 self.dim(), " (got ", in.size(), ")");
  AdvancedPlan p;
  std::vector<int64_t> adv, rest;
  DimVector bshape;
  if (!plan_single_mask(self, in, adv, bshape, p.outer)) {
    // masks become one long index per dimension they cover
    std::vector<std::optional<Tensor>> idx;
    for (const auto& t : in) {
      if (!t) {
        idx.push_back(std::nullopt);
        continue;
      }
      check_index_dtype(*t);
      MT_CHECK(t->device().is_cpu() || t->device() == self.device(),
               "indices should be either on cpu or on the same device as the indexed tensor (",
               self.device().str(), ")");
      if (is_mask(*t)) {
        check_mask_shape(self, *t, static_cast<int64_t>(idx.size()));
        Tensor nz = nonzero(on_host(*t));  // the offsets are built on the host anyway
        for (int64_t k = 0; k < t->dim(); ++k) idx.push_back(select(nz, 1, k));
      } else {
        idx.push_back(*t);
      }
    }
    MT_CHECK_INDEX(static_cast<int64_t>(idx.size()) <= self.dim(),
                   "too many indices for tensor of dimension ", self.dim());
    for (int64_t d = 0; d < static_cast<int64_t>(idx.size()); ++d)
      if (idx[d]) adv.push_back(d);
    MT_INTERNAL_ASSERT(!adv.empty());
    for (int64_t d : adv) bshape = broadcast_shapes(bshape, idx[d]->sizes());
    int64_t nb = compute_numel(bshape);
    p.outer = make_empty({shape_only ? 0 : nb}, ScalarType::Long, Device(DeviceType::CPU));
    int64_t* outer = p.outer.data<int64_t>();
    bool first = true;
    for (int64_t d : shape_only ? std::vector<int64_t>{} : adv) {
      Tensor vt = host_indices(*idx[d], bshape);
      const int64_t* v = vt.data<int64_t>();
      int64_t size = self.sizes()[d], stride = self.strides()[d];
      for (int64_t k = 0; k < nb; ++k) {
        int64_t i = v[k];
        if (i < -size || i >= size) wrap_index(i, size, d);  // raises
        outer[k] = (first ? 0 : outer[k]) + (i < 0 ? i + size : i) * stride;
      }
      first = false;
    }
  }
  for (int64_t d = 0, a = 0; d < self.dim(); ++d) {
    if (a < static_cast<int64_t>(adv.size()) && adv[a] == d)
      ++a;
    else
      rest.push_back(d);
  }
  bool adjacent = adv.back() - adv.front() + 1 == static_cast<int64_t>(adv.size());

  DimVector rsizes, rstrides;
  for (int64_t d : rest) {
    rsizes.push_back(self.sizes()[d]);
    rstrides.push_back(self.strides()[d]);
  }
  if (!shape_only) p.inner = box_offsets(rsizes, rstrides);
  p.work_shape = bshape;
  for (int64_t s : rsizes) p.work_shape.push_back(s);
  // NumPy placement: adjacent advanced dims replace themselves in place, otherwise they go first
  int64_t nbd = static_cast<int64_t>(bshape.size());
  int64_t lead = adjacent ? adv.front() : 0;  // rest dims that stay before the index dims
  for (int64_t k = 0; k < lead; ++k) p.work_to_result.push_back(nbd + k);
  for (int64_t k = 0; k < nbd; ++k) p.work_to_result.push_back(k);
  for (int64_t k = lead; k < static_cast<int64_t>(rest.size()); ++k) p.work_to_result.push_back(nbd + k);
  for (int64_t w : p.work_to_result) p.result_shape.push_back(p.work_shape[w]);
  return p;
}

}  // namespace

// into: out='s tensor, written when out_takes it (take_into)
static Tensor take_impl(const Tensor& self, const Tensor& index, const Tensor* into) {
  MT_CHECK(index.dtype() == ScalarType::Long, "take(): Expected a long tensor for index, but got ",
           dtype_short_name(index.dtype()));
  MT_CHECK(self.device() == index.device(),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           self.device().str(), " and ", index.device().str(), "!");
  const int64_t n = self.numel();
  Tensor idx = reshape(index, {-1});
  if (idx.numel() > 0) {
    MT_CHECK_INDEX(n > 0, "take(): tried to take from an empty tensor");
    auto check = [n](int64_t v) {
      MT_CHECK_INDEX(v >= -n && v < n, "out of range: tried to access index ", v, " on a tensor of ", n,
                     " elements.");
    };
    if (idx.device().is_cpu()) {
      Tensor c = contiguous(idx);
      const int64_t* p = static_cast<const int64_t*>(c.data_ptr());
      const int64_t m = c.numel();
      if (!needs_grad(self)) {
        // One pass over the indices checks each, wraps it and (self strided) makes it its element's offset in
        // self's memory, which the gather kernel reads straight into the result; no contiguous copy of all of
        // a strided self (take(x.t(), i) of a few indices copied the whole matrix: 10 us against PyTorch's 2
        // at 256x256), and no tensor of offsets and index_select's own checks between (2.7 us there).
        std::vector<int64_t> off;
        const IntArrayRef sz = self.sizes(), st = self.strides();
        const bool flat = self.is_contiguous();  // the index is the offset
        const bool small = n <= int64_t(UINT32_MAX);
        const int64_t* offsets = p;
        if (flat) {
          // the extremes in one branch-free pass, then the indices themselves are the offsets unless one is
          // negative (take of 1024 indices of 64x64 float32 with out=: R 0.64 against PyTorch with the
          // per-index check and copy)
          int64_t lo = p[0], hi = p[0];
          for (int64_t i = 1; i < m; ++i) {
            lo = std::min(lo, p[i]);
            hi = std::max(hi, p[i]);
          }
          if (lo < -n || hi >= n)
            for (int64_t i = 0; i < m; ++i) check(p[i]);  // the first one out of range, in its words
          if (lo < 0) {
            off.resize(static_cast<size_t>(m));
            for (int64_t i = 0; i < m; ++i) off[static_cast<size_t>(i)] = p[i] + (p[i] < 0 ? n : 0);
            offsets = off.data();
          }
        } else {
          off.resize(static_cast<size_t>(m));
          offsets = off.data();
        }
        for (int64_t i = 0; !flat && i < m; ++i) {
          check(p[i]);
          int64_t rest = p[i] < 0 ? p[i] + n : p[i], e = 0;
          if (small) {
            // 32-bit divisions, two to three times faster than 64-bit ones (take of 1024 indices of a
            // transposed 1024x1024: 6.4 us, PyTorch 4.5, with the 64-bit ones)
            uint32_t r32 = static_cast<uint32_t>(rest);
            for (int64_t d = self.dim() - 1; d > 0; --d) {
              const uint32_t s32 = static_cast<uint32_t>(sz[d]);
              e += static_cast<int64_t>(r32 % s32) * st[d];
              r32 /= s32;
            }
            rest = static_cast<int64_t>(r32) * st[0];  // r32 < sz[0] by the range check
          } else {
            for (int64_t d = self.dim() - 1; d > 0; --d) {
              e += (rest % sz[d]) * st[d];
              rest /= sz[d];
            }
            rest *= st[0];
          }
          off[static_cast<size_t>(i)] = e + rest;
        }
        const bool direct =
            into && out_takes(*into, index.sizes(), self.dtype(), self.device(), false, {&self, &index});
        Tensor out = direct ? *into : make_empty(index.sizes(), self.dtype(), self.device());
        const int64_t zero = 0;
        index_gather_stub.get(self.device())(out, self, offsets, m, &zero, 1);
        if (direct) wrote(out);
        return out;
      }
      // one pass over the indices on the host: the range check, and a wrapped copy only when one is negative
      bool negative = false;
      for (int64_t i = 0; i < m; ++i) {
        check(p[i]);
        negative |= p[i] < 0;
      }
      if (negative) {
        Tensor w = make_empty(c.sizes(), ScalarType::Long, c.device());
        int64_t* q = static_cast<int64_t*>(w.data_ptr());
        for (int64_t i = 0; i < m; ++i) q[i] = p[i] < 0 ? p[i] + n : p[i];
        idx = w;
      }
    } else {
      // the extremes come to the host (what PyTorch's kernel checks on the device, raised here)
      const int64_t hi = item(amax(idx, {}, false)).to_long(), lo = item(amin(idx, {}, false)).to_long();
      check(hi);
      check(lo);
      if (lo < 0) idx = remainder(add(idx, wrapped_scalar(Scalar(n)), Scalar(1)), wrapped_scalar(Scalar(n)));
    }
  }
  return reshape(index_select(reshape(self, {-1}), 0, idx), index.sizes());
}

Tensor take(const Tensor& self, const Tensor& index) {
  return take_impl(self, index, nullptr);
}

Tensor take_into(const Tensor& out, const Tensor& self, const Tensor& index) {
  return take_impl(self, index, &out);
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  // without a dim both are viewed flat (a non-contiguous input is refused, not copied); gather checks the
  // indices' dtype (int32 taken, as PyTorch 2.15)
  if (!dim) return gather(view(self, {-1}), 0, view(indices, {-1}));
  MT_CHECK(indices.dtype() == ScalarType::Long,
           "torch.take_along_dim(): dtype of indices should be Long but got ",
           dtype_short_name(indices.dtype()));
  MT_CHECK(self.dim() == indices.dim(),
           "torch.take_along_dim(): input and indices should have the same number of dimensions, but got ",
           self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = wrap_size_dim(*dim, self.dim());
  // input and indices broadcast against each other on every dim but `dim`
  DimVector sx = self.sizes(), si = indices.sizes();
  sx[d] = si[d] = 1;
  DimVector shape_x = broadcast_shapes(sx, si), shape_i = shape_x;
  const int64_t size = self.sizes()[d];
  shape_x[d] = size;
  shape_i[d] = indices.sizes()[d];
  Tensor x = expand(self, shape_x), idx = expand(indices, shape_i);
  // PyTorch 2.15 reads an index along dim modulo its size (-1 is the last; a size of 0 is its remainder's
  // ZeroDivisionError). On the CPU the gather runs first: its kernel checks each index as it loads it, so
  // indices already in [0, size) cost no remainder pass (a full int64 division pass and a copy, 4x the
  // gather); only a gather that met one out of range is redone over the wrapped indices. A CUDA kernel
  // cannot raise, so there the indices are always wrapped first, as PyTorch's.
  if (x.device().is_cpu() && size > 0) {
    try {
      return gather(x, d, idx);
    } catch (const Error&) {  // an index outside [0, size): wrapped below (any other error comes back there)
    }
  }
  return gather(x, d, remainder(idx, wrapped_scalar(Scalar(size))));
}

Tensor nonzero(const Tensor& self) {
  return nonzero_stub.get(self.device())(self);
}

Tensor native::index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  if (self.is_meta()) {  // laid out as the kernels' result: the work tensor, permuted
    AdvancedPlan p = plan_advanced(self, indices, true);
    return mt::permute(make_empty(p.work_shape, self.dtype(), self.device()), p.work_to_result);
  }
  if (std::optional<Tensor> r = select_by_full_mask(self, indices)) return *r;
  AdvancedPlan p = plan_advanced(self, indices);
  Tensor work = make_empty(p.work_shape, self.dtype(), self.device());
  if (work.numel() > 0)
    index_gather_stub.get(self.device())(work, self, p.outer.data<int64_t>(), p.outer.numel(), p.inner.data(),
                                         static_cast<int64_t>(p.inner.size()));
  return mt::permute(work, p.work_to_result);
}

const Tensor& native::index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                                 const Tensor& values, bool accumulate) {
  check_writable(self);
  if (self.is_meta()) {  // nothing to write; the shapes are still checked
    mt::expand(values, plan_advanced(self, indices, true).result_shape);
    return self;
  }
  AdvancedPlan p = plan_advanced(self, indices);
  MT_CHECK(values.device() == self.device() || (values.dim() == 0 && values.device().is_cpu()),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           self.device().str(), " and ", values.device().str(), "!");
  // PyTorch's assert_no_overlap: values in self's own memory would be read after earlier puts overwrote them
  if (same_memory(values, self) && values.numel() > 0 && self.numel() > 0 && values.is_contiguous() &&
      self.is_contiguous()) {
    const char* s0 = static_cast<const char*>(self.data_ptr());
    const char* v0 = static_cast<const char*>(values.data_ptr());
    const int64_t sn = self.numel() * static_cast<int64_t>(self.itemsize());
    const int64_t vn = values.numel() * static_cast<int64_t>(values.itemsize());
    MT_CHECK(v0 + vn <= s0 || s0 + sn <= v0,
             "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
             "single memory location. Please clone() the tensor before performing the operation.");
  }
  // A CPU scalar moves to the device before broadcasting: one element crosses, not the expanded result.
  Tensor dv = values.device() == self.device() ? values : to(values, values.dtype(), self.device());
  Tensor v = mt::expand(dv, p.result_shape);  // values are shaped like the result
  // PyTorch's index_put_: one value through at most one bool/uint8 mask (accumulate false) is its
  // masked_fill_, which converts the value; any other put takes values of self's dtype only (its
  // make_index_put_iterator). A wrapped number (the derivatives' S(0)) is converted as ever.
  if (values.dtype() != self.dtype() && !values.impl()->is_wrapped_number()) {
    bool fill = !accumulate && values.numel() == 1 && values.device().is_cpu();
    int masks = 0;
    for (const auto& i : indices) {
      if (!i || !i->defined()) continue;
      bool mask = i->dtype() == ScalarType::Bool || i->dtype() == ScalarType::Byte;
      fill = fill && mask && i->device() == self.device() && ++masks == 1;
    }
    MT_CHECK(fill, "Index put requires the source and destination dtypes match, got ",
             dtype_short_name(self.dtype()), " for the destination and ", dtype_short_name(values.dtype()),
             " for the source.");
  }
  DimVector inverse(p.work_to_result.size());
  for (size_t k = 0; k < p.work_to_result.size(); ++k) inverse[p.work_to_result[k]] = static_cast<int64_t>(k);
  Tensor w = contiguous(to(mt::permute(v, inverse), self.dtype(), self.device()));
  if (w.numel() > 0)
    index_put_stub.get(self.device())(self, w, p.outer.data<int64_t>(), p.outer.numel(), p.inner.data(),
                                      static_cast<int64_t>(p.inner.size()),
                                      accumulate ? PutMode::add : PutMode::assign);
  wrote(self);
  return self;
}

namespace {
// The kernels read int64 offsets; an int32 index (PyTorch 2.15 takes one) is widened once.
Tensor as_long_index(const Tensor& index) {
  return index.dtype() == ScalarType::Long ? index : to(index, ScalarType::Long, index.device());
}
}  // namespace

namespace {
// index_select's checks, in PyTorch's order; the wrapped dim
int64_t check_index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  // PyTorch wraps dim before it looks at the index
  int64_t d = wrap_dim(dim, self.dim());
  MT_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  MT_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int,
           "index_select(): Expected dtype int32 or int64 for index");
  // a 0-d self gives a 0-d result, from exactly one index (PyTorch's rule)
  MT_CHECK(self.dim() > 0 || index.numel() == 1,
           "index_select(): Index to scalar can have only 1 value, got ", index.numel(), " value(s)");
  // indices in [0, size) only: index_select does not wrap negative ones (plain indexing does)
  int64_t size = self.dim() ? self.sizes()[d] : 1;
  if (self.is_meta()) return d;
  {
    Tensor h = host_indices(index, index.sizes());
    const int64_t* v = h.data<int64_t>();
    const int64_t n = h.numel();
    // PyTorch's CPU words: an empty axis of a matrix or more, then its dim-1 kernel's own message
    MT_CHECK(n == 0 || size > 0 || self.dim() < 2,
             "index_select(): self indexing axis dim should be positive");
    // (and its bound check of an empty self, index_select_empty_self_bound_check)
    const bool dim1 = self.device().is_cpu() && self.dim() > 1 && (d == 1 || self.numel() == 0);
    for (int64_t k = 0; k < n; ++k) {
      if (v[k] >= 0 && v[k] < size) continue;
      MT_CHECK(!dim1, "INDICES element is out of DATA bounds, id=", v[k], " axis_dim=", size);
      MT_CHECK_INDEX(false, "index out of range in self");
    }
  }
  return d;
}
}  // namespace

Tensor native::index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = check_index_select(self, dim, index);
  if (self.is_meta()) {
    DimVector shape = self.sizes();
    if (self.dim()) shape[d] = index.numel();
    return make_empty(shape, self.dtype(), self.device());
  }
  if (self.dim() == 0) return mt::reshape(mt::index_select(mt::unsqueeze(self, 0), 0, index), {});
  if (self.device().is_cpu() && d == self.dim() - 1 && (self.strides()[d] == 1 || self.sizes()[d] < 2)) {
    // Along a last dim dense in memory, the advanced-indexing plan below walks each index down a column (its
    // work tensor is index-major), a stride of a whole row per element. gather with the index broadcast over
    // the rows reads each row once, in order (and a vector is one gather, not the plan's restriding and
    // copy). A last dim strided in memory (x.t()) is the other way round: gather would read one element per
    // memory row (9.5 ms at 1024x1024 float32), the plan copies whole memory rows (1.8 ms; PyTorch 4.0).
    DimVector shape = self.sizes(), view(static_cast<size_t>(self.dim()), 1);
    shape[d] = index.numel();
    view[d] = index.numel();
    // widened before the expand, so only index.numel() values are converted
    return mt::gather(self, d, mt::expand(mt::reshape(as_long_index(index), view), shape));
  }
  std::vector<std::optional<Tensor>> idx(static_cast<size_t>(d), std::nullopt);
  idx.push_back(mt::reshape(index, {-1}));
  return contiguous(mt::index(self, idx));
}

bool index_select_into(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = check_index_select(self, dim, index);
  if (self.dim() == 0 || !self.device().is_cpu() || !index.device().is_cpu()) return false;
  DimVector shape = self.sizes();
  shape[d] = index.numel();
  if (!out_takes(out, shape, self.dtype(), self.device(), false, {&self, &index})) return false;
  // out, contiguous, is [outer, r]: one row of the dims after d per (position before d, index value)
  const Tensor h = host_indices(index, {index.numel()});
  const int64_t* v = h.data<int64_t>();
  const int64_t k = h.numel();
  const DimVector sz = self.sizes(), st = self.strides();
  const DimVector bsz(sz.begin(), sz.begin() + d), bst(st.begin(), st.begin() + d);
  const DimVector isz(sz.begin() + d + 1, sz.end()), ist(st.begin() + d + 1, st.end());
  const std::vector<int64_t> before = box_offsets(bsz, bst), inner = box_offsets(isz, ist);
  std::vector<int64_t> outer(before.size() * static_cast<size_t>(k));
  for (size_t p = 0; p < before.size(); ++p)
    for (int64_t j = 0; j < k; ++j) outer[p * k + j] = before[p] + v[j] * st[d];
  index_gather_stub.get(self.device())(out, self, outer.data(), static_cast<int64_t>(outer.size()),
                                       inner.data(), static_cast<int64_t>(inner.size()));
  wrote(out);
  return true;
}

namespace {
// The shape rules gather and scatter share (PyTorch's gather_shape_check / scatter_shape_check).
void check_dim_index(const Tensor& self, int64_t dim, const Tensor& index, const char* op,
                     const Tensor* other) {
  if (index.numel() == 0) return;  // PyTorch checks the dtype and shapes of a non-empty index only
  MT_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int, op,
           "(): Expected dtype int32/int64 for index");
  MT_CHECK(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1),
           "Index tensor must have the same number of dimensions as ",
           std::string(op) == "gather" ? "input" : "self", " tensor");
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d != dim)
      MT_CHECK(index.sizes()[d] <= (self.dim() ? self.sizes()[d] : 1), "Size does not match at dimension ", d,
               " expected index ", shape_str(index.sizes()), " to be no larger than self ",
               shape_str(self.sizes()), " apart from dimension ", dim);
    if (other && other->dim() == index.dim())
      MT_CHECK(index.sizes()[d] <= other->sizes()[d], "Expected index ", shape_str(index.sizes()),
               " to be no larger than self ", shape_str(self.sizes()), " apart from dimension ", dim,
               " and to be no larger size than src ", shape_str(other->sizes()));
  }
}

// The device's dim kernels take the tensors as they are; 0-dim tensors, an empty dim of self and devices
// without dim kernels take the offsets path below.
bool use_dim_kernel(const Tensor& self, int64_t dim, const Tensor& index, const void* kernel) {
  return kernel != nullptr && self.dim() > 0 && index.dim() == self.dim() && self.sizes()[dim] > 0;
}

// Offsets for gather/scatter: for every position of `index`, the element of `self` it addresses along dim
// (and the same position in the other dims), plus the position's offset into `other` (src for scatter).
void dim_offsets(const Tensor& self, int64_t dim, const Tensor& index, std::vector<int64_t>& self_off,
                 const Tensor* other, std::vector<int64_t>* other_off) {
  Tensor idx_t = host_indices(index, index.sizes());
  const int64_t* idx = idx_t.data<int64_t>();
  DimVector st = self.dim() ? self.strides() : DimVector{1};
  DimVector isz = index.dim() ? index.sizes() : DimVector{1};
  int64_t size = self.dim() ? self.sizes()[dim] : 1;
  DimVector zero_dim_stride = st;
  zero_dim_stride[dim] = 0;
  std::vector<int64_t> base = box_offsets(isz, zero_dim_stride);
  self_off.resize(static_cast<size_t>(idx_t.numel()));
  for (size_t k = 0; k < self_off.size(); ++k) {
    // no wrapping: gather/scatter take indices in [0, size) only, as PyTorch
    MT_CHECK(idx[k] >= 0 && idx[k] < size, "index ", idx[k], " is out of bounds for dimension ", dim,
             " with size ", size);
    self_off[k] = base[k] + idx[k] * st[dim];
  }
  if (other_off) {
    DimVector ost = other->dim() ? other->strides() : DimVector{0};
    MT_INTERNAL_ASSERT(ost.size() == isz.size(), "gather/scatter offsets: src and index dims differ");
    *other_off = box_offsets(isz, ost);
  }
}

}  // namespace

namespace {
// gather's kernels, into `out` of index's shape and self's dtype (contiguous, or fresh)
void gather_to(const Tensor& out, const Tensor& self, int64_t d, const Tensor& index) {
  GatherDimFn kernel = gather_dim_stub.fns[static_cast<int>(self.device().type)];
  if (use_dim_kernel(self, d, index, reinterpret_cast<const void*>(kernel))) {
    kernel(out, self, d, index);
    return;
  }
  std::vector<int64_t> off;
  dim_offsets(self, d, index, off, nullptr, nullptr);
  int64_t zero = 0;
  if (out.numel() > 0)
    index_gather_stub.get(self.device())(out, self, off.data(), static_cast<int64_t>(off.size()), &zero, 1);
}

// gather's checks, in PyTorch's order; the wrapped dim
int64_t check_gather(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = wrap_dim(dim, self.dim());
  MT_CHECK(index.device() == self.device() || self.is_meta(),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           self.device().str(), " and ", index.device().str(), "!");
  check_dim_index(self, d, index, "gather", nullptr);
  return d;
}
}  // namespace

Tensor native::gather(const Tensor& self, int64_t dim, const Tensor& index_) {
  const int64_t d = check_gather(self, dim, index_);
  const Tensor index = as_long_index(index_);
  Tensor out = make_empty(index.sizes(), self.dtype(), self.device());
  if (self.is_meta()) return out;
  gather_to(out, self, d, index);
  return out;
}

bool gather_into(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = check_gather(self, dim, index);
  if (self.is_meta() || !out_takes(out, index.sizes(), self.dtype(), self.device(), false, {&self, &index}))
    return false;
  gather_to(out, self, d, as_long_index(index));
  wrote(out);
  return true;
}

namespace {
// scatter_'s work after autograd: every PutMode, including scatter_extreme_'s amax/amin.
const Tensor& scatter_mode_(const Tensor& self, int64_t dim, const Tensor& index_, const Tensor& src,
                            PutMode mode) {
  check_writable(self);
  int64_t d = wrap_dim(dim, self.dim());
  // a meta op reads no index values, so its index may sit anywhere (as PyTorch's meta kernels allow)
  MT_CHECK(index_.device() == self.device() || self.is_meta(),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           self.device().str(), " and ", index_.device().str(), "!");
  MT_CHECK(src.device() == self.device() || (src.dim() == 0 && src.device().is_cpu()),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           self.device().str(), " and ", src.device().str(), "!");
  // PyTorch's scatter_shape_check: a 0-dim src counts as one element along one dim (so it fills a 0- or 1-dim
  // index of one element), never as a scalar broadcast (the `value=` overload expands its number in the
  // binding); more or fewer dims than index are refused before any offset is computed from them
  MT_CHECK(index_.numel() == 0 || std::max<int64_t>(src.dim(), 1) == std::max<int64_t>(index_.dim(), 1),
           "Index tensor must have the same number of dimensions as src tensor");
  Tensor s = src.dim() == 0 ? reshape(to(src, src.dtype(), self.device()), {1}) : src;
  check_dim_index(self, d, index_, "scatter", &s);
  if (self.is_meta() || index_.numel() == 0) {
    wrote(self);
    return self;
  }
  const Tensor index = as_long_index(index_);
  ScatterDimFn kernel = scatter_dim_stub.fns[static_cast<int>(self.device().type)];
  if (use_dim_kernel(self, d, index, reinterpret_cast<const void*>(kernel)) && s.dim() == index.dim()) {
    kernel(self, d, index, s, mode);
    wrote(self);
    return self;
  }
  std::vector<int64_t> off, soff;
  dim_offsets(self, d, index, off, &s, &soff);
  // values in index order, contiguous in self's dtype
  Tensor vals = make_empty({static_cast<int64_t>(soff.size())}, self.dtype(), self.device());
  if (!soff.empty()) {
    Tensor sv = to(s, self.dtype(), self.device());
    int64_t zero = 0;
    index_gather_stub.get(self.device())(vals, sv, soff.data(), static_cast<int64_t>(soff.size()), &zero, 1);
    index_put_stub.get(self.device())(self, vals, off.data(), static_cast<int64_t>(off.size()), &zero, 1,
                                      mode);
  }
  wrote(self);
  return self;
}

}  // namespace

const Tensor& native::scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               const std::string& reduce) {
  wrap_dim(dim, self.dim());  // ATen's scatter meta wraps the dim before its dtype check
  MT_CHECK(src.dtype() == self.dtype(), "scatter(): Expected self.dtype to be equal to src.dtype");
  PutMode mode = reduce.empty()    ? PutMode::assign
                 : reduce == "add" ? PutMode::add
                 : reduce == "multiply"
                     ? PutMode::multiply
                     : (MT_ERROR("reduce argument must be either add or multiply."), PutMode::assign);
  return scatter_mode_(self, dim, index, src, mode);
}

const Tensor& scatter_extreme_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                               bool is_max) {
  wrap_dim(dim, self.dim());
  MT_CHECK(src.dtype() == self.dtype(), "scatter(): Expected self.dtype to be equal to src.dtype");
  MT_CHECK(!needs_grad(self, src), "scatter_extreme_ is not differentiable; use scatter_reduce");
  return scatter_mode_(self, dim, index, src, is_max ? PutMode::amax : PutMode::amin);
}

const Tensor& scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  // scatter_'s checks are scatter_add's (PyTorch names scatter in the dtype message for scatter_add too)
  return scatter_(self, dim, index, src, "add");
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  MT_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  DimVector shape = broadcast_shapes(self.sizes(), mask.sizes());
  if (shape.empty()) shape.push_back(1);  // two 0-dim operands select from one element, as PyTorch's
  return index(expand(self, shape), {expand(mask, shape)});
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce) {
  Tensor out = clone(self);
  FreshWrites fresh;
  scatter_(out, dim, index, src, reduce);
  return out;
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = clone(self);
  FreshWrites fresh;
  scatter_add_(out, dim, index, src);
  return out;
}

Tensor scatter_value_src(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                         const std::string& reduce) {
  // ATen's scatter meta checks the dim, the index's dtype and rank and the reduce name before its kernel
  // converts the value (index bounds come after it), so a bad dim is an IndexError whatever the value
  check_dim_index(self, wrap_dim(dim, self.dim()), index, "scatter", nullptr);
  MT_CHECK(reduce.empty() || reduce == "add" || reduce == "multiply",
           "reduce argument must be either add or multiply.");
  // an empty index writes nothing and PyTorch's kernel never converts the value (a NaN into int32 passes)
  const Scalar v = index.numel() == 0 ? Scalar(int64_t{0}) : value;
  check_scalar_fits(v, self.dtype());  // float16 too: the one-element fill below would not check it
  return expand(scalar_tensor(v, self.dtype(), self.device()), index.sizes());
}

}  // namespace mt

namespace mt {

namespace {
// index_fill_'s checks of index and dim in PyTorch's order (the index's dtype, the dim, the index's rank);
// returns the wrapped dim.
int64_t check_fill_index(const Tensor& self, int64_t dim, const Tensor& index) {
  MT_CHECK_INDEX(index.dtype() == ScalarType::Long, "index_fill_(): Expected dtype int64 for index.");
  const int64_t d = wrap_dim(dim, self.dim());
  MT_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  return d;
}

// The index as the put's index along dim d, a vector in [0, n): index_copy_ refuses a negative index,
// index_fill_ wraps it (PyTorch's kernels), each naming the first one out of range in its own words. A CUDA
// index is read on the host, as index_put_ reads it anyway.
Tensor checked_put_index(const Tensor& self, int64_t d, const Tensor& index, bool copy) {
  const int64_t n = self.dim() ? self.sizes()[d] : 1;
  Tensor flat = reshape(index, {-1});
  Tensor h = contiguous(on_host(flat));
  const int64_t* v = h.data<int64_t>();
  const int64_t lo = copy ? 0 : -n;
  bool negative = false;
  for (int64_t k = 0; k < h.numel(); ++k) {
    MT_CHECK_INDEX(v[k] >= lo && v[k] < n, copy ? "index_copy_(): " : "", "index ", v[k],
                   " is out of bounds for dimension ", d, " with size ", n);
    negative |= v[k] < 0;
  }
  if (!negative) return flat;
  Tensor w = make_empty({h.numel()}, ScalarType::Long, Device(DeviceType::CPU));
  int64_t* q = w.data<int64_t>();
  for (int64_t k = 0; k < h.numel(); ++k) q[k] = v[k] < 0 ? v[k] + n : v[k];
  return to(w, ScalarType::Long, index.device());
}

// self's slices at `index` (in [0, size)) along d written with values (shaped as self with index.numel()
// along d, or a 0-dim value): one index_put_ (a 0-dim self viewed as one element). Along a last dim that is
// dense in memory (a CPU tensor), the put's plan would write each index down a column (its work is
// index-major, a row's stride per element: 3x the time of a composite that transposed first); scatter_ with
// the index broadcast over the rows writes each row once, in order (the index_select path, reversed).
// Repeated indices: the last write wins in both.
void put_along(const Tensor& self, int64_t d, const Tensor& index, const Tensor& values) {
  if (self.dim() == 0) {
    native::index_put_(reshape(self, {1}), {index}, reshape(values, {-1}), false);
    return;
  }
  if (self.device().is_cpu() && self.dim() > 1 && d == self.dim() - 1 && self.strides()[d] == 1 &&
      self.numel() > 0) {
    DimVector shape = self.sizes(), view(static_cast<size_t>(self.dim()), 1);
    shape[d] = view[d] = index.numel();
    Tensor src = values.dim() == 0 ? expand(to(values, self.dtype(), self.device()), shape) : values;
    native::scatter_(self, d, expand(reshape(index, view), shape), src, "");
    return;
  }
  std::vector<std::optional<Tensor>> ix(static_cast<size_t>(d), std::nullopt);
  ix.push_back(index);
  native::index_put_(self, ix, values, false);
}

// index_copy_'s checks in PyTorch's order (its meta function): the dim, the index's rank, source's rank, the
// index's dtype, the dtypes, the slice shapes (sizes without dim), the number of indices; returns the wrapped
// dim.
int64_t check_index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = wrap_dim(dim, self.dim());
  MT_CHECK_INDEX(index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(),
                 ")");
  const int64_t n = index.numel();
  MT_CHECK_INDEX(source.dim() != 0 || n == 1,
                 "index_copy_(): When source is scalar, index should have one element (got ", n, ")");
  MT_CHECK_INDEX(
      source.dim() == self.dim() || source.dim() == 0 || self.dim() == 0,
      "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
      "Source dimensionality (",
      source.dim(), "), destination dimensionality (", self.dim(), ")");
  MT_CHECK(index.dtype() == ScalarType::Long, "index_copy_(): Expected a long tensor for index, but got ",
           dtype_short_name(index.dtype()));
  MT_CHECK(source.dtype() == self.dtype(),
           "index_copy_(): self and source expected to have the same dtype, but got (self) ",
           dtype_short_name(self.dtype()), " and (source) ", dtype_short_name(source.dtype()));
  // the sizes but dim's, printed as PyTorch prints a size vector ("4 5")
  auto sliced = [d](IntArrayRef s) {
    std::vector<int64_t> v(s.begin(), s.end());
    if (!v.empty()) v.erase(v.begin() + d);
    return v;
  };
  const std::vector<int64_t> xs = sliced(self.sizes()), ss = sliced(source.sizes());
  if (xs != ss) {
    auto str = [](const std::vector<int64_t>& v) {
      std::string r;
      for (int64_t s : v) r += std::to_string(s) + " ";
      return r;
    };
    MT_ERROR(
        "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
        str(xs), "at dimension ", d, " and source slice shape: ", str(ss), "at dimension 0.");
  }
  MT_CHECK_INDEX(source.dim() == 0 || n == source.sizes()[d], "index_copy_(): Number of indices (", n,
                 ") should be equal to source.size(dim) (", source.dim() ? source.sizes()[d] : 1, ")");
  return d;
}

// index_fill_'s checks in PyTorch's order: the value's rank, the index (check_fill_index), then the value
// read as a number of self's dtype, checked as fill_ checks it (inf into an integer tensor is its overflow
// error). An empty self then checks no index bound: PyTorch restrides self to the index's length along dim,
// which fails in as_strided's words where that view has elements (only dim was empty); returns whether there
// is anything to write.
bool check_fill(const Tensor& self, int64_t& d, int64_t dim, const Tensor& index, const Tensor& value) {
  MT_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
  d = check_fill_index(self, dim, index);
  check_scalar_fits(item(value), self.dtype());
  if (index.numel() == 0) return false;
  if (self.numel() > 0) return true;
  DimVector sizes = self.sizes(), strides = self.strides();
  if (self.dim() == 0) return true;  // a 0-dim self has one element
  sizes[d] = index.numel();
  strides[d] = 0;
  int64_t need = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return false;
    need += (sizes[i] - 1) * strides[i];
  }
  const int64_t item_bytes = static_cast<int64_t>(self.itemsize());
  MT_ERROR("setStorage: sizes ", shape_str(sizes), ", strides ", shape_str(strides), ", storage offset ",
           self.storage_offset(), ", and itemsize ", item_bytes, " requiring a storage size of ",
           (need + self.storage_offset()) * item_bytes, " are out of bounds for storage of size ",
           self.storage()->nbytes);
}

// The out-of-place result PyTorch's index_fill and slice_scatter start from: self.clone() in self's layout
// (preserve_format), so a transposed self gives a transposed result, written without a transposing copy.
Tensor clone_preserve(const Tensor& self) {
  Tensor out = empty_strided_dense(self.sizes(), preserved_strides(self), self.dtype(), self.device());
  FreshWrites fresh;
  native::copy_(out, self, false);
  return out;
}

void check_masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  MT_CHECK(mask.dtype() == ScalarType::Bool,
           "masked_scatter_ only supports boolean masks, but got mask with dtype ",
           dtype_short_name(mask.dtype()));
  MT_CHECK(source.dtype() == self.dtype(),
           "masked_scatter: expected self and source to have same dtypes but got",
           dtype_short_name(self.dtype()), " and ", dtype_short_name(source.dtype()));
  for (const Tensor* t : {&mask, &source})
    MT_CHECK(t->device() == self.device(),
             "Expected all tensors to be on the same device, but found at least two devices, ",
             self.device().str(), " and ", t->device().str(), "!");
}
}  // namespace

const Tensor& native::index_copy_(const Tensor& self, int64_t dim, const Tensor& index,
                                  const Tensor& source) {
  const int64_t d = check_index_copy(self, dim, index, source);
  check_writable(self);
  if (index.numel() > 0) put_along(self, d, checked_put_index(self, d, index, true), source);
  wrote(self);
  return self;
}

Tensor native::index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = check_index_copy(self, dim, index, source);
  Tensor idx = index.numel() ? checked_put_index(self, d, index, true) : index;
  Tensor out = mt::clone(self);
  FreshWrites fresh;
  if (index.numel() > 0) put_along(out, d, idx, source);
  return out;
}

const Tensor& native::index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  int64_t d = 0;
  const bool any = check_fill(self, d, dim, index, value);
  check_writable(self);
  // the value as a number of self's dtype (index_put_ takes only self's dtype)
  if (any)
    put_along(self, d, checked_put_index(self, d, index, false), to(value, self.dtype(), self.device()));
  wrote(self);
  return self;
}

Tensor native::index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  int64_t d = 0;
  const bool any = check_fill(self, d, dim, index, value);
  Tensor idx = any ? checked_put_index(self, d, index, false) : index;
  Tensor out = clone_preserve(self);
  FreshWrites fresh;
  if (any) put_along(out, d, idx, to(value, self.dtype(), self.device()));
  return out;
}

const Tensor& native::masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_masked_scatter(self, mask, source);
  check_writable(self);
  Tensor m = mt::expand(mask, self.sizes());  // the mask broadcasts to self, not the other way round
  if (self.device().is_cpu()) {
    Tensor mc = mt::contiguous(m);
    MaskScan scan(mc.data<bool>(), mc.numel());
    MT_CHECK(scan.count() <= source.numel(), "Number of elements of source < number of ones in mask");
    if (scan.count() > 0) {
      // source is read in order from its start: a copy when it is strided or lives in self's memory
      Tensor src = same_memory(source, self) ? mt::clone(source) : mt::contiguous(source);
      dispatch_width(self.itemsize(), [&](auto w) {
        using W = decltype(w);
        scan.scatter(static_cast<const W*>(src.data_ptr()), static_cast<W*>(self.data_ptr()),
                     self.sizes().data(), self.strides().data(), self.dim());
      });
    }
    wrote(self);
    return self;
  }
  // other devices: the mask's count comes to the host (PyTorch's CUDA kernel syncs for it too), then
  // x[mask] = source[:count], whose k-th put is the k-th True in row-major order
  const int64_t count = mt::item(mt::sum(m, {}, false)).to_long();
  MT_CHECK(count <= source.numel(), "Number of elements of source < number of ones in mask");
  if (count > 0) {
    Tensor src = same_memory(source, self) ? mt::clone(source) : source;
    native::index_put_(self, {m}, mt::slice(mt::reshape(src, {-1}), 0, 0, count, 1), false);
  }
  wrote(self);
  return self;
}

Tensor native::masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_masked_scatter(self, mask, source);
  // self broadcasts with the mask (PyTorch's expand_outplace), into a contiguous result
  DimVector shape = broadcast_shapes(mask.sizes(), self.sizes());
  Tensor out = make_empty(shape, self.dtype(), self.device());
  native::copy_(out, self, false);
  FreshWrites fresh;
  native::masked_scatter_(out, mask, source);
  return out;
}

Tensor native::slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t start, int64_t end,
                             int64_t step) {
  const int64_t d = wrap_dim(dim, self.dim());
  MT_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  MT_CHECK(step > 0, "slice step must be positive");
  // Python's slice(start, end, step).indices(n)
  const int64_t n = self.sizes()[d];
  auto bound = [n](int64_t i) { return i < 0 ? std::max<int64_t>(i + n, 0) : std::min(i, n); };
  start = bound(start);
  end = bound(end);
  DimVector shape = self.sizes();
  shape[d] = end > start ? (end - start + step - 1) / step : 0;
  MT_CHECK(IntArrayRef(shape).equals(src.sizes()),
           "expected src to have a size equal to the slice of self. src size = ", shape_str(src.sizes()),
           ", slice size = ", shape_str(shape));
  Tensor out = clone_preserve(self);
  FreshWrites fresh;  // the write that builds the result leaves its version at 0, as PyTorch's
  if (src.numel() > 0) native::copy_(native::slice(out, d, start, end, step), src, false);
  return out;
}

}  // namespace mt
