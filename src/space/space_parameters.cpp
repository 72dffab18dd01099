// The "shapes" and "parameters" sections of a space file.
#include <algorithm>

#include <fmt/format.h>

#include "space/enumerate.hpp"
#include "space/space_json.hpp"

namespace mpgemm::space_json {

namespace {

bool is_pow2(std::int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

// A [lo, hi] or [lo, hi, step] pair of integers; `form` names the expected shape in messages.
std::vector<std::int64_t> bounds(const Json& j, const std::string& path, const Checker& check, std::size_t max_size,
                                 std::string_view form) {
  check.array(j, path);
  if (j.size() < 2 || j.size() > max_size)
    check.fail(path, fmt::format("expected {}, got an array of {} elements", form, j.size()));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(check.integer(j[i], index_path(path, i)));
  return out;
}

std::vector<Value> list_domain(const Json& list, const std::string& path, const Checker& check, ValueType& type) {
  check.non_empty_array(list, path);
  std::vector<Value> domain;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& v = list[i];
    std::string at = index_path(path, i);
    if (!v.is_number_integer() && !v.is_string())
      check.fail(at, fmt::format("expected an integer or a string, got {}", describe(v)));
    ValueType t = v.is_string() ? ValueType::string : ValueType::integer;
    if (i == 0) type = t;
    if (t != type)
      check.fail(at,
                 fmt::format("expected {} like the first value, got {} (a list holds integers or strings, not both)",
                             type == ValueType::integer ? "an integer" : "a string", describe(v)));
    Value value = t == ValueType::integer ? Value{check.integer(v, at)} : Value{v.get<std::string>()};
    if (t == ValueType::string && std::get<std::string>(value).empty()) check.fail(at, "empty string value");
    auto dup = std::find(domain.begin(), domain.end(), value);
    if (dup != domain.end())
      check.fail(at, fmt::format("duplicate value {} (already at index {})", describe(v), dup - domain.begin()));
    domain.push_back(std::move(value));
  }
  return domain;
}

std::vector<Value> pow2_domain(const Json& j, const std::string& path, const Checker& check) {
  std::vector<std::int64_t> b = bounds(j, path, check, 2, "[lo, hi]");
  for (std::size_t i = 0; i < 2; ++i)
    if (!is_pow2(b[i])) check.fail(index_path(path, i), fmt::format("{} is not a power of two", b[i]));
  if (b[0] > b[1]) check.fail(path, fmt::format("lo {} is greater than hi {}", b[0], b[1]));
  std::vector<Value> domain;
  for (std::int64_t v = b[0];; v *= 2) {
    domain.emplace_back(std::in_place_type<std::int64_t>, v);
    if (v == b[1]) break;
  }
  return domain;
}

std::vector<Value> range_domain(const Json& j, const std::string& path, const Checker& check) {
  std::vector<std::int64_t> b = bounds(j, path, check, 3, "[lo, hi] or [lo, hi, step]");
  std::int64_t step = b.size() == 3 ? b[2] : 1;
  if (step <= 0) check.fail(index_path(path, 2), fmt::format("step must be positive, got {}", step));
  if (b[0] > b[1]) check.fail(path, fmt::format("lo {} is greater than hi {}", b[0], b[1]));
  // Unsigned arithmetic: hi - lo may not fit in int64.
  std::uint64_t count =
      (static_cast<std::uint64_t>(b[1]) - static_cast<std::uint64_t>(b[0])) / static_cast<std::uint64_t>(step) + 1;
  if (count > kMaxSpaceProduct)
    check.fail(path, fmt::format("the range has {} values, more than the limit of {}", count, kMaxSpaceProduct));
  std::vector<Value> domain;
  for (std::uint64_t i = 0; i < count; ++i)
    domain.emplace_back(
        std::in_place_type<std::int64_t>,
        static_cast<std::int64_t>(static_cast<std::uint64_t>(b[0]) + i * static_cast<std::uint64_t>(step)));
  return domain;
}

}  // namespace

void read_shapes(Space& space, const Json& root, const Checker& check) {
  const Json& shapes = check.non_empty_array(check.required(root, "", "shapes"), "/shapes");
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    std::string path = index_path("/shapes", i);
    const Json& s = check.object(shapes[i], path);
    check.only_keys(s, path, {"M", "N", "K"});
    Shape shape;
    shape.m = check.positive_integer(check.required(s, path, "M"), path + "/M");
    shape.n = check.positive_integer(check.required(s, path, "N"), path + "/N");
    shape.k = check.positive_integer(check.required(s, path, "K"), path + "/K");
    auto dup = std::find(space.shapes.begin(), space.shapes.end(), shape);
    if (dup != space.shapes.end())
      check.fail(path,
                 fmt::format("duplicate shape {} (already at index {})", shape.str(), dup - space.shapes.begin()));
    space.shapes.push_back(shape);
  }
}

void read_parameters(Space& space, const Json& root, const Checker& check) {
  const Json& params = check.object(check.required(root, "", "parameters"), "/parameters");
  if (params.empty()) check.fail("/parameters", "expected at least one parameter, got {}");
  for (const auto& [name, spec] : params.items()) {
    Parameter p;
    p.name = name;
    p.json_path = member_path("/parameters", name);
    if (!is_identifier(name))
      check.fail_key(p.json_path, fmt::format("invalid parameter name \"{}\": {}", name, kNameRule));
    check.object(spec, p.json_path);
    check.only_keys(spec, p.json_path, {"values", "pow2", "range", "description"});
    int kinds = static_cast<int>(spec.contains("values")) + static_cast<int>(spec.contains("pow2")) +
                static_cast<int>(spec.contains("range"));
    if (kinds != 1)
      check.fail(p.json_path, fmt::format("parameter {} needs exactly one of \"values\", \"pow2\" or \"range\", got {}",
                                          name, kinds));
    if (spec.contains("description"))
      p.description = check.string(spec.at("description"), p.json_path + "/description");
    if (spec.contains("values")) {
      p.kind = Parameter::Kind::values;
      p.domain = list_domain(spec.at("values"), p.json_path + "/values", check, p.type);
    } else if (spec.contains("pow2")) {
      p.kind = Parameter::Kind::pow2;
      p.domain = pow2_domain(spec.at("pow2"), p.json_path + "/pow2", check);
    } else {
      p.kind = Parameter::Kind::range;
      p.domain = range_domain(spec.at("range"), p.json_path + "/range", check);
    }
    space.parameters.push_back(std::move(p));
  }
  check_product_size(space);
}

}  // namespace mpgemm::space_json
