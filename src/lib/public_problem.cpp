#include "lib/public_problem.hpp"

#include <fmt/format.h>

namespace mpgemm {

namespace {

std::optional<ElementType> element(Problem::Type t) {
  switch (t) {
    case Problem::Type::fp16:
      return ElementType::fp16;
    case Problem::Type::bf16:
      return ElementType::bf16;
    case Problem::Type::fp32:
      return ElementType::fp32;
  }
  return std::nullopt;
}

Problem::Type type_of(ElementType t) {
  return t == ElementType::fp16   ? Problem::Type::fp16
         : t == ElementType::bf16 ? Problem::Type::bf16
                                  : Problem::Type::fp32;
}

}  // namespace

namespace lib {

ProblemKind to_kind(const Problem& p) {
  const auto bad = [](const char* what) {
    throw GemmError(GemmError::Kind::bad_argument, fmt::format("libmpgemm: the Problem's {}", what));
  };
  ProblemKind k;
  if (p.a != Problem::ALayout::mk && p.a != Problem::ALayout::km) bad("A layout is neither mk nor km");
  if (p.b != Problem::BLayout::kn && p.b != Problem::BLayout::nk) bad("B layout is neither kn nor nk");
  const auto in = element(p.in);
  const auto out = element(p.out);
  if (!in || *in == ElementType::fp32) bad("input type is neither fp16 nor bf16");
  if (!out) bad("output type is none of fp32, fp16, bf16");
  k.a = p.a == Problem::ALayout::mk ? ALayout::mk : ALayout::km;
  k.b = p.b == Problem::BLayout::kn ? BLayout::kn : BLayout::nk;
  k.in = *in;
  k.out = *out;
  k.beta = p.beta;
  return k;
}

Problem to_public(const ProblemKind& k) {
  Problem p;
  p.a = k.a == ALayout::mk ? Problem::ALayout::mk : Problem::ALayout::km;
  p.b = k.b == BLayout::kn ? Problem::BLayout::kn : Problem::BLayout::nk;
  p.in = type_of(k.in);
  p.out = type_of(k.out);
  p.beta = k.beta;
  return p;
}

}  // namespace lib

bool operator==(const Problem& x, const Problem& y) {
  return x.a == y.a && x.b == y.b && x.in == y.in && x.out == y.out && x.beta == y.beta;
}

std::string to_string(const Problem& problem) {
  return lib::to_kind(problem).name();
}

Problem parse_problem(const std::string& name) {
  std::string why;
  const auto kind = ProblemKind::parse(name, &why);
  if (!kind) throw GemmError(GemmError::Kind::bad_argument, "libmpgemm: " + why);
  if (kind->has_bias())
    throw GemmError(GemmError::Kind::bad_argument,
                    fmt::format("libmpgemm: {} fuses the {} epilogue, which the library does not take yet (a Problem "
                                "has no bias): its winners run from the export's launch_problem",
                                kind->name(), to_string(kind->epilogue)));
  return lib::to_public(*kind);
}

}  // namespace mpgemm
