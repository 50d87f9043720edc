# oneDNN (>= 3.0) for the CPU convolutions, float GEMM and LSTM: the NVIDIA-free OpenMP build from PyPI
# (onednn-devel-cpu-gomp, a build requirement on Linux x86_64; its runtime onednn-cpu-gomp a dependency), else a
# system one (find_package). Without it the convolutions stay on im2col + OpenBLAS (csrc/kernels/cpu/conv.cpp), so the build never requires it.
# MINITORCH_ONEDNN=OFF forces the fallback.
option(MINITORCH_ONEDNN "use oneDNN for CPU convolutions when found" ON)
set(MINITORCH_HAS_ONEDNN OFF)
set(MINITORCH_ONEDNN_RPATH "")
if(MINITORCH_ONEDNN)
  # The PyPI wheels put include/, lib/cmake/dnnl and lib/libdnnl.so* under the environment's prefix (for pip's
  # isolated build, a temporary one): ask the package metadata where, not sys.prefix.
  execute_process(
    COMMAND ${Python_EXECUTABLE} -c "
import importlib.metadata as md
for f in md.distribution('onednn-devel-cpu-gomp').files:
    if f.name == 'dnnl-config.cmake':
        print(md.distribution('onednn-devel-cpu-gomp').locate_file(f).resolve().parent)
"
    OUTPUT_VARIABLE _dnnl_hint OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  find_package(dnnl 3.0 CONFIG QUIET HINTS ${_dnnl_hint})
  if(dnnl_FOUND)
    set(MINITORCH_HAS_ONEDNN ON)
    get_target_property(_dnnl_inc DNNL::dnnl INTERFACE_INCLUDE_DIRECTORIES)
    get_target_property(_dnnl_lib DNNL::dnnl IMPORTED_LOCATION_RELEASE)
    if(NOT _dnnl_lib)
      get_target_property(_dnnl_lib DNNL::dnnl LOCATION)
    endif()
    get_filename_component(_dnnl_libdir "${_dnnl_lib}" DIRECTORY)
    message(STATUS "minitorch: oneDNN ${dnnl_VERSION} ${_dnnl_lib}")
    if(MINITORCH_STABLE_HEADERS)  # headers from a temporary environment: stable copies (stable_headers.cmake)
      minitorch_stable_copy("${_dnnl_inc}" "${CMAKE_BINARY_DIR}/stable-include/dnnl")
      set(_dnnl_inc "${CMAKE_BINARY_DIR}/stable-include/dnnl")
    endif()
    # The header and the define reach the one file that uses them (others keep their compile commands, so
    # their ccache entries); the library is linked by path, the imported target's include directory may be a
    # temporary one.
    set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/csrc/kernels/cpu/conv.cpp
                                ${CMAKE_CURRENT_SOURCE_DIR}/csrc/kernels/cpu/blas.cpp
                                ${CMAKE_CURRENT_SOURCE_DIR}/csrc/kernels/cpu/rnn.cpp PROPERTIES
                                INCLUDE_DIRECTORIES "${_dnnl_inc}" COMPILE_DEFINITIONS MINITORCH_WITH_ONEDNN=1)
    target_link_libraries(minitorch_core PUBLIC "${_dnnl_lib}")
    if(DNNL_CPU_THREADING_RUNTIME STREQUAL "OMP")  # omp_set_num_threads: torch.set_num_threads reaches it
      target_link_libraries(minitorch_core PUBLIC gomp)
      # parallel_for runs on the same OpenMP threads as oneDNN (core/Parallel.cpp says why)
      set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/csrc/core/Parallel.cpp PROPERTIES
                                  COMPILE_OPTIONS -fopenmp COMPILE_DEFINITIONS MINITORCH_PARALLEL_OPENMP=1)
    endif()
    # Installed, the wheel's library sits in <prefix>/lib, three levels above site-packages/minitorch; a
    # system oneDNN is found by the loader; build trees record the directory itself.
    set(MINITORCH_ONEDNN_RPATH "$ORIGIN/../../..")
    if(NOT SKBUILD)
      list(APPEND MINITORCH_ONEDNN_RPATH "${_dnnl_libdir}")
    endif()
  else()
    message(STATUS "minitorch: oneDNN not found (pip install onednn-devel-cpu-gomp): im2col convolutions")
  endif()
endif()
