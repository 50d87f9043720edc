// Which storage types each elementwise dtype rule (OpRule, ops/elementwise.h) instantiates, written once for
// both devices: the CPU loops and the CUDA launchers pass their loop as `body(TypeTag<out_t>,
// TypeTag<in_t>)`, so an (op, dtype) pair compiles for the GPU exactly when it does for the CPU.
#pragma once
#include "core/ScalarType.h"
#include "core/TensorIterator.h"
#include "ops/elementwise.h"

namespace mt {

template <typename T>
struct TypeTag {
  using type = T;
};

// Unary: Float ops compute in the (floating) output type; Bool ops read any dtype and write bool; the
// rest keep the input's dtype.
template <OpRule R, typename Body>
void dispatch_unary_rule(const TensorIter& it, const char* name, const Body& body) {
  if constexpr (R == OpRule::Float) {
    MT_DISPATCH_FLOATING_TYPES(it.dtypes[0], name, [&] { body(TypeTag<scalar_t>{}, TypeTag<scalar_t>{}); });
  } else if constexpr (R == OpRule::Bool) {
    MT_DISPATCH_ALL_TYPES(it.dtypes[1], name, [&] { body(TypeTag<bool>{}, TypeTag<scalar_t>{}); });
  } else {
    MT_DISPATCH_ALL_TYPES(it.dtypes[0], name, [&] { body(TypeTag<scalar_t>{}, TypeTag<scalar_t>{}); });
  }
}

// Binary: true division is floating only; comparisons and logical ops read the common dtype and write bool;
// bitwise ops exist for integers and bool (the front end refuses floating dtypes, so they are not
// instantiated); the rest compute in the common dtype.
template <OpRule R, typename Body>
void dispatch_binary_rule(const TensorIter& it, const char* name, const Body& body) {
  if constexpr (R == OpRule::Div) {
    MT_DISPATCH_FLOATING_TYPES(it.dtypes[0], name, [&] { body(TypeTag<scalar_t>{}, TypeTag<scalar_t>{}); });
  } else if constexpr (R == OpRule::Compare || R == OpRule::Logical) {
    MT_DISPATCH_ALL_TYPES(it.dtypes[1], name, [&] { body(TypeTag<bool>{}, TypeTag<scalar_t>{}); });
  } else if constexpr (R == OpRule::Bitwise) {
    switch (it.dtypes[0]) {
      MT_DISPATCH_INTEGRAL_CASES([&] { body(TypeTag<scalar_t>{}, TypeTag<scalar_t>{}); })
      MT_DISPATCH_CASE(Bool, bool, [&] { body(TypeTag<scalar_t>{}, TypeTag<scalar_t>{}); })
      MT_DISPATCH_FAIL(it.dtypes[0], name)
    }
  } else {
    MT_DISPATCH_ALL_TYPES(it.dtypes[0], name, [&] { body(TypeTag<scalar_t>{}, TypeTag<scalar_t>{}); });
  }
}

}  // namespace mt
