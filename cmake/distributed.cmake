# Collective backends for minitorch.distributed: Gloo (CPU tensors) and NCCL (CUDA tensors), linked into _C.
#
# Gloo: MINITORCH_GLOO = AUTO (default: the system's libgloo-dev, else the pinned Gloo source built into _C),
# SYSTEM, BUNDLED or OFF. The pinned source is Gloo commit 1090929 (2023-01): the snapshot Debian packages
# (0.0~git20220518.5b14351) plus eight upstream commits, mostly build fixes (GCC 12, C++17, Linux 6 headers:
# the snapshot itself no longer compiles against current kernel headers), with the same API. It is downloaded
# from GitHub's archive at configure time, or taken from MINITORCH_GLOO_SOURCE_DIR (an unpacked copy, for
# offline builds), and built as a static, position-independent library whose symbols stay hidden inside _C.
# NCCL: the library of NVIDIA's wheel (nvidia-nccl-cu12/cu13: site-packages/nvidia/nccl) when the Python
# environment has one, which is the NCCL found again at run time through _C's RPATH; else the CUDA toolkit's.
# A backend that is not built raises at init_process_group with a message naming how to get it.
#
# Expects the target _C, MINITORCH_HAS_CUDA and Python_EXECUTABLE; sets MINITORCH_GLOO_KIND (system, bundled
# or none) for the summary.

set(MINITORCH_GLOO "AUTO" CACHE STRING "Gloo backend: AUTO (system, else bundled), SYSTEM, BUNDLED, OFF")
set_property(CACHE MINITORCH_GLOO PROPERTY STRINGS AUTO SYSTEM BUNDLED OFF)
set(MINITORCH_GLOO_COMMIT "10909297fedab0a680799211a299203e53515032" CACHE STRING "Gloo commit to bundle")
set(MINITORCH_GLOO_URL "https://github.com/facebookincubator/gloo/archive/${MINITORCH_GLOO_COMMIT}.tar.gz"
    CACHE STRING "Where the bundled Gloo's source archive is downloaded from")
set(MINITORCH_GLOO_URL_HASH "" CACHE STRING "Expected hash of that archive, ALGO=hex (checked when set)")
set(MINITORCH_GLOO_SOURCE_DIR "" CACHE PATH "An unpacked Gloo source tree to bundle instead of downloading")

set(MINITORCH_GLOO_KIND none)
string(TOUPPER "${MINITORCH_GLOO}" _mt_gloo_mode)

if(_mt_gloo_mode STREQUAL "AUTO" OR _mt_gloo_mode STREQUAL "SYSTEM")
  find_path(GLOO_INCLUDE_DIR gloo/config.h)
  find_library(GLOO_LIBRARY gloo)
  if(GLOO_INCLUDE_DIR AND GLOO_LIBRARY)
    target_compile_definitions(_C PRIVATE MINITORCH_WITH_GLOO=1)
    target_include_directories(_C PRIVATE ${GLOO_INCLUDE_DIR})
    if(NOT EXISTS "${GLOO_INCLUDE_DIR}/gloo/common/memory.h")
      # Debian's package lacks this header, which its TCP transport headers include (ProcessGroupGloo reads them)
      target_include_directories(_C PRIVATE "${CMAKE_CURRENT_LIST_DIR}/../csrc/distributed/gloo_compat")
    endif()
    target_link_libraries(_C PRIVATE ${GLOO_LIBRARY})
    set(MINITORCH_GLOO_KIND system)
    message(STATUS "minitorch: Gloo (system) ${GLOO_LIBRARY}")
  elseif(_mt_gloo_mode STREQUAL "SYSTEM")
    message(FATAL_ERROR "MINITORCH_GLOO=SYSTEM but no Gloo found: install libgloo-dev, or use AUTO/BUNDLED")
  endif()
endif()

# Gloo's own CMake project, built inside ours. A function, so that the settings it needs (static, PIC, the
# policy floor) do not leak into the rest of the build.
function(_mt_add_bundled_gloo src)
  # Gloo's options, as cache entries before its project reads them: the TCP transport only, no tests.
  foreach(opt BUILD_TEST BUILD_BENCHMARK USE_REDIS USE_IBVERBS USE_NCCL USE_RCCL USE_LIBUV USE_CUDA
              USE_TCP_OPENSSL_LINK USE_TCP_OPENSSL_LOAD)
    set(${opt} OFF CACHE BOOL "set by minitorch for its bundled Gloo" FORCE)
  endforeach()
  set(BUILD_SHARED_LIBS OFF)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  set(CMAKE_CXX_VISIBILITY_PRESET hidden)
  set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
  set(CMAKE_POLICY_VERSION_MINIMUM 3.5)  # Gloo asks for CMake 2.8.12, which CMake 4 refuses otherwise
  set(CMAKE_POLICY_DEFAULT_CMP0063 NEW)  # honour the visibility preset on Gloo's static library
  add_subdirectory("${src}" "${CMAKE_BINARY_DIR}/_deps/gloo-build" EXCLUDE_FROM_ALL)
  target_compile_definitions(_C PRIVATE MINITORCH_WITH_GLOO=1)
  # Gloo sets its include paths per directory: its source tree, and its build tree for gloo/config.h
  target_include_directories(_C SYSTEM PRIVATE "${src}" "${CMAKE_BINARY_DIR}/_deps/gloo-build")
  target_link_libraries(_C PRIVATE gloo)
endfunction()

# The bundled Gloo: a source tree from MINITORCH_GLOO_SOURCE_DIR or the pinned archive. file(DOWNLOAD) rather
# than FetchContent so that an offline AUTO build still configures (without Gloo, with a warning that says
# how to get it) instead of failing.
if(MINITORCH_GLOO_KIND STREQUAL "none" AND (_mt_gloo_mode STREQUAL "AUTO" OR _mt_gloo_mode STREQUAL "BUNDLED"))
  set(_mt_gloo_src "${MINITORCH_GLOO_SOURCE_DIR}")
  if(NOT _mt_gloo_src)
    set(_mt_gloo_root "${CMAKE_BINARY_DIR}/_deps/gloo-${MINITORCH_GLOO_COMMIT}")
    set(_mt_gloo_src "${_mt_gloo_root}/src")
    if(NOT EXISTS "${_mt_gloo_src}/gloo/CMakeLists.txt")
      message(STATUS "minitorch: no system Gloo; fetching Gloo ${MINITORCH_GLOO_COMMIT} from ${MINITORCH_GLOO_URL}")
      set(_mt_hash_arg)
      if(MINITORCH_GLOO_URL_HASH)
        set(_mt_hash_arg EXPECTED_HASH ${MINITORCH_GLOO_URL_HASH})
      endif()
      file(DOWNLOAD "${MINITORCH_GLOO_URL}" "${_mt_gloo_root}/gloo.tar.gz" STATUS _mt_dl TLS_VERIFY ON
           ${_mt_hash_arg})
      list(GET _mt_dl 0 _mt_dl_code)
      if(_mt_dl_code EQUAL 0)
        file(REMOVE_RECURSE "${_mt_gloo_root}/x")
        file(ARCHIVE_EXTRACT INPUT "${_mt_gloo_root}/gloo.tar.gz" DESTINATION "${_mt_gloo_root}/x")
        file(GLOB _mt_top LIST_DIRECTORIES true "${_mt_gloo_root}/x/*")
        file(REMOVE_RECURSE "${_mt_gloo_src}")
        file(RENAME "${_mt_top}" "${_mt_gloo_src}")
      else()
        list(GET _mt_dl 1 _mt_dl_msg)
        set(_mt_gloo_src "")
        set(_mt_why "downloading ${MINITORCH_GLOO_URL} failed (${_mt_dl_msg})")
      endif()
    endif()
  endif()
  if(_mt_gloo_src AND EXISTS "${_mt_gloo_src}/gloo/CMakeLists.txt")
    _mt_add_bundled_gloo("${_mt_gloo_src}")
    set(MINITORCH_GLOO_KIND bundled)
    message(STATUS "minitorch: Gloo (bundled) from ${_mt_gloo_src}")
  else()
    if(NOT _mt_why)
      set(_mt_why "no Gloo source in '${_mt_gloo_src}'")
    endif()
    if(_mt_gloo_mode STREQUAL "BUNDLED")
      message(FATAL_ERROR "MINITORCH_GLOO=BUNDLED: ${_mt_why}. Pass -DMINITORCH_GLOO_SOURCE_DIR=<unpacked gloo>")
    endif()
    message(WARNING "minitorch: the gloo backend is off: no system Gloo and ${_mt_why}. Install libgloo-dev, or "
                    "pass -DMINITORCH_GLOO_SOURCE_DIR=<unpacked Gloo ${MINITORCH_GLOO_COMMIT}> (e.g. through "
                    "CMAKE_ARGS for pip), and rebuild.")
  endif()
endif()
if(MINITORCH_GLOO_KIND STREQUAL "none")
  message(STATUS "minitorch: Gloo not built, the gloo backend is off")
endif()

# ---- NCCL
if(MINITORCH_HAS_CUDA)
  set(_mt_nccl_hints)
  if(Python_EXECUTABLE)
    # NVIDIA's wheel (nvidia-nccl-cu12 / -cu13) puts include/ and lib/ under site-packages/nvidia/nccl
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -c
              "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__) if nvidia.nccl.__file__ else list(nvidia.nccl.__path__)[0])"
      OUTPUT_VARIABLE _mt_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _mt_nccl_rc)
    if(_mt_nccl_rc EQUAL 0 AND EXISTS "${_mt_nccl_wheel}/include/nccl.h")
      set(_mt_nccl_hints "${_mt_nccl_wheel}")
      message(STATUS "minitorch: NCCL wheel at ${_mt_nccl_wheel}")
    endif()
  endif()
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_mt_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  # the wheel ships libnccl.so.2 without the unversioned development link; NAMES_PER_DIR: the wheel's
  # libnccl.so.2 before a system libnccl.so (a GPU machine with both linked the system's)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_mt_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
               ${CUDAToolkit_TARGET_DIR}/lib ${CUDAToolkit_BIN_DIR}/../lib64 PATH_SUFFIXES lib)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    target_compile_definitions(_C PRIVATE MINITORCH_WITH_NCCL=1)
    target_include_directories(_C PRIVATE ${NCCL_INCLUDE_DIR})
    target_link_libraries(_C PRIVATE ${NCCL_LIBRARY})
    get_filename_component(_nccl_dir ${NCCL_LIBRARY} DIRECTORY)
    set_property(TARGET _C APPEND PROPERTY BUILD_RPATH ${_nccl_dir})
    message(STATUS "minitorch: NCCL ${NCCL_LIBRARY}")
  else()
    message(STATUS "minitorch: NCCL not found, the nccl backend is off (pip install nvidia-nccl-cu12, or the "
                   "toolkit's libnccl-dev, and rebuild)")
  endif()
endif()
