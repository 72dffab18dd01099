# The fuzz smoke runs (label unit): where clang-14 links libFuzzer (tools/bootstrap.sh installs both), a short fuzz
# run of each harness from a copy of its corpus: space_fuzz_smoke (the space loader, 20 s), shapes_fuzz_smoke (the
# shape list readers, 10 s), export_fuzz_smoke (the exported-file reader, 10 s). tools/fuzz.sh builds the harness
# with clang in <build>/fuzz-build; this build keeps its compiler. They share that folder, so they run one at a time.
# Elsewhere nothing more: unit/space_corpus_test.cpp, unit/space_shapes_corpus_test.cpp and
# unit/export_corpus_test.cpp replay the corpora through the regular build either way.
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
  foreach(target_seconds space:20 shapes:10 export:10)
    string(REPLACE ":" ";" pair ${target_seconds})
    list(GET pair 0 target)
    list(GET pair 1 seconds)
    add_test(NAME ${target}_fuzz_smoke COMMAND ${CMAKE_SOURCE_DIR}/tools/fuzz.sh --target ${target} ${seconds})
    set_tests_properties(${target}_fuzz_smoke PROPERTIES LABELS unit TIMEOUT 900 RESOURCE_LOCK mpgemm_fuzz_build
                         ENVIRONMENT "MPGEMM_FUZZ_BUILD_DIR=${CMAKE_BINARY_DIR}/fuzz-build;CUDAToolkit_ROOT=${cuda_root}")
  endforeach()
endif()
