// The fused epilogues' reference on the host (issue 60): the column's bias added to every row, then the activation
// exactly as kernels/epilogue_ops.cuh computes it, the same for any thread count; sizes that do not fit are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "device/epilogue_reference.hpp"
#include "epilogue_ops.cuh"

namespace mpgemm {
namespace {

// A 5 x 3 D of distinct values and a bias of 3, both crossing zero.
std::vector<float> d_values() {
  std::vector<float> d;
  for (int i = 0; i < 15; ++i) d.push_back(-3.5f + 0.5f * static_cast<float>(i));
  return d;
}
const std::vector<float> kBias = {0.25f, -1.0f, 2.0f};

TEST(EpilogueReference, BiasGoesAlongTheColumnsAndTheActivationFollows) {
  for (const Epilogue e : {Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu_tanh, Epilogue::bias_gelu}) {
    std::vector<float> d = d_values();
    apply_epilogue_reference(d, kBias, 5, 3, e);
    const std::vector<float> in = d_values();
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 3; ++c) {
        const float v = in[r * 3 + c] + kBias[c];
        const float want = e == Epilogue::bias             ? v
                           : e == Epilogue::bias_relu      ? std::max(v, 0.0f)
                           : e == Epilogue::bias_gelu_tanh ? epilogue_ops::gelu_tanh(v)
                                                           : epilogue_ops::gelu_erf(v);
        EXPECT_EQ(d[r * 3 + c], want) << to_string(e) << " at " << r << ", " << c;
      }
  }
  // The erf form against its definition, in double.
  std::vector<float> d = d_values();
  apply_epilogue_reference(d, kBias, 5, 3, Epilogue::bias_gelu);
  const std::vector<float> in = d_values();
  for (int i = 0; i < 15; ++i) {
    const double v = static_cast<double>(in[i]) + kBias[i % 3];
    EXPECT_NEAR(d[i], 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-6) << i;
  }
}

TEST(EpilogueReference, NoneChangesNothingAndThreadsDoNotMatter) {
  std::vector<float> d = d_values();
  apply_epilogue_reference(d, {}, 5, 3, Epilogue::none);
  EXPECT_EQ(d, d_values());
  std::vector<float> one = d_values(), many = d_values();
  apply_epilogue_reference(one, kBias, 5, 3, Epilogue::bias_gelu_tanh, 1);
  apply_epilogue_reference(many, kBias, 5, 3, Epilogue::bias_gelu_tanh, 7);  // more threads than rows
  EXPECT_EQ(one, many);
}

TEST(EpilogueReference, SizesThatDoNotFitAreRefused) {
  std::vector<float> d = d_values();
  EXPECT_THROW(apply_epilogue_reference(d, kBias, 4, 3, Epilogue::bias), Error);
  EXPECT_THROW(apply_epilogue_reference(d, std::vector<float>{1.0f, 2.0f}, 5, 3, Epilogue::bias_relu), Error);
  EXPECT_EQ(d, d_values()) << "nothing is written before the refusal";
}

}  // namespace
}  // namespace mpgemm
