#include "cli/shape_options.hpp"

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"

namespace mpgemm::cli {

void add_shape_options(ArgParser& parser, const ShapeOptionUse& use) {
  parser.option("--M", "INT", "rows of A and C" + use.clause, use.default_text)
      .option("--N", "INT", "columns of B and C" + use.clause, use.default_text)
      .option("--K", "INT", "the reduction dimension: columns of A, rows of B" + use.clause, use.default_text);
}

void add_problem_option(ArgParser& parser, const std::string& clause, const std::string& default_text) {
  parser.option("--problem", "KIND",
                "the problem kind: A's layout (mk: stored M x K; km: K x M), B's (kn: K x N; nk: N x K, a linear "
                "layer's weight), the input type (fp16, bf16), the output type (fp32, fp16, bf16) and _beta when C "
                "is read, e.g. mk_nk_bf16_bf16" +
                    clause,
                default_text.empty() ? ProblemKind{}.name() : default_text);
}

std::optional<ProblemKind> problem_option_from(const ParsedArgs& args) {
  const auto text = args.get("--problem");
  if (!text) return std::nullopt;
  std::string why;
  auto kind = ProblemKind::parse(*text, &why);
  if (!kind) throw UsageError(fmt::format("--problem: {}", printable_text(why)));
  return kind;
}

ShapeOptions shape_options_from(const ParsedArgs& args) {
  return ShapeOptions{args.get_positive_int("--M"), args.get_positive_int("--N"), args.get_positive_int("--K")};
}

}  // namespace mpgemm::cli
