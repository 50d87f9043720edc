# The vectorized CPU math: two translation units, one compiled for AVX2+FMA and one for AVX-512, chosen per CPU
# at run time (kernels/cpu/VecUnary.h; MINITORCH_CPU_CAPABILITY=default|avx2|avx512 caps the choice). They hold
# our own kernels (vec/avx512_*.h, vec/f32_via_f64.h, vec/random_impl.h) and are built on every x86-64 machine: no system package is
# needed for the vector path.
#
# SLEEF (Debian: libsleef-dev) is an optional speed-up on top: where the build finds it, the functions we have no
# kernel of our own for (float64 log/sin/cos/erf..., float32 tan/asin/atan...) take SLEEF's vector loops.
# Without it those functions run the scalar functors (glibc), with the same accuracy tests. MINITORCH_SLEEF=OFF ignores an installed SLEEF; MINITORCH_CPU_VEC=OFF builds the scalar
# path only.
option(MINITORCH_CPU_VEC "Build the AVX2/AVX-512 CPU kernels (x86-64)" ON)
option(MINITORCH_SLEEF "Use SLEEF for the vector functions we have no kernel of our own for, when found" ON)
set(MINITORCH_HAS_CPU_VEC OFF)
set(MINITORCH_HAS_SLEEF OFF)
if(MINITORCH_CPU_VEC AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(MINITORCH_HAS_CPU_VEC ON)
  set(_mt_vec ${CMAKE_CURRENT_SOURCE_DIR}/csrc/kernels/cpu/vec)
  target_sources(minitorch_core PRIVATE ${_mt_vec}/unary_avx2.cpp ${_mt_vec}/unary_avx512.cpp
                                       ${_mt_vec}/bessel_avx2.cpp ${_mt_vec}/poly_avx2.cpp)
  # Only these files get the ISA flags; they include nothing but intrinsics, sleef.h and our headers of plain
  # declarations and internal-linkage code, so no inline function compiled for AVX can be picked by the linker
  # for baseline code.
  set_source_files_properties(${_mt_vec}/unary_avx2.cpp ${_mt_vec}/bessel_avx2.cpp PROPERTIES COMPILE_OPTIONS
                                                                                         "-mavx2;-mfma")
  # the polynomials keep the scalar functors' bits: no fused multiply-add in their recurrences
  set_source_files_properties(${_mt_vec}/poly_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-ffp-contract=off")
  set_source_files_properties(${_mt_vec}/unary_avx512.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512dq;-mfma")
  target_compile_definitions(minitorch_core PRIVATE MINITORCH_WITH_CPU_VEC=1)
  if(MINITORCH_SLEEF)
    find_path(SLEEF_INCLUDE_DIR sleef.h)
    find_library(SLEEF_LIBRARY sleef)
    if(SLEEF_INCLUDE_DIR AND SLEEF_LIBRARY)
      set(MINITORCH_HAS_SLEEF ON)
      target_compile_definitions(minitorch_core PRIVATE MINITORCH_WITH_SLEEF=1)
      target_include_directories(minitorch_core PRIVATE ${SLEEF_INCLUDE_DIR})
      target_link_libraries(minitorch_core PUBLIC ${SLEEF_LIBRARY})
    endif()
  endif()
endif()
if(MINITORCH_HAS_SLEEF)
  message(STATUS "minitorch: CPU vector kernels AVX2/AVX-512, with SLEEF ${SLEEF_LIBRARY}")
elseif(MINITORCH_HAS_CPU_VEC)
  message(STATUS "minitorch: CPU vector kernels AVX2/AVX-512 (our own; SLEEF not found, an optional speed-up)")
else()
  message(STATUS "minitorch: CPU vector kernels off, the scalar functors serve every CPU")
endif()
