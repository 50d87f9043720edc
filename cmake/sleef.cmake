# SLEEF (vectorized libm) for the CPU float unary ops, when it is installed (Debian:
# libsleef-dev). Two translation units, one compiled for AVX2+FMA and one for AVX-512, are chosen per CPU at
# run time (kernels/cpu/VecUnary.h); the AVX-512 one adds our own float32 tanh/erf/log (vec/avx512_math.h).
# Without SLEEF, or off x86-64, the scalar functors run as before.
# MINITORCH_SLEEF=OFF forces the scalar path.
option(MINITORCH_SLEEF "Use SLEEF for vectorized CPU math when it is found" ON)
set(MINITORCH_HAS_SLEEF OFF)
if(MINITORCH_SLEEF AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  find_path(SLEEF_INCLUDE_DIR sleef.h)
  find_library(SLEEF_LIBRARY sleef)
  if(SLEEF_INCLUDE_DIR AND SLEEF_LIBRARY)
    set(MINITORCH_HAS_SLEEF ON)
    set(_mt_vec ${CMAKE_CURRENT_SOURCE_DIR}/csrc/kernels/cpu/vec)
    target_sources(minitorch_core PRIVATE ${_mt_vec}/unary_avx2.cpp ${_mt_vec}/unary_avx512.cpp)
    # Only these files get the ISA flags; they include nothing but sleef.h, intrinsics and our header of plain
    # declarations, so no inline function compiled for AVX can be picked by the linker for baseline code.
    set_source_files_properties(${_mt_vec}/unary_avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
    set_source_files_properties(${_mt_vec}/unary_avx512.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512dq;-mfma")
    target_compile_definitions(minitorch_core PRIVATE MINITORCH_WITH_SLEEF=1)
    target_include_directories(minitorch_core PRIVATE ${SLEEF_INCLUDE_DIR})
    target_link_libraries(minitorch_core PUBLIC ${SLEEF_LIBRARY})
    message(STATUS "minitorch: SLEEF ${SLEEF_LIBRARY}")
  endif()
endif()
if(NOT MINITORCH_HAS_SLEEF)
  message(STATUS "minitorch: SLEEF not used, CPU float unary ops use the scalar functors")
endif()
