#pragma once
// --M, --N and --K, the problem's extents on the command line, declared once for every tool that takes them
// (mpgemm-tune, mpgemm-run, mpgemm-profile, mpgemm-lib-bench): the same names and help, each tool saying only what
// the options mean to it and their default.
#include <cstdint>
#include <optional>
#include <string>

#include "cli/args.hpp"
#include "common/problem_kind.hpp"
#include "common/types.hpp"

namespace mpgemm::cli {

// What --M/--N/--K mean to a tool: a clause added to each option's help (e.g. ", replacing the space's shapes"), and
// the default shown in --help ("" for none: the options are optional, or required as the tool checks).
struct ShapeOptionUse {
  std::string clause;
  std::string default_text;
};

void add_shape_options(ArgParser& parser, const ShapeOptionUse& use);

// --problem KIND: what the GEMM computes apart from its extents (common/problem_kind.hpp: layouts, input and output
// types, whether C is read), for the tools that take it. `clause` is what it means to the tool, `default_text` what
// it is when absent (the default kind's name unless given).
void add_problem_option(ArgParser& parser, const std::string& clause, const std::string& default_text = {});

// The kind --problem names; nullopt when absent. A name that is no kind throws UsageError saying why and listing the
// form.
std::optional<ProblemKind> problem_option_from(const ParsedArgs& args);

// The extents given, each nullopt when its option is absent; a value that is not a positive whole number throws
// UsageError naming the option (ParsedArgs::get_positive_int).
struct ShapeOptions {
  std::optional<std::int64_t> m, n, k;
  bool any() const { return m || n || k; }
  bool all() const { return m && n && k; }
  // The shape, each extent absent taking `side`.
  Shape or_side(std::int64_t side) const { return Shape{m.value_or(side), n.value_or(side), k.value_or(side)}; }
};

ShapeOptions shape_options_from(const ParsedArgs& args);

}  // namespace mpgemm::cli
