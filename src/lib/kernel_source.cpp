#include "lib/kernel_source.hpp"

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "compile/compile_pool.hpp"
#include "compile/nvrtc_compile.hpp"
#include "lib/errors.hpp"

namespace mpgemm::lib {

namespace {

constexpr std::size_t kLogExcerpt = 2000;  // characters of NVRTC's log kept in the error

}  // namespace

WinnerCubin winner_cubin(const ShapeWinner& winner, const CubinCache& cache, bool allow_compile) {
  const std::string doing =
      fmt::format("building {} ({}) for {}", winner.config_name, winner.kind.name(), winner.arch.str());
  WinnerCubin out;
  try {
    const KernelSpec spec = family(winner.family).kernel_spec(winner.params, winner.arch, winner.kind);
    if (!allow_compile) {
      // The key hashes the toolkit headers the kernel includes, so even a lookup needs them.
      std::optional<CompileResult> cached = cache.load(compile_key(spec));
      if (!cached)
        throw GemmError(GemmError::Kind::compile_failed,
                        fmt::format("{}: its cubin is not in {} and compiling is not allowed (Options::allow_compile)",
                                    doing, cache.dir().string()));
      out.result = std::move(*cached);
    } else {
      CompilePoolOptions options;
      options.cache = &cache;
      PooledCompile compiled = compile_cached(spec, options);
      out.result = std::move(compiled.result);
      out.compiled = !compiled.from_cache;
    }
  } catch (...) {
    rethrow_as(GemmError::Kind::compile_failed, doing);
  }
  if (out.result.status != Status::ok || out.result.cubin.empty())
    throw GemmError(GemmError::Kind::compile_failed,
                    fmt::format("{}: NVRTC did not compile it: {}", doing, out.result.log.substr(0, kLogExcerpt)));
  return out;
}

}  // namespace mpgemm::lib
