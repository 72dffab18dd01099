#pragma once
// What a GEMM computes, apart from its size (issue 58; CUTLASS's library keeps the same split: GemmDescription's
// element types, layouts and epilogue against the problem's m, n, k): D (M x N, row-major) = alpha * A.B + beta * C,
// accumulated in FP32 and rounded once to D's type, with
//   A  M x K, stored M x K row-major ("mk", today's) or K x M row-major ("km": a transposed view);
//   B  K x N, stored K x N row-major ("kn", today's) or N x K row-major ("nk": a linear layer's weight);
//   A and B in FP16 or BF16; C and D in FP32, FP16 or BF16;
//   beta != 0 reads C (D's type) before writing D: the kind holds only whether it does, not the scalars, which are
//   values of a call;
//   an epilogue (issue 60) fused after it: D = act(alpha * A.B + beta * C + bias), bias a length-N vector of D's
//   type (not scaled by beta), act none, ReLU or one of GELU's two forms (kernels/epilogue_ops.cuh).
// The default kind is today's only problem (mk, kn, FP16 in, FP32 out, beta 0): it names every existing result,
// database and exported entry, and its key is empty so that adding the kind changes no existing key.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.hpp"

namespace mpgemm {

enum class ALayout : std::uint8_t { mk, km };
enum class BLayout : std::uint8_t { kn, nk };
enum class ElementType : std::uint8_t { fp16, bf16, fp32 };
// The fused operation after alpha * A.B + beta * C: none, + bias, + bias then ReLU, + bias then GELU's tanh form
// (cuBLASLt's GELU_BIAS, GPT-2's) or its exact erf form (PyTorch's default, BERT's). The values are
// kernels/epilogue_ops.cuh's kOp* (the template argument the families' epilogues take).
enum class Epilogue : std::uint8_t { none, bias, bias_relu, bias_gelu_tanh, bias_gelu };

std::string_view to_string(ALayout a);      // "mk", "km"
std::string_view to_string(BLayout b);      // "kn", "nk"
std::string_view to_string(ElementType t);  // "fp16", "bf16", "fp32"
std::string_view to_string(Epilogue e);     // "none", "bias", "bias_relu", "bias_gelu_tanh", "bias_gelu"
int bytes_of(ElementType t);                // 2, 2, 4

struct ProblemKind {
  ALayout a = ALayout::mk;
  BLayout b = BLayout::kn;
  ElementType in = ElementType::fp16;   // A's and B's
  ElementType out = ElementType::fp32;  // C's and D's
  bool beta = false;                    // beta != 0: C is read
  Epilogue epilogue = Epilogue::none;

  auto operator<=>(const ProblemKind&) const = default;

  bool is_default() const { return *this == ProblemKind{}; }
  // The procedural name: layouts, input type, output type, then "_beta" when C is read, then the epilogue unless
  // none, e.g. "mk_kn_fp16_fp32" (the default), "mk_nk_bf16_bf16", "km_kn_fp16_fp32_beta",
  // "mk_nk_bf16_bf16_bias_gelu_tanh". parse(name()) gives the kind back.
  std::string name() const;
  // What the kind adds to a result key: empty for the default kind (every existing key stays as it is), else
  // "problem=" and the name.
  std::string key() const;
  // The kind `text` names (name()'s form); nullopt when it names none, with why in `why` (one line) when given.
  static std::optional<ProblemKind> parse(std::string_view text, std::string* why = nullptr);
  // Why the vendor library cannot compute this kind, which is then neither verified nor timed against a reference
  // (cuBLAS and cuBLASLt take FP16 operands into FP16 or FP32, BF16 into BF16 or FP32, never one 16-bit type into
  // the other); nullopt when they can. A fused epilogue is no gap: the reference is the vendor's FP32 GEMM with the
  // epilogue applied after it (device/epilogue_reference.hpp).
  std::optional<std::string> reference_gap() const;
  // Every kind without an epilogue, the default first: 2 layouts x 2 layouts x 2 input types x 3 output types x
  // beta or not.
  static std::vector<ProblemKind> all();
  // all() with each epilogue: every kind there is.
  static std::vector<ProblemKind> all_with_epilogues();
  // Whether the kind adds a bias vector (every epilogue but none does).
  bool has_bias() const { return epilogue != Epilogue::none; }
};

// A GEMM to run: its extents and its kind; what a bare Shape means today ("the problem"), made explicit.
struct GemmProblem {
  Shape shape;
  ProblemKind kind;

  friend bool operator==(const GemmProblem&, const GemmProblem&) = default;

  // "4096x4096x4096" for the default kind, as every existing log, table and file names it; else the shape, a
  // space and the kind's name: "4096x4096x4096 mk_nk_bf16_bf16".
  std::string str() const;
  // The row strides, in elements, of A as stored (K for mk, M for km), of B as stored (N for kn, K for nk), and of
  // C and D (N): what tensor maps and the reference take.
  std::int64_t lda() const;
  std::int64_t ldb() const;
  std::int64_t ldd() const { return shape.n; }
  // The bytes the problem reads and writes at least: A and B once, D once, C once more when beta reads it, the
  // bias vector once.
  double compulsory_bytes() const;
};

}  // namespace mpgemm
