#pragma once
namespace mpgemm {
const char* tool_version();  // the project version, e.g. "0.1.0"
const char* git_sha();       // short sha of the build's checkout, "-dirty" when it had local changes; "unknown"
}  // namespace mpgemm
