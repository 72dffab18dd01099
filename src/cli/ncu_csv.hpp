#pragma once
// Nsight Compute's CSV output (ncu --csv, the default "details" page): one row per metric per profiled kernel,
// with columns "ID", "Kernel Name", "Device", "Metric Name", "Metric Unit", "Metric Value" among others.
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace mpgemm::cli {

// One RFC 4180 line into fields (quotes removed, "" unescaped).
std::vector<std::string> split_csv_line(std::string_view line);

// The metric that names the device ("NVIDIA H200"): ncu's "Device" column is only its ordinal.
inline constexpr std::string_view kDeviceNameMetric = "device__attribute_display_name";

// The kernels of an ncu CSV, in file order, each with its metrics (label and shape left for the caller), and the
// device's name when the CSV has kDeviceNameMetric (else none).
// Lines before the header (ncu's "==PROF==" notes, the program's own output) are skipped. Numbers may carry
// thousands separators ("15,234,567"); non-numeric values ("n/a") are skipped. Throws mpgemm::Error when there
// is no header row.
std::vector<ProfileRecord> parse_ncu_csv(std::string_view text);

}  // namespace mpgemm::cli
