#pragma once
// From a loaded space to the list of candidates to compile and measure: the named points first (in file order),
// then the enumerated configs (in enumeration order), each once. A config the family cannot build is a mistake in
// the space file, reported at its location, never a silent skip.
#include <vector>

#include "codegen/family.hpp"
#include "common/records.hpp"
#include "space/space.hpp"

namespace mpgemm {

// Throws SpaceError: a named point the family rejects (at the point), or an enumerated config the family rejects
// (at /constraints, naming the config and the family's reason: the constraints must encode the family's rules).
std::vector<Candidate> build_candidates(const Space& space, const Family& family);

}  // namespace mpgemm
