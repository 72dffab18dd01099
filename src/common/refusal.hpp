#pragma once
// A refusal of what the user handed a command, not a failure of the work: an output path that is one of the
// command's inputs (common/writable.hpp), SQL that would write or attach (Store::query_sql_rows). The executables
// print it as one line and exit 2 (src/cli/guarded_main.hpp), like the refusals defined before it: UsageError and
// SpaceError (common/error.hpp), InputFileError (common/bounded_input.hpp).
#include "common/error.hpp"

namespace mpgemm {

class InputRefused : public Error {
 public:
  using Error::Error;
};

}  // namespace mpgemm
