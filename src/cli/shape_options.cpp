#include "cli/shape_options.hpp"

namespace mpgemm::cli {

void add_shape_options(ArgParser& parser, const ShapeOptionUse& use) {
  parser.option("--M", "INT", "rows of A and C" + use.clause, use.default_text)
      .option("--N", "INT", "columns of B and C" + use.clause, use.default_text)
      .option("--K", "INT", "the reduction dimension: columns of A, rows of B" + use.clause, use.default_text);
}

ShapeOptions shape_options_from(const ParsedArgs& args) {
  return ShapeOptions{args.get_positive_int("--M"), args.get_positive_int("--N"), args.get_positive_int("--K")};
}

}  // namespace mpgemm::cli
