#include "tune/keys.hpp"

#include <fmt/format.h>

#include "common/hash.hpp"
#include "compile/includes.hpp"
#include "compile/nvrtc_compile.hpp"
#include "measure/protocol_version.hpp"

namespace mpgemm {

std::string source_hash(const KernelSpec& spec) {
  Hasher h;
  hash_translation_unit(h, spec, resolve_cuda_include_dir());
  return h.hex();
}

std::string result_key(const Candidate& candidate, const std::string& compile_key, const DeviceDescription& device,
                       const GemmProblem& problem, const MeasureSettings& settings) {
  const Shape& shape = problem.shape;
  Hasher h;
  h.add(candidate.family).add(to_json(candidate.params).dump()).add(compile_key);
  h.add(device.name).add(device.arch.str()).add(device.driver_version).add(device.cublas_version);
  h.add(shape.m).add(shape.n).add(shape.k);
  if (const std::string kind = problem.kind.key(); !kind.empty()) h.add(kind);
  h.add(fmt::format("{:.9g}/{:.9g}", settings.atol, settings.rtol));
  h.add(settings.warmup).add(settings.runs).add(settings.iters);
  h.add(fmt::format("l2 {}", to_string(settings.l2)));
  // Only when not the writeup's way, so that every key of host-enqueued batches stays what it was.
  if (settings.batches != BatchEnqueue::stream) h.add(fmt::format("batches {}", to_string(settings.batches)));
  if (const auto& n = settings.noise_stop)
    h.add(fmt::format("noise target {:.9g} min {} cap {:.9g} s", n->target, n->min_samples, n->max_time_s));
  if (const auto& r = settings.screen) h.add(fmt::format("screen {:.9g} x {}", r->threshold, r->launches));
  if (settings.settle_ms > 0) h.add(fmt::format("settle {} ms", settings.settle_ms));
  if (const auto& c = settings.hold; c != ClockHold{})
    h.add(fmt::format("keep warm {} ms, settle after idle {} ms", c.keep_warm_ms, c.idle_settle_ms));
  h.add(fmt::format("measure protocol {}", kMeasureProtocolVersion));
  return h.hex();
}

}  // namespace mpgemm
