#include "common/problem_kind.hpp"

#include <array>

#include <fmt/format.h>

namespace mpgemm {

namespace {

constexpr std::array kALayouts{ALayout::mk, ALayout::km};
constexpr std::array kBLayouts{BLayout::kn, BLayout::nk};
constexpr std::array kInputs{ElementType::fp16, ElementType::bf16};
constexpr std::array kOutputs{ElementType::fp32, ElementType::fp16, ElementType::bf16};
// The fused epilogues a name may end with (none is the absence of one, never written).
constexpr std::array kFused{Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu_tanh, Epilogue::bias_gelu};

// The value of `choices` whose name is `text`.
template <class T, std::size_t N>
std::optional<T> named(std::string_view text, const std::array<T, N>& choices) {
  for (const T c : choices)
    if (to_string(c) == text) return c;
  return std::nullopt;
}

template <class T, std::size_t N>
std::string names(const std::array<T, N>& choices) {
  std::string out;
  for (const T c : choices) out += fmt::format("{}{}", out.empty() ? "" : ", ", to_string(c));
  return out;
}

// Splits at '_'.
std::vector<std::string_view> parts_of(std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const std::size_t end = text.find('_', at);
    parts.push_back(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return parts;
    at = end + 1;
  }
}

}  // namespace

std::string_view to_string(ALayout a) {
  return a == ALayout::mk ? "mk" : "km";
}

std::string_view to_string(BLayout b) {
  return b == BLayout::kn ? "kn" : "nk";
}

std::string_view to_string(ElementType t) {
  switch (t) {
    case ElementType::fp16:
      return "fp16";
    case ElementType::bf16:
      return "bf16";
    case ElementType::fp32:
      return "fp32";
  }
  return "?";
}

std::string_view to_string(Epilogue e) {
  switch (e) {
    case Epilogue::none:
      return "none";
    case Epilogue::bias:
      return "bias";
    case Epilogue::bias_relu:
      return "bias_relu";
    case Epilogue::bias_gelu_tanh:
      return "bias_gelu_tanh";
    case Epilogue::bias_gelu:
      return "bias_gelu";
  }
  return "?";
}

int bytes_of(ElementType t) {
  return t == ElementType::fp32 ? 4 : 2;
}

std::string ProblemKind::name() const {
  return fmt::format("{}_{}_{}_{}{}{}{}", to_string(a), to_string(b), to_string(in), to_string(out),
                     beta ? "_beta" : "", epilogue == Epilogue::none ? "" : "_",
                     epilogue == Epilogue::none ? std::string_view() : to_string(epilogue));
}

std::string ProblemKind::key() const {
  return is_default() ? std::string() : "problem=" + name();
}

std::optional<ProblemKind> ProblemKind::parse(std::string_view text, std::string* why) {
  const auto fail = [&](std::string reason) -> std::optional<ProblemKind> {
    if (why)
      *why = fmt::format(
          "'{}' is not a problem kind: {} (the form is A_B_IN_OUT[_beta][_EPILOGUE], e.g. mk_nk_bf16_bf16 or "
          "mk_nk_bf16_bf16_bias_gelu; the default is mk_kn_fp16_fp32)",
          text.substr(0, 80), reason);
    return std::nullopt;
  };
  const std::vector<std::string_view> parts = parts_of(text);
  if (parts.size() < 4) return fail(fmt::format("{} parts, expected 4 or more", parts.size()));
  ProblemKind kind;
  const auto a = named(parts[0], kALayouts);
  if (!a) return fail(fmt::format("A's layout '{}' is none of {}", parts[0], names(kALayouts)));
  const auto b = named(parts[1], kBLayouts);
  if (!b) return fail(fmt::format("B's layout '{}' is none of {}", parts[1], names(kBLayouts)));
  const auto in = named(parts[2], kInputs);
  if (!in) return fail(fmt::format("the input type '{}' is none of {}", parts[2], names(kInputs)));
  const auto out = named(parts[3], kOutputs);
  if (!out) return fail(fmt::format("the output type '{}' is none of {}", parts[3], names(kOutputs)));
  kind.a = *a;
  kind.b = *b;
  kind.in = *in;
  kind.out = *out;
  std::size_t next = 4;
  kind.beta = parts.size() > next && parts[next] == "beta";
  next += kind.beta ? 1 : 0;
  if (parts.size() > next) {
    // The rest, '_' and all, names the epilogue.
    const std::string_view rest = text.substr(static_cast<std::size_t>(parts[next].data() - text.data()));
    const auto e = named(rest, kFused);
    if (!e)
      return fail(fmt::format("'{}' where only {}an epilogue ({}) may follow", rest,
                              kind.beta ? "" : "'beta' and then ", names(kFused)));
    kind.epilogue = *e;
  }
  return kind;
}

std::optional<std::string> ProblemKind::reference_gap() const {
  if (out == ElementType::fp32 || out == in) return std::nullopt;
  return fmt::format(
      "cuBLAS and cuBLASLt do not compute {} operands into {} outputs, so {} has no reference to be "
      "verified and timed against",
      to_string(in), to_string(out), name());
}

std::vector<ProblemKind> ProblemKind::all() {
  std::vector<ProblemKind> kinds;
  for (const bool beta : {false, true})
    for (const ElementType in : kInputs)
      for (const ElementType out : kOutputs)
        for (const ALayout a : kALayouts)
          for (const BLayout b : kBLayouts) kinds.push_back(ProblemKind{a, b, in, out, beta, Epilogue::none});
  return kinds;
}

std::vector<ProblemKind> ProblemKind::all_with_epilogues() {
  std::vector<ProblemKind> kinds = all();
  for (const Epilogue e : kFused)
    for (ProblemKind k : all()) {
      k.epilogue = e;
      kinds.push_back(k);
    }
  return kinds;
}

std::string GemmProblem::str() const {
  return kind.is_default() ? shape.str() : shape.str() + " " + kind.name();
}

std::int64_t GemmProblem::lda() const {
  return kind.a == ALayout::mk ? shape.k : shape.m;
}

std::int64_t GemmProblem::ldb() const {
  return kind.b == BLayout::kn ? shape.n : shape.k;
}

double GemmProblem::compulsory_bytes() const {
  const auto m = static_cast<double>(shape.m), n = static_cast<double>(shape.n), k = static_cast<double>(shape.k);
  return (m * k + k * n) * bytes_of(kind.in) + m * n * bytes_of(kind.out) * (kind.beta ? 2 : 1) +
         (kind.has_bias() ? n * bytes_of(kind.out) : 0.0);
}

}  // namespace mpgemm
