#include "worker/wire.hpp"

#include <fmt/format.h>

namespace mpgemm::wire {

namespace {

json encode_dim3(const Dim3& d) {
  return json::array({d.x, d.y, d.z});
}

Dim3 decode_dim3(const json& j) {
  if (!j.is_array() || j.size() != 3) throw ProtocolError(fmt::format("bad dim3: {}", j.dump()));
  return {j[0].get<std::uint32_t>(), j[1].get<std::uint32_t>(), j[2].get<std::uint32_t>()};
}

}  // namespace

json encode(const Shape& v) {
  return {{"m", v.m}, {"n", v.n}, {"k", v.k}};
}

Shape decode_shape(const json& j) {
  return guarded("shape", [&] {
    return Shape{j.at("m").get<std::int64_t>(), j.at("n").get<std::int64_t>(), j.at("k").get<std::int64_t>()};
  });
}

json encode(const TimingStats& v) {
  return {{"median_ms", v.median_ms},
          {"min_ms", v.min_ms},
          {"max_ms", v.max_ms},
          {"warmup", v.warmup},
          {"runs", v.runs},
          {"iters", v.iters},
          {"noise", v.noise},
          {"l2", std::string(to_string(v.l2))},
          {"batches", std::string(to_string(v.batches))},
          {"noise_target", v.noise_target ? json(*v.noise_target) : json(nullptr)}};
}

TimingStats decode_timing(const json& j) {
  return guarded("timing", [&] {
    TimingStats t;
    t.median_ms = j.at("median_ms").get<double>();
    t.min_ms = j.at("min_ms").get<double>();
    t.max_ms = j.at("max_ms").get<double>();
    t.warmup = j.at("warmup").get<int>();
    t.runs = j.at("runs").get<int>();
    t.iters = j.at("iters").get<int>();
    t.noise = j.at("noise").get<double>();
    const auto l2 = l2_mode_from_string(j.at("l2").get<std::string>());
    if (!l2) throw ProtocolError(fmt::format("unknown L2 mode {}", j.at("l2").dump()));
    t.l2 = *l2;
    const auto batches = batch_enqueue_from_string(j.at("batches").get<std::string>());
    if (!batches) throw ProtocolError(fmt::format("unknown batch enqueueing {}", j.at("batches").dump()));
    t.batches = *batches;
    if (!j.at("noise_target").is_null()) t.noise_target = j.at("noise_target").get<double>();
    return t;
  });
}

json encode(const ErrorStats& v) {
  return {{"max_abs", v.max_abs},     {"max_rel", v.max_rel}, {"bad_count", v.bad_count},
          {"nan_count", v.nan_count}, {"atol", v.atol},       {"rtol", v.rtol}};
}

ErrorStats decode_error_stats(const json& j) {
  return guarded("error stats", [&] {
    ErrorStats e;
    e.max_abs = j.at("max_abs").get<double>();
    e.max_rel = j.at("max_rel").get<double>();
    e.bad_count = j.at("bad_count").get<std::int64_t>();
    e.nan_count = j.at("nan_count").get<std::int64_t>();
    e.atol = j.at("atol").get<double>();
    e.rtol = j.at("rtol").get<double>();
    return e;
  });
}

Status decode_status(const json& j) {
  const auto text = guarded("status", [&] { return j.get<std::string>(); });
  const auto status = status_from_string(text);
  if (!status) throw ProtocolError(fmt::format("unknown status '{}'", text));
  return *status;
}

json encode(const Measurement& v) {
  return {{"status", std::string(to_string(v.status))},
          {"timing", v.timing ? encode(*v.timing) : json(nullptr)},
          {"error", v.error ? encode(*v.error) : json(nullptr)},
          {"sm_clock_mhz", v.sm_clock_mhz},
          {"message", v.message},
          {"paired_cublas", v.paired_cublas ? encode(*v.paired_cublas) : json(nullptr)}};
}

Measurement decode_measurement(const json& j) {
  return guarded("measurement", [&] {
    Measurement m;
    m.status = decode_status(j.at("status"));
    if (!j.at("timing").is_null()) m.timing = decode_timing(j.at("timing"));
    if (!j.at("error").is_null()) m.error = decode_error_stats(j.at("error"));
    m.sm_clock_mhz = j.at("sm_clock_mhz").get<double>();
    m.message = j.at("message").get<std::string>();
    if (!j.at("paired_cublas").is_null()) m.paired_cublas = decode_timing(j.at("paired_cublas"));
    return m;
  });
}

json encode(const LaunchGeometry& v) {
  return {{"grid", encode_dim3(v.grid)},
          {"block", encode_dim3(v.block)},
          {"cluster", encode_dim3(v.cluster)},
          {"dynamic_smem_bytes", v.dynamic_smem_bytes},
          {"persistent", v.persistent},
          {"balanced_units", v.balanced_units},
          {"dependent_launch", v.dependent_launch}};
}

LaunchGeometry decode_geometry(const json& j) {
  return guarded("launch geometry", [&] {
    LaunchGeometry g;
    g.grid = decode_dim3(j.at("grid"));
    g.block = decode_dim3(j.at("block"));
    g.cluster = decode_dim3(j.at("cluster"));
    g.dynamic_smem_bytes = j.at("dynamic_smem_bytes").get<std::uint32_t>();
    g.persistent = j.at("persistent").get<bool>();
    g.balanced_units = j.at("balanced_units").get<std::uint64_t>();
    g.dependent_launch = j.at("dependent_launch").get<bool>();
    return g;
  });
}

json encode(const DeviceInfo& v) {
  return {{"ordinal", v.ordinal},
          {"name", v.name},
          {"arch", v.arch.str()},
          {"pci_bus_id", v.pci_bus_id},
          {"uuid", v.uuid},
          {"device_count", v.device_count},
          {"sm_count", v.sm_count},
          {"max_threads_per_block", v.max_threads_per_block},
          {"regs_per_block", v.regs_per_block},
          {"regs_per_sm", v.regs_per_sm},
          {"smem_per_block_optin", v.smem_per_block_optin},
          {"smem_per_sm", v.smem_per_sm},
          {"l2_bytes", v.l2_bytes},
          {"total_memory_bytes", v.total_memory_bytes},
          {"max_sm_clock_mhz", v.max_sm_clock_mhz},
          {"driver_version", v.driver_version},
          {"runtime_version", v.runtime_version},
          {"cublas_version", v.cublas_version}};
}

DeviceInfo decode_device_info(const json& j) {
  return guarded("device info", [&] {
    DeviceInfo d;
    d.ordinal = j.at("ordinal").get<int>();
    d.name = j.at("name").get<std::string>();
    const auto arch = Arch::parse(j.at("arch").get<std::string>());
    if (!arch) throw ProtocolError(fmt::format("bad device info: arch {}", j.at("arch").dump()));
    d.arch = *arch;
    d.pci_bus_id = j.at("pci_bus_id").get<std::string>();
    d.uuid = j.at("uuid").get<std::string>();
    d.device_count = j.at("device_count").get<int>();
    d.sm_count = j.at("sm_count").get<int>();
    d.max_threads_per_block = j.at("max_threads_per_block").get<int>();
    d.regs_per_block = j.at("regs_per_block").get<int>();
    d.regs_per_sm = j.at("regs_per_sm").get<int>();
    d.smem_per_block_optin = j.at("smem_per_block_optin").get<int>();
    d.smem_per_sm = j.at("smem_per_sm").get<int>();
    d.l2_bytes = j.at("l2_bytes").get<std::int64_t>();
    d.total_memory_bytes = j.at("total_memory_bytes").get<std::int64_t>();
    d.max_sm_clock_mhz = j.at("max_sm_clock_mhz").get<int>();
    d.driver_version = j.at("driver_version").get<int>();
    d.runtime_version = j.at("runtime_version").get<int>();
    d.cublas_version = j.at("cublas_version").get<int>();
    return d;
  });
}

json encode(const CublasReference& v) {
  return {{"shape", encode(v.shape)}, {"seed", v.seed}, {"timing", encode(v.timing)}, {"sm_clock_mhz", v.sm_clock_mhz}};
}

CublasReference decode_cublas_reference(const json& j) {
  return guarded("cuBLAS reference", [&] {
    CublasReference r;
    r.shape = decode_shape(j.at("shape"));
    r.seed = j.at("seed").get<std::uint64_t>();
    r.timing = decode_timing(j.at("timing"));
    r.sm_clock_mhz = j.at("sm_clock_mhz").get<double>();
    return r;
  });
}

json encode(const CublasLtAlgo& v) {
  return {{"algo_id", v.algo_id},
          {"tile_id", v.tile_id},
          {"stages_id", v.stages_id},
          {"splitk", v.splitk},
          {"reduction_scheme", v.reduction_scheme},
          {"swizzle", v.swizzle},
          {"custom_option", v.custom_option},
          {"inner_shape_id", v.inner_shape_id},
          {"cluster_shape_id", v.cluster_shape_id},
          {"workspace_bytes", v.workspace_bytes},
          {"waves", v.waves}};
}

CublasLtAlgo decode_cublaslt_algo(const json& j) {
  return guarded("cuBLASLt algorithm", [&] {
    CublasLtAlgo a;
    a.algo_id = j.at("algo_id").get<int>();
    a.tile_id = j.at("tile_id").get<int>();
    a.stages_id = j.at("stages_id").get<int>();
    a.splitk = j.at("splitk").get<int>();
    a.reduction_scheme = j.at("reduction_scheme").get<int>();
    a.swizzle = j.at("swizzle").get<int>();
    a.custom_option = j.at("custom_option").get<int>();
    a.inner_shape_id = j.at("inner_shape_id").get<int>();
    a.cluster_shape_id = j.at("cluster_shape_id").get<int>();
    a.workspace_bytes = j.at("workspace_bytes").get<std::int64_t>();
    a.waves = j.at("waves").get<double>();
    return a;
  });
}

json encode(const CublasLtReference& v) {
  return {{"heuristics_returned", v.heuristics_returned},
          {"heuristics_valid", v.heuristics_valid},
          {"timing", v.timing ? encode(*v.timing) : json(nullptr)},
          {"algo", v.algo ? encode(*v.algo) : json(nullptr)},
          {"error", v.error ? encode(*v.error) : json(nullptr)},
          {"sm_clock_mhz", v.sm_clock_mhz},
          {"message", v.message}};
}

CublasLtReference decode_cublaslt_reference(const json& j) {
  return guarded("cuBLASLt reference", [&] {
    CublasLtReference r;
    r.heuristics_returned = j.at("heuristics_returned").get<int>();
    r.heuristics_valid = j.at("heuristics_valid").get<int>();
    if (!j.at("timing").is_null()) r.timing = decode_timing(j.at("timing"));
    if (!j.at("algo").is_null()) r.algo = decode_cublaslt_algo(j.at("algo"));
    if (!j.at("error").is_null()) r.error = decode_error_stats(j.at("error"));
    r.sm_clock_mhz = j.at("sm_clock_mhz").get<double>();
    r.message = j.at("message").get<std::string>();
    return r;
  });
}

}  // namespace mpgemm::wire
