#include "device/epilogue_reference.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "epilogue_ops.cuh"

namespace mpgemm {

namespace {

template <int OP>
void apply_rows(std::span<float> d, std::span<const float> bias, std::int64_t first, std::int64_t last,
                std::int64_t n) {
  for (std::int64_t r = first; r < last; ++r) {
    float* row = d.data() + r * n;
    for (std::int64_t c = 0; c < n; ++c) row[c] = epilogue_ops::apply<OP>(row[c], bias[static_cast<std::size_t>(c)]);
  }
}

template <int OP>
void apply_all(std::span<float> d, std::span<const float> bias, std::int64_t m, std::int64_t n, unsigned threads) {
  const auto workers = static_cast<std::int64_t>(std::min<std::int64_t>(threads, std::max<std::int64_t>(m, 1)));
  const std::int64_t rows = (m + workers - 1) / workers;
  std::vector<std::jthread> pool;
  for (std::int64_t w = 0; w < workers; ++w) {
    const std::int64_t first = w * rows, last = std::min(m, first + rows);
    if (first < last) pool.emplace_back([=] { apply_rows<OP>(d, bias, first, last, n); });
  }
}

}  // namespace

void apply_epilogue_reference(std::span<float> d, std::span<const float> bias, std::int64_t m, std::int64_t n,
                              Epilogue epilogue, unsigned threads) {
  if (epilogue == Epilogue::none) return;
  if (m < 0 || n < 0 || d.size() != static_cast<std::size_t>(m) * static_cast<std::size_t>(n))
    throw Error(
        fmt::format("the {} epilogue's reference: {} values for a {} x {} D", to_string(epilogue), d.size(), m, n));
  if (bias.size() != static_cast<std::size_t>(n))
    throw Error(fmt::format("the {} epilogue's reference: a bias of {} values for {} columns", to_string(epilogue),
                            bias.size(), n));
  if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  switch (epilogue) {
    case Epilogue::none:
      return;
    case Epilogue::bias:
      return apply_all<epilogue_ops::kOpBias>(d, bias, m, n, threads);
    case Epilogue::bias_relu:
      return apply_all<epilogue_ops::kOpBiasRelu>(d, bias, m, n, threads);
    case Epilogue::bias_gelu_tanh:
      return apply_all<epilogue_ops::kOpBiasGeluTanh>(d, bias, m, n, threads);
    case Epilogue::bias_gelu:
      return apply_all<epilogue_ops::kOpBiasGelu>(d, bias, m, n, threads);
  }
}

}  // namespace mpgemm
