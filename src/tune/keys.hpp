#pragma once
// Content keys. A stored result is reused only when everything that determines it is unchanged: the kernel
// source and NVRTC options (through the compile key), the NVRTC version, the device and driver, the cuBLAS
// version, the shape, the verification and timing settings, and the version of the code that verifies and
// times (kMeasureProtocolVersion in measure/protocol_version.hpp). Anything else is a new measurement.
#include <string>

#include "codegen/family.hpp"
#include "common/problem_kind.hpp"
#include "common/records.hpp"
#include "tune/backend.hpp"

namespace mpgemm {

// Hash of the translation unit: the source, every header it includes (embedded kernel files and toolkit headers,
// by name and content) and the name expression; not the arch or the options, so one config row serves every arch.
// Throws NvrtcError when no toolkit include directory is found.
std::string source_hash(const KernelSpec& spec);

// The problem's kind adds ProblemKind::key(), which is empty for the default kind: every key recorded before kinds
// existed is unchanged.
std::string result_key(const Candidate& candidate, const std::string& compile_key, const DeviceDescription& device,
                       const GemmProblem& problem, const MeasureSettings& settings);

}  // namespace mpgemm
