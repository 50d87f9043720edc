// Inline-storage vector for sizes and strides, so most tensors allocate no heap memory for their shape.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace mt {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable<T>::value, "SmallVector holds trivially copyable elements only");

 public:
  SmallVector() = default;
  explicit SmallVector(size_t n, T v = T()) { assign(n, v); }
  SmallVector(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  template <typename It, typename = decltype(*std::declval<It>())>
  SmallVector(It b, It e) {
    assign(b, e);
  }
  SmallVector(const std::vector<T>& v) { assign(v.begin(), v.end()); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  ~SmallVector() { release(); }

  template <typename It>
  void assign(It b, It e) {
    size_t n = static_cast<size_t>(std::distance(b, e));
    reserve(n);
    std::copy(b, e, data_);
    size_ = n;
  }
  void assign(size_t n, T v) {
    reserve(n);
    std::fill(data_, data_ + n, v);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    T* p = new T[n];
    if (size_) std::memcpy(p, data_, size_ * sizeof(T));
    release();
    data_ = p;
    cap_ = n;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(cap_ * 2);
    data_[size_++] = v;
  }
  void insert(size_t pos, T v) {
    push_back(v);
    for (size_t i = size_ - 1; i > pos; --i) data_[i] = data_[i - 1];
    data_[pos] = v;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data_[i] = data_[i + 1];
    --size_;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  bool operator==(const SmallVector& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }
  bool operator!=(const SmallVector& o) const { return !(*this == o); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

 private:
  void release() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    cap_ = N;
  }
  T inline_[N];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
};

using DimVector = SmallVector<int64_t, 6>;

}  // namespace mt
