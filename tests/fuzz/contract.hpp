#pragma once
// What every fuzz contract (fuzz/*_check.hpp) shares: how errors name the input, and the name of an exception's
// type for the report of a broken contract.
#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>

namespace mpgemm::fuzz {

inline constexpr std::string_view kLabel = "input.json";  // how errors name the input

// "mpgemm::Error" for what typeid calls "N6mpgemm5ErrorE".
inline std::string type_name(const std::exception& e) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 ? name.get() : typeid(e).name();
}

}  // namespace mpgemm::fuzz
