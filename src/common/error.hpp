#pragma once
// One error type per layer, each carrying the context a user needs to act on it. Library code throws these and
// never calls exit(); the executables catch them at the top and map them to exit codes (2 for bad input).
#include <stdexcept>
#include <string>

namespace mpgemm {

// Base of every error mpgemm throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A search-space file is malformed. what() is one line: "file:line:column: at /json/path: message", or
// "file: message" when the file could not be read at all (line 0: there is no position to point at).
class SpaceError : public Error {
 public:
  SpaceError(std::string file, int line, int column, std::string json_path, std::string message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string json_path_;
  std::string message_;
};

// A constraint or derived expression does not parse, names an unknown parameter, or fails to evaluate
// (division by zero). `offset` is the 0-based character offset inside the expression text.
class ExprError : public Error {
 public:
  ExprError(std::string message, std::size_t offset);
  std::size_t offset() const { return offset_; }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
  std::size_t offset_;
};

// An NVRTC call failed outside of a compile that simply did not succeed (those are results, not errors).
class NvrtcError : public Error {
 public:
  NvrtcError(std::string call, int code, std::string detail);
  int code() const { return code_; }

 private:
  int code_;
};

// A CUDA runtime or driver call failed. `code` is the cudaError_t / CUresult value.
class CudaError : public Error {
 public:
  CudaError(std::string call, int code, std::string detail);
  int code() const { return code_; }

 private:
  int code_;
};

// A cuBLAS call failed. `status` is the cublasStatus_t value.
class CublasError : public Error {
 public:
  CublasError(std::string call, int status);
  int status() const { return status_; }

 private:
  int status_;
};

// The results database refused or failed an operation. `code` is the SQLite (extended) result code.
class StoreError : public Error {
 public:
  StoreError(std::string path, int code, std::string detail);
  int code() const { return code_; }

 private:
  int code_;
};

// The command line is wrong (unknown flag, bad value). Executables print it with a hint to --help, exit 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// No usable CUDA device or driver on this machine.
class NoDeviceError : public Error {
 public:
  using Error::Error;
};

}  // namespace mpgemm
