#pragma once
// Shape lists given apart from a space (mpgemm-tune --shapes): inline "MxNxK,MxNxK", or a JSON file holding either
// a list of {"M": .., "N": .., "K": ..} objects or {"description": "...", "shapes": [...]} (configs/shapes/). A file,
// or one of its shapes, may name its problem kind ("problem": "mk_nk_bf16_bf16", common/problem_kind.hpp): a shape's
// own kind wins over the file's, and a shape that names none (nor its file) takes the run's (--problem, else the
// default). One file may hold shapes of several kinds; a shape is listed once per kind.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/problem_kind.hpp"
#include "common/types.hpp"

namespace mpgemm {

// One entry of a shape list: its extents and the kind it names (its own, else its file's); nullopt when it names
// none, so that the run's kind applies.
struct ListedShape {
  Shape shape;
  std::optional<ProblemKind> kind;
  friend bool operator==(const ListedShape&, const ListedShape&) = default;
};

// "4096x4096x4096"; throws UsageError naming the text.
Shape parse_shape(std::string_view text);

// "MxNxK,MxNxK,..." (at least one; duplicates refused); throws UsageError.
std::vector<Shape> parse_shape_list(std::string_view text);

// A JSON shape file (above), at most kMaxInputFileBytes and kMaxJsonDepth deep (common/bounded_input.hpp); throws
// UsageError with the file and the JSON path of what is wrong. The same shape under two kinds is two entries; under
// one kind twice, an error.
std::vector<ListedShape> load_shape_file(const std::string& path);

// The text of a shape file; `path` names it in errors (what load_shape_file does once it has read the file).
std::vector<ListedShape> parse_shape_file(std::string_view text, const std::string& path);

// --shapes ARG: a file when ARG names one (or ends in .json), else an inline list (whose entries name no kind).
std::vector<ListedShape> load_shapes(const std::string& arg);

// The extents of `listed`, in order, whatever their kinds.
std::vector<Shape> extents_of(const std::vector<ListedShape>& listed);

// `shapes` in their order, each once (where it is first listed). O(n log n): a million shapes take well under a
// second, where a linear search for each took minutes.
std::vector<Shape> without_repeats(std::vector<Shape> shapes);

}  // namespace mpgemm
