#pragma once
// JSON forms of the records that cross the worker pipe. Explicit functions rather than ADL to_json/from_json
// hooks, so other layers stay free to give the same records their own JSON forms. Decoders throw ProtocolError
// naming the record and the problem.
#include <nlohmann/json.hpp>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "common/records.hpp"
#include "device/device_info.hpp"

namespace mpgemm {

// The bytes on the pipe do not make a valid message (truncated, oversized, malformed, unknown type or field).
class ProtocolError : public Error {
 public:
  using Error::Error;
};

namespace wire {

using nlohmann::json;

json encode(const Shape& v);
json encode(const TimingStats& v);
json encode(const ErrorStats& v);
json encode(const Measurement& v);
json encode(const LaunchGeometry& v);
json encode(const DeviceInfo& v);
json encode(const CublasReference& v);
json encode(const CublasLtAlgo& v);
json encode(const CublasLtReference& v);

Shape decode_shape(const json& j);
TimingStats decode_timing(const json& j);
ErrorStats decode_error_stats(const json& j);
Measurement decode_measurement(const json& j);
LaunchGeometry decode_geometry(const json& j);
DeviceInfo decode_device_info(const json& j);
CublasReference decode_cublas_reference(const json& j);
CublasLtAlgo decode_cublaslt_algo(const json& j);
CublasLtReference decode_cublaslt_reference(const json& j);

Status decode_status(const json& j);

// Runs `fn`, turning the JSON library's exceptions into ProtocolError("bad <what>: ...").
template <class Fn>
auto guarded(const char* what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const json::exception& e) {
    throw ProtocolError(std::string("bad ") + what + ": " + e.what());
  }
}

}  // namespace wire
}  // namespace mpgemm
