#pragma once
// What a translation unit can see, for its keys: every header it includes, transitively, in both forms —
// #include "x" (the embedded kernels/ files, or a file next to the including one) and #include <x> (the toolkit
// include directory, then the spec's include_dirs) — each hashed by name and content. A toolkit upgrade or an
// edited CCCL header thus changes the compile key, while another family's kernel file does not.
//
// #include lines are read textually, #if conditions ignored: a header behind a false condition is hashed too,
// which only over-approximates. A header found nowhere (NVRTC's built-ins such as <cstdint>) counts by its name.
// File contents are read once per process and cached by path (thread-safe): headers do not change under a run.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/family.hpp"
#include "common/hash.hpp"

namespace mpgemm {

// The directories NVRTC searches for `spec`'s headers, in order: `toolkit_include_dir`, then spec.include_dirs
// (a relative one is taken relative to `toolkit_include_dir`).
std::vector<std::string> include_path(const KernelSpec& spec, const std::string& toolkit_include_dir);

struct IncludedHeader {
  std::string name;                           // as first written in an #include, e.g. "cuda_fp16.h", "cuda/barrier"
  std::optional<std::uint64_t> content_hash;  // fnv1a64 of the text; nullopt when the header was found nowhere
  bool operator==(const IncludedHeader&) const = default;
};

// Every header `source` includes, directly or through each other, each once (a file reached under two names
// counts once), in the order first met. `include_path` as include_path() returns it.
std::vector<IncludedHeader> included_headers(std::string_view source, const std::vector<std::string>& include_path);

// Adds what determines the code NVRTC generates from `spec` apart from options and arch: the source, every header
// it includes (name and content) and the name expression. The one definition both source_hash and compile_key use.
void hash_translation_unit(Hasher& h, const KernelSpec& spec, const std::string& toolkit_include_dir);

// The headers `source` itself and the embedded kernels/ files it reaches include that are found nowhere
// (neither embedded nor on `include_path`), in the order first met. A translation unit that fails to compile
// with one of them says the toolkit or the family's include directories are incomplete, not that the config
// is wrong. The toolkit headers' own includes are not checked: they name host-only headers behind #if that
// NVRTC never opens.
std::vector<std::string> missing_headers(std::string_view source, const std::vector<std::string>& include_path);

}  // namespace mpgemm
