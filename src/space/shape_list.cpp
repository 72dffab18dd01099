#include "space/shape_list.hpp"

#include <filesystem>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/problem_kind.hpp"
#include "common/whole_number.hpp"

namespace mpgemm {

namespace {

// The entries read so far, in list order, and a sorted index of them: each duplicate check is O(log n), so a list of
// a million shapes loads in a fraction of a second (a linear search made it quadratic). An ordered set, not a hash, so
// no list can be crafted to make the check slow. `Entry` is a Shape or a ListedShape (a shape under its kind).
template <class Entry>
class UniqueEntries {
 public:
  // False when `e` is already listed (it is not added again).
  bool add(const Entry& e) {
    if (!seen_.insert(e).second) return false;
    entries_.push_back(e);
    return true;
  }
  std::vector<Entry> take() { return std::move(entries_); }

 private:
  struct Before {
    static auto key(const Shape& s) { return std::tuple(s.m, s.n, s.k); }
    static auto key(const ListedShape& l) { return std::tuple(key(l.shape), l.kind); }
    bool operator()(const Entry& a, const Entry& b) const { return key(a) < key(b); }
  };
  std::vector<Entry> entries_;
  std::set<Entry, Before> seen_;
};
using UniqueShapes = UniqueEntries<Shape>;

std::int64_t dimension(const nlohmann::json& obj, const char* key, const std::string& file, const std::string& path) {
  if (!obj.contains(key)) throw UsageError(fmt::format("{}: {}: missing \"{}\"", file, path, key));
  const nlohmann::json& v = obj.at(key);
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
    throw UsageError(fmt::format("{}: {}/{}: expected a positive integer, got {}", file, path, key, json_excerpt(v)));
  return v.get<std::int64_t>();
}

}  // namespace

Shape parse_shape(std::string_view text) {
  Shape s{0, 0, 0};
  std::int64_t* dims[] = {&s.m, &s.n, &s.k};
  std::string_view rest = text;
  for (int i = 0; i < 3; ++i) {
    const auto x = i < 2 ? rest.find('x') : std::string_view::npos;
    if (i < 2 && x == std::string_view::npos) break;
    const std::string_view part = rest.substr(0, x);
    const std::optional<std::int64_t> value = parse_whole_number<std::int64_t>(part);
    if (!value || *value <= 0) break;
    *dims[i] = *value;
    rest = i < 2 ? rest.substr(x + 1) : std::string_view{};
  }
  if (s.m <= 0 || s.n <= 0 || s.k <= 0)
    throw UsageError(
        fmt::format("'{}' is not a shape MxNxK of positive whole numbers (e.g. 4096x4096x4096)", text_excerpt(text)));
  return s;
}

std::vector<Shape> parse_shape_list(std::string_view text) {
  UniqueShapes shapes;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const Shape s = parse_shape(rest.substr(0, comma));
    if (!shapes.add(s)) throw UsageError(fmt::format("--shapes: shape {} is listed twice", s.str()));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return shapes.take();
}

std::vector<Shape> without_repeats(std::vector<Shape> shapes) {
  UniqueShapes unique;
  for (const Shape& s : shapes) unique.add(s);
  return unique.take();
}

namespace {

// A "problem" a shape file names (ProblemKind's name); what is no kind's name is refused saying why.
ProblemKind kind_named(const nlohmann::json& value, const std::string& path, const std::string& at) {
  if (!value.is_string())
    throw UsageError(fmt::format("{}: {}: expected a problem kind's name (e.g. \"mk_nk_bf16_bf16\"), got {}", path, at,
                                 json_excerpt(value)));
  std::string why;
  const auto kind = ProblemKind::parse(value.get<std::string>(), &why);
  if (!kind) throw UsageError(fmt::format("{}: {}: {}", path, at, printable_text(why)));
  return *kind;
}

}  // namespace

std::vector<ListedShape> parse_shape_file(std::string_view text, const std::string& path) {
  nlohmann::json root;
  try {
    root = parse_json_bounded(text);  // nesting bounded: the messages below dump values
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: invalid JSON: {}", path, text_excerpt(e.what(), 200)));
  }
  std::string base;
  std::optional<ProblemKind> file_kind;
  const nlohmann::json* list = &root;
  if (root.is_object()) {
    for (const auto& [key, value] : root.items())
      if (key != "shapes" && key != "description" && key != "problem" && key != "not_tunable")
        throw UsageError(
            fmt::format("{}: unknown key \"{}\" (a shape file has \"shapes\", \"description\", \"problem\" and "
                        "\"not_tunable\")",
                        path, text_excerpt(key)));
    // What a capture saw that no kind expresses (python/mpgemm/shapes.py): listed for the reader, tuned by no one.
    if (root.contains("not_tunable") && !root.at("not_tunable").is_array())
      throw UsageError(
          fmt::format("{}: /not_tunable: expected a list, got {}", path, json_excerpt(root.at("not_tunable"))));
    if (root.contains("problem")) file_kind = kind_named(root.at("problem"), path, "/problem");
    if (!root.contains("shapes")) throw UsageError(fmt::format("{}: no \"shapes\" list", path));
    list = &root.at("shapes");
    base = "/shapes";
  }
  if (!list->is_array() || list->empty())
    throw UsageError(fmt::format("{}: {}: expected a non-empty list of {{\"M\", \"N\", \"K\"}} objects", path,
                                 base.empty() ? "/" : base));
  UniqueEntries<ListedShape> shapes;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string at = fmt::format("{}/{}", base, i);
    const nlohmann::json& s = (*list)[i];
    if (!s.is_object())
      throw UsageError(fmt::format("{}: {}: expected {{\"M\", \"N\", \"K\"}}, got {}", path, at, json_excerpt(s)));
    for (const auto& [key, value] : s.items())
      if (key != "M" && key != "N" && key != "K" && key != "problem" && key != "calls")
        throw UsageError(fmt::format("{}: {}: unknown key \"{}\" (a shape has M, N, K, a problem kind and calls)", path,
                                     at, text_excerpt(key)));
    // How often a captured program ran the shape: read, checked, not used by the tuner.
    if (s.contains("calls") && !(s.at("calls").is_number_unsigned() ||
                                 (s.at("calls").is_number_integer() && s.at("calls").get<std::int64_t>() >= 0)))
      throw UsageError(
          fmt::format("{}: {}/calls: expected a count >= 0, got {}", path, at, json_excerpt(s.at("calls"))));
    const std::optional<ProblemKind> kind =
        s.contains("problem") ? kind_named(s.at("problem"), path, at + "/problem") : file_kind;
    const Shape shape{dimension(s, "M", path, at), dimension(s, "N", path, at), dimension(s, "K", path, at)};
    if (!shapes.add(ListedShape{shape, kind}))
      throw UsageError(fmt::format("{}: {}: shape {} is listed twice{}", path, at, shape.str(),
                                   kind ? " for " + kind->name() : std::string()));
  }
  return shapes.take();
}

std::vector<ListedShape> load_shape_file(const std::string& path) {
  std::string text;
  try {
    text = read_bounded_file(path, "shape file");
  } catch (const InputFileError& e) {
    throw UsageError(e.what());  // missing, a folder, unreadable, or endless (/dev/zero)
  }
  return parse_shape_file(text, path);
}

std::vector<ListedShape> load_shapes(const std::string& arg) {
  std::error_code ec;
  if (arg.ends_with(".json") || std::filesystem::exists(arg, ec)) return load_shape_file(arg);
  std::vector<ListedShape> listed;
  for (const Shape& s : parse_shape_list(arg)) listed.push_back(ListedShape{s, std::nullopt});
  return listed;
}

std::vector<Shape> extents_of(const std::vector<ListedShape>& listed) {
  std::vector<Shape> shapes;
  shapes.reserve(listed.size());
  for (const ListedShape& l : listed) shapes.push_back(l.shape);
  return shapes;
}

}  // namespace mpgemm
