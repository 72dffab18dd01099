# The git sha (with a -dirty flag) is recorded with every run in the database. It is read at build time so that
# a rebuild after a commit picks up the new sha without re-running CMake.
set(MPGEMM_GIT_SHA_FILE ${CMAKE_BINARY_DIR}/generated/git_sha.cpp)
add_custom_target(mpgemm_git_sha
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${MPGEMM_GIT_SHA_FILE}
          -P ${CMAKE_SOURCE_DIR}/cmake/write_git_sha.cmake
  BYPRODUCTS ${MPGEMM_GIT_SHA_FILE}
  COMMENT "Reading git sha")
