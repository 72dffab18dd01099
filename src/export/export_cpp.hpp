#pragma once
// mpgemm-export --format cpp: one self-contained C++ header that instantiates each winner of an export table from
// the kernel templates in kernels/ (explicit instantiations of the family's name expression, each inside an #if on
// the arch it was compiled for), with a table shape -> kernel and launch geometry and a host launcher that builds
// the Hopper family's TMA tensor maps through the runtime (cudaGetDriverEntryPointByVersion: link cudart only).
#include <cstdint>
#include <map>
#include <string>

#include "export/export_table.hpp"

namespace mpgemm {

// The header's text. `sm_counts` gives the multiprocessors of each device the entries were measured on, for the
// persistent kernels' grids (a device not in it sizes them as unlimited; the launcher lowers them to what is
// co-resident either way). Throws ExportError for an entry whose family is unknown or cannot be launched from
// the header, or whose params the family cannot build.
std::string export_cpp_header(const ExportTable& table, const std::map<std::string, std::int64_t>& sm_counts = {});

}  // namespace mpgemm
