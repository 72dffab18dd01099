#include "common/error.hpp"

#include <fmt/format.h>

namespace mpgemm {

SpaceError::SpaceError(std::string file, int line, int column, std::string json_path, std::string message)
    : Error(line > 0
                ? fmt::format("{}:{}:{}: at {}: {}", file, line, column, json_path.empty() ? "/" : json_path, message)
                : fmt::format("{}: {}", file, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      json_path_(std::move(json_path)),
      message_(std::move(message)) {}

ExprError::ExprError(std::string message, std::size_t offset)
    : Error(fmt::format("{} (at character {})", message, offset + 1)), message_(std::move(message)), offset_(offset) {}

NvrtcError::NvrtcError(std::string call, int code, std::string detail)
    : Error(fmt::format("NVRTC {} failed (code {}): {}", call, code, detail)), code_(code) {}

CudaError::CudaError(std::string call, int code, std::string detail)
    : Error(fmt::format("CUDA {} failed (code {}): {}", call, code, detail)), code_(code) {}

CublasError::CublasError(std::string call, int status)
    : Error(fmt::format("cuBLAS {} failed (status {})", call, status)), status_(status) {}

StoreError::StoreError(std::string path, int code, std::string detail)
    : Error(fmt::format("database {}: {} (SQLite code {})", path, detail, code)), code_(code) {}

}  // namespace mpgemm
