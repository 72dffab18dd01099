#include "cli/run_rerank.hpp"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "common/readable.hpp"
#include "compile/compile_pool.hpp"
#include "compile/cubin_cache.hpp"
#include "compile/nvrtc_compile.hpp"
#include "store/store.hpp"
#include "tune/gpu_backend.hpp"

namespace mpgemm::cli {

report::Table run_rerank(const RunOptions& opt, const RerankOptions& rerank, const std::vector<std::string>& argv,
                         std::vector<std::string>* notes) {
  // A re-rank times what a tune recorded: without the database there is nothing to rank, GPU or not (and
  // opening it read-write would create an empty one).
  if (const auto o = read_obstacle(opt.db_path); o && o->kind == ReadObstacle::Kind::missing)
    throw Error(fmt::format("no database at {}: a re-rank takes its configs from a tuned database (mpgemm-tune --db)",
                            opt.db_path.string()));
  require_readable_file(opt.db_path, "database");
  Store::require_writable(opt.db_path);  // the winner and every sample are written into it
  if (!rerank.also.empty()) {  // a misspelt name says so on any machine; its measurement is checked on the device
    const Store known = Store::open(opt.db_path, Store::Mode::read_only);
    for (const std::string& name : rerank.also)
      if (!known.find_config_id(name))
        throw UsageError(fmt::format("--rerank-also {}: no config of that name in {}", name, opt.db_path.string()));
  }
  std::string why;
  auto backend = make_gpu_backend(opt.worker_path, opt.settings, &why);
  if (!backend) throw NoDeviceError(fmt::format("mpgemm-run --rerank measures on a GPU and there is none: {}", why));
  Store store = Store::open(opt.db_path, Store::Mode::read_write);
  RunInfo info;
  info.argv = argv;
  info.mode = backend->mode();
  char host[256] = {};
  info.hostname = gethostname(host, sizeof host - 1) == 0 ? std::string(host) : std::string("unknown");
  info.nvrtc_version = nvrtc_version();
  info.set_device(backend->device());
  info.notes =
      fmt::format("re-rank of the top {} at {}", rerank.top_k, GemmProblem{opt.shape, opt.settings.kind}.str());
  RerankOptions o = rerank;
  o.kind = opt.settings.kind;  // the kind's measurements, kernels and references, recorded with it
  o.run_id = store.begin_run(info);
  try {
    if (opt.cubin_cache) {
      o.compile = [cache = CubinCache(*opt.cubin_cache), kind = o.kind](const Candidate& c, const Arch& arch) {
        CompilePoolOptions compiling;
        compiling.cache = &cache;
        return compile_cached(family(c.family).kernel_spec(c.params, arch, kind), compiling).result;
      };
    }
    const RerankOutcome out = rerank_shape(store, *backend, opt.shape, o);
    store.end_run(o.run_id, "finished");
    notes->push_back(out.note);
    return rerank_table(out);
  } catch (...) {
    store.end_run(o.run_id, "failed");
    throw;
  }
}

}  // namespace mpgemm::cli
