#pragma once
// Shape lists given apart from a space (mpgemm-tune --shapes): inline "MxNxK,MxNxK", or a JSON file holding either
// a list of {"M": .., "N": .., "K": ..} objects or {"description": "...", "shapes": [...]} (configs/shapes/). A file,
// or one of its shapes, may name its problem kind ("problem": "mk_kn_fp16_fp32", common/problem_kind.hpp); this
// build tunes the default kind only and refuses any other by name.
#include <string>
#include <string_view>
#include <vector>

#include "common/types.hpp"

namespace mpgemm {

// "4096x4096x4096"; throws UsageError naming the text.
Shape parse_shape(std::string_view text);

// "MxNxK,MxNxK,..." (at least one; duplicates refused); throws UsageError.
std::vector<Shape> parse_shape_list(std::string_view text);

// A JSON shape file (above), at most kMaxInputFileBytes and kMaxJsonDepth deep (common/bounded_input.hpp); throws
// UsageError with the file and the JSON path of what is wrong.
std::vector<Shape> load_shape_file(const std::string& path);

// The text of a shape file; `path` names it in errors (what load_shape_file does once it has read the file).
std::vector<Shape> parse_shape_file(std::string_view text, const std::string& path);

// --shapes ARG: a file when ARG names one (or ends in .json), else an inline list.
std::vector<Shape> load_shapes(const std::string& arg);

// `shapes` in their order, each once (where it is first listed). O(n log n): a million shapes take well under a
// second, where a linear search for each took minutes.
std::vector<Shape> without_repeats(std::vector<Shape> shapes);

}  // namespace mpgemm
