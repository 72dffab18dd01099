#pragma once
// The resource report ptxas writes into the NVRTC program log under --ptxas-options=-v. Pure text parsing.
//
// NVRTC 13.0 writes, per function (sm_86 also prints "Compiling entry function '<name>' for 'sm_86'" first):
//   ptxas info    : Function properties for <mangled name>
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 72 registers, used 1 barriers, 4000 bytes smem, 388 bytes cmem[0]
// "bytes smem" is absent when the function has no static shared memory (dynamic shared memory is never counted).
//
// Diagnostics that mean lost speed are coded lines of the same report, before the function's properties, e.g.
//   ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register
//   count at entry.
// (one line in the log). tests/data/ptxas/ holds whole logs of each kind, captured from NVRTC 13.0.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/records.hpp"

namespace mpgemm {

struct PtxasFunctionReport {
  std::string name;            // mangled name
  int registers = -1;          // per thread; -1 when the report has no "Used" line for this function
  int barriers = -1;           // named barriers used
  int shared_bytes = -1;       // static shared memory per block (bytes); 0 when a "Used" line omits it
  int stack_bytes = -1;        // stack frame per thread (bytes)
  int spill_store_bytes = -1;  // bytes
  int spill_load_bytes = -1;   // bytes
};

// Every function the log reports, in order of first appearance.
std::vector<PtxasFunctionReport> parse_ptxas_report(std::string_view log);

// The function named `name`; when there is none (or name is empty), the first one with a "Used" line.
std::optional<PtxasFunctionReport> find_function_report(const std::vector<PtxasFunctionReport>& reports,
                                                        std::string_view name);

// ptxas's performance diagnostics in the log, in log order, one per line (ptxas repeats a diagnostic per
// place: five injected warpgroup.arrives are five entries). Classified by code, from the table of codes
// NVRTC 13.0 was seen to print (ptxas_report.cpp); a code the table lacks, as a newer ptxas may print, is
// classified by the diagnostic's fixed wording instead, so it is still recorded. Coded lines that are not
// about speed (errors, "Overriding maximum register limit") are not returned. Spills are not diagnostics: see
// PtxasFunctionReport.
std::vector<PtxasWarning> parse_ptxas_warnings(std::string_view log);

}  // namespace mpgemm
