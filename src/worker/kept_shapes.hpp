#pragma once
// Which of the shapes a worker keeps prepared (inputs and cuBLASLt's choice still on the device) it lets go: a pure
// rule, so that it can be tested without a GPU (the worker's server applies it).
#include <cstddef>
#include <span>

namespace mpgemm {

// How many of the kept shapes to let go, the least recently prepared first, so that those left number at most
// `most` and hold at most `limit_bytes` of device memory in all. `bytes` lists each kept shape's device memory,
// the least recently prepared first.
std::size_t kept_shapes_to_let_go(std::span<const std::size_t> bytes, double limit_bytes, std::size_t most);

}  // namespace mpgemm
