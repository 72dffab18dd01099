#pragma once
// A search space (configs/*.json) as typed data: the family it belongs to, the problem shapes, the parameters and
// their domains, and the constraints a config must satisfy. Loading validates everything and reports every
// problem as a SpaceError at file:line:column and JSON path; later layers report their own problems with a
// space (e.g. a family that rejects a named point) through Space::error_at, at the same precision.
//
// File format (every key except family, shapes and parameters is optional):
//   {
//     "family": "wmma", "description": "...", "arch": "sm_86", "problems": ["mk_kn_fp16_fp32"],
//     "shapes": [{"M": 2048, "N": 2048, "K": 2048}],
//     "constants": {"SMEM_LIMIT": 101376},
//     "parameters": {"BM": {"values": [64, 128]}, "BK": {"pow2": [16, 64]}, "STAGES": {"range": [1, 4]},
//                    "LOAD": {"values": ["sync", "cp_async"], "description": "..."}},
//     "derived": {"THREADS": "(BM / WM) * (BN / WN) * 32"},
//     "constraints": ["BM % WM == 0", "LOAD == \"cp_async\" || STAGES == 1"],
//     "points": {"wmma_naive": {"BM": 16, ..., "LOAD": "direct"}}
//   }
// "problems" lists the problem kinds the space is meant for (their names: common/problem_kind.hpp), or is "any": every
// kind its family computes, which is also what a space without it covers.
// The expression language is described in space/expr.hpp.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "common/params.hpp"
#include "common/problem_kind.hpp"
#include "common/types.hpp"
#include "space/expr.hpp"
#include "space/json_locator.hpp"

namespace mpgemm {

struct Parameter {
  enum class Kind {
    values,  // {"values": [64, 128]}: an explicit list, all integers or all strings
    pow2,    // {"pow2": [16, 64]}: the powers of two from lo to hi, inclusive
    range,   // {"range": [1, 4]} or {"range": [lo, hi, step]}: lo, lo+step, ... <= hi
  };
  std::string name;
  Kind kind = Kind::values;
  ValueType type = ValueType::integer;  // type of every value (pow2 and range are integers)
  std::vector<Value> domain;            // every value, in enumeration order (as listed, or ascending)
  std::string description;              // optional free text from the file
  std::string json_path;                // "/parameters/BM"
};

// A named integer usable in expressions, e.g. SMEM_LIMIT.
struct Constant {
  std::string name;
  std::int64_t value = 0;
  std::string json_path;  // "/constants/SMEM_LIMIT"
};

// A named integer computed per config from parameters, constants and earlier derived values.
struct Derived {
  std::string name;
  Expr expr;              // integer-typed
  std::string json_path;  // "/derived/THREADS"
  const std::string& source() const { return expr.text(); }
};

struct Constraint {
  Expr expr;              // integer-typed; a config passes when it is nonzero
  std::string json_path;  // "/constraints/3"
  const std::string& source() const { return expr.text(); }
};

// A complete assignment of the parameters, named in the file (e.g. a baseline kernel). It need not lie inside the
// domains, but it has every parameter with its type and satisfies every constraint.
struct NamedPoint {
  std::string name;
  Params params;
  std::string json_path;  // "/points/wmma_naive"
};

struct Space {
  std::string file;  // how error messages name the file (the path as given to load_space)
  std::string family;
  std::string description;
  std::optional<std::string> arch;    // default target, e.g. "sm_86" (checked with Arch::parse)
  std::vector<ProblemKind> problems;  // the kinds it covers, in file order; empty: any its family computes
  std::vector<Shape> shapes;          // at least one
  std::vector<Parameter> parameters;  // in declaration order, which is the enumeration order
  std::vector<Constant> constants;
  std::vector<Derived> derived;  // in declaration order, which is their evaluation order
  std::vector<Constraint> constraints;
  std::vector<NamedPoint> points;  // in declaration order
  JsonLocator locations;           // where each value of the file is

  // The names expressions see, in evaluation-environment slot order: parameters, constants, derived.
  std::vector<Symbol> symbols() const;

  const Parameter* find_parameter(std::string_view name) const;
  const NamedPoint* find_point(std::string_view name) const;
  // Why the space is not meant for `kind` (naming the kinds it lists), or nullopt when it is.
  std::optional<std::string> refuses(const ProblemKind& kind) const;

  // An error at the value at `json_path` (or its nearest existing ancestor): "file:line:column: at path: message".
  SpaceError error_at(std::string json_path, std::string message) const;
  // The same, but at the key of an object member (where its name is written), when it has one.
  SpaceError error_at_key(std::string json_path, std::string message) const;
};

// Reads and validates a space file. Throws SpaceError for an unreadable file and for every problem in it.
Space load_space(const std::filesystem::path& path);

// Validates a space given as text; `file_label` names it in errors.
Space parse_space(std::string_view text, std::string file_label);

}  // namespace mpgemm
