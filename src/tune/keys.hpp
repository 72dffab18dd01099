#pragma once
// Content keys. A stored result is reused only when everything that determines it is unchanged: the kernel
// source and NVRTC options (through the compile key), the NVRTC version, the device and driver, the cuBLAS
// version, the shape and the verification and timing settings. Anything else is a new measurement.
#include <string>

#include "codegen/family.hpp"
#include "common/records.hpp"
#include "tune/backend.hpp"

namespace mpgemm {

// Hash of the translation unit, every embedded kernel file it can include and the name expression.
std::string source_hash(const KernelSpec& spec);

std::string result_key(const Candidate& candidate, const std::string& compile_key, const DeviceDescription& device,
                       const Shape& shape, const MeasureSettings& settings);

}  // namespace mpgemm
