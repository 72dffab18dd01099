# CTest LibInstallExample: installs libmpgemm from BUILD_DIR into a fresh prefix under WORK_DIR, checks what was
# installed, configures and builds examples/gemm against it with find_package(mpgemm), and runs the example on
# DB (it says when there is no device and exits 3 then), and checks that it refuses bad input. Needs no GPU.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR DB)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "test_install_example.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component mpgemm_lib)
foreach(f include/mpgemm/gemm.hpp include/mpgemm/gemm.h include/mpgemm/api.h share/mpgemm/kernels/wgmma_gemm.cuh
          share/mpgemm/kernels/wmma_gemm.cuh)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(GLOB_RECURSE configs ${prefix}/*/mpgemmConfig.cmake)
file(GLOB_RECURSE libs ${prefix}/*/libmpgemm.so)
if(NOT configs OR NOT libs)
  message(FATAL_ERROR "no mpgemmConfig.cmake or libmpgemm.so under ${prefix}")
endif()
# The public headers stand alone: besides standard headers they include only each other (installed), nothing of
# src/.
foreach(h gemm.hpp gemm.h api.h)
  file(STRINGS ${prefix}/include/mpgemm/${h} quoted REGEX "^#include \"")
  foreach(line ${quoted})
    string(REGEX REPLACE "^#include \"([^\"]*)\".*" "\\1" included "${line}")
    if(NOT included MATCHES "^mpgemm/" OR NOT EXISTS ${prefix}/include/${included})
      message(FATAL_ERROR "the installed ${h} includes a header that is not installed beside it: ${line}")
    endif()
  endforeach()
endforeach()

run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/gemm -B ${WORK_DIR}/example -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/example)
# The example runs the GEMM where there is a device (exit 0: the element matched) and otherwise says so and exits 3;
# anything else fails, and so does bad input that is not refused with exit 2.
execute_process(COMMAND ${WORK_DIR}/example/gemm_example ${DB} 1000 1096 520 RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT (rc EQUAL 0 OR (rc EQUAL 3 AND err MATCHES "no CUDA device here")))
  message(FATAL_ERROR "gemm_example failed (${rc}):\n${out}\n${err}")
endif()
message(STATUS "gemm_example (exit ${rc}): ${out}${err}")
execute_process(COMMAND ${WORK_DIR}/example/gemm_example ${DB} 1000 abc 520 RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "positive whole numbers")
  message(FATAL_ERROR "gemm_example took 'abc' as a size (exit ${rc}): ${err}")
endif()
execute_process(COMMAND ${WORK_DIR}/example/gemm_example ${WORK_DIR}/no_such.db RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR err MATCHES "libmpgemm: libmpgemm")
  message(FATAL_ERROR "gemm_example on a missing database (exit ${rc}): ${err}")
endif()
