#include "lib/errors.hpp"

#include <exception>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm::lib {

void rethrow_as(GemmError::Kind kind, std::string_view doing) {
  try {
    throw;
  } catch (const GemmError&) {
    throw;
  } catch (const NoDeviceError& e) {
    throw GemmError(GemmError::Kind::no_device, fmt::format("{}: {}", doing, e.what()));
  } catch (const CudaError& e) {
    throw GemmError(kind, fmt::format("{}: {}", doing, e.what()), e.code());
  } catch (const CublasError& e) {
    throw GemmError(kind, fmt::format("{}: {}", doing, e.what()), e.status());
  } catch (const NvrtcError& e) {
    throw GemmError(kind, fmt::format("{}: {}", doing, e.what()), e.code());
  } catch (const std::exception& e) {
    throw GemmError(kind, fmt::format("{}: {}", doing, e.what()));
  }
}

}  // namespace mpgemm::lib
