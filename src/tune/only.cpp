#include "tune/only.hpp"

#include <string_view>

namespace mpgemm {

bool only_selects(const std::string& name, const std::optional<std::string>& alias,
                  const std::vector<std::string>& only) {
  for (const std::string& entry : only) {
    const std::string_view o = entry;
    if (o.starts_with('=')) {
      const std::string_view whole = o.substr(1);
      if (name == whole || (alias && *alias == whole)) return true;
    } else if (name.find(o) != std::string::npos || (alias && alias->find(o) != std::string::npos)) {
      return true;
    }
  }
  return false;
}

}  // namespace mpgemm
