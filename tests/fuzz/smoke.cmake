# space_fuzz_smoke (label unit): where clang-14 links libFuzzer (tools/bootstrap.sh installs both), a 20 s fuzz
# run of the space loader from a copy of the corpus. tools/fuzz.sh builds space_fuzz with clang in
# <build>/fuzz-build; this build keeps its compiler. Elsewhere nothing more: unit/space_corpus_test.cpp replays
# the corpus through the regular build either way.
find_program(MPGEMM_CLANGXX clang++-14)
if(MPGEMM_CLANGXX AND NOT DEFINED MPGEMM_HAVE_LIBFUZZER)
  set(probe ${CMAKE_BINARY_DIR}/CMakeFiles/libfuzzer_probe)
  file(WRITE ${probe}.cpp "#include <cstddef>\n#include <cstdint>\n"
       "extern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n")
  execute_process(COMMAND ${MPGEMM_CLANGXX} -fsanitize=fuzzer,address,undefined ${probe}.cpp -o ${probe}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  set(found OFF)
  if(rc EQUAL 0)
    set(found ON)
  endif()
  set(MPGEMM_HAVE_LIBFUZZER ${found} CACHE INTERNAL "clang++-14 links a libFuzzer harness")
endif()
if(MPGEMM_HAVE_LIBFUZZER)
  cmake_path(GET CUDAToolkit_BIN_DIR PARENT_PATH cuda_root)  # the fuzz build finds the same toolkit
  add_test(NAME space_fuzz_smoke COMMAND ${CMAKE_SOURCE_DIR}/tools/fuzz.sh 20)
  set_tests_properties(space_fuzz_smoke PROPERTIES LABELS unit TIMEOUT 900 ENVIRONMENT
                       "MPGEMM_FUZZ_BUILD_DIR=${CMAKE_BINARY_DIR}/fuzz-build;CUDAToolkit_ROOT=${cuda_root}")
endif()
