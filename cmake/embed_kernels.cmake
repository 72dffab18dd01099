# Kernel sources in kernels/ are embedded into the binaries, so a build carried to another machine compiles the
# exact sources it was built with, and the source hash stored with each config is the hash of what NVRTC saw.
file(GLOB MPGEMM_KERNEL_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/kernels/*.cuh ${CMAKE_SOURCE_DIR}/tests/kernels/*.cuh)
# The list travels through a shell, where ";" would split it: pass it "|"-separated.
string(REPLACE ";" "|" MPGEMM_KERNEL_FILES_ESCAPED "${MPGEMM_KERNEL_FILES}")
set(MPGEMM_KERNELS_CPP ${CMAKE_BINARY_DIR}/generated/kernel_sources.cpp)
add_custom_command(
  OUTPUT ${MPGEMM_KERNELS_CPP}
  COMMAND ${CMAKE_COMMAND} -DOUT=${MPGEMM_KERNELS_CPP} "-DFILES=${MPGEMM_KERNEL_FILES_ESCAPED}"
          -P ${CMAKE_SOURCE_DIR}/cmake/write_kernel_sources.cmake
  DEPENDS ${MPGEMM_KERNEL_FILES} ${CMAKE_SOURCE_DIR}/cmake/write_kernel_sources.cmake
  COMMENT "Embedding kernel sources"
  VERBATIM)  # quotes "-DFILES=a|b" for the shell; without it "|" becomes a pipe once there are two files
