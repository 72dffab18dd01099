#pragma once
// NVRTC: a KernelSpec to a cubin plus ptxas's resource report and performance warnings. A source that does
// not compile is a result (Status::compile_failed, log kept), not an exception; NvrtcError is for NVRTC
// itself failing or a missing toolkit. Thread-safe: every call owns its nvrtcProgram.
#include <string>
#include <vector>

#include "codegen/family.hpp"
#include "common/records.hpp"

namespace mpgemm {

struct CompileOptions {
  std::string cuda_include_dir;            // toolkit headers (cuda_fp16.h, mma.h); empty: resolve_cuda_include_dir()
  std::vector<std::string> extra_options;  // NVRTC options appended after the spec's (e.g. "-G"); part of the key
};

// The NVRTC library's version, "13.0".
std::string nvrtc_version();

// The toolkit include directory NVRTC needs (it has no default include path): the first of $MPGEMM_CUDA_INCLUDE_DIR,
// the directories CMake found (MPGEMM_CUDA_INCLUDE_DIR at build time) and /usr/local/cuda/include that holds
// cuda_fp16.h. Throws NvrtcError naming every directory tried when none does.
std::string resolve_cuda_include_dir();

// Everything NVRTC is given besides the include path, in order: the arch, the ptxas report flag, the spec's options,
// the extra options.
std::vector<std::string> nvrtc_options(const KernelSpec& spec, const CompileOptions& options);

// Hash of the translation unit (the source, every header it includes, embedded or from the toolkit and
// spec.include_dirs, by name and content: hash_translation_unit in compile/includes.hpp), the name expression,
// nvrtc_options(), the arch and the NVRTC version: equal keys compile to the same cubin. Where the headers lie is
// not part of it, only what they say. Reads the headers (cached per process) and asks NVRTC its version; throws
// NvrtcError when options.cuda_include_dir is empty and no toolkit include directory is found.
std::string compile_key(const KernelSpec& spec, const CompileOptions& options = {});

// Compiles spec.source with every kernels/*.cuh available as a header by file name, the toolkit include
// directory and then spec.include_dirs on the include path, and resolves spec.name_expression to its lowered
// name. A source that does not compile (NVRTC_ERROR_COMPILATION, NVRTC_ERROR_INVALID_OPTION) is a
// compile_failed result. Throws NvrtcError when the machinery fails: NVRTC itself (out of memory, ...), or a
// header the kernel code includes that is found nowhere (missing_headers() in compile/includes.hpp); neither
// is ever the config's outcome.
CompileResult compile(const KernelSpec& spec, const CompileOptions& options = {});

}  // namespace mpgemm
