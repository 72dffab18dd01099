#include "compile/includes.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "codegen/kernel_sources.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

struct Directive {
  bool angle = false;  // <x> rather than "x"
  std::string name;
};

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// The #include directives of `text`, in order, whatever #if surrounds them. Computed includes
// (#include MACRO) are skipped: they cannot be resolved without preprocessing.
std::vector<Directive> scan_includes(std::string_view text) {
  std::vector<Directive> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    std::size_t i = 0;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size() || line[i] != '#') continue;
    ++i;
    while (i < line.size() && is_space(line[i])) ++i;
    if (line.substr(i, 7) != "include") continue;
    i += 7;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size() || (line[i] != '"' && line[i] != '<')) continue;  // #include_next, #include MACRO
    const char close = line[i] == '"' ? '"' : '>';
    const std::size_t close_at = line.find(close, i + 1);
    if (close_at == std::string_view::npos || close_at == i + 1) continue;
    out.push_back({close == '>', std::string(line.substr(i + 1, close_at - i - 1))});
  }
  return out;
}

// A header met while walking a translation unit: an embedded kernels/ file or a file on disk.
struct Header {
  std::uint64_t content_hash = 0;
  std::vector<Directive> includes;
  std::string dir;  // the directory a file's own "x" includes start from; empty for embedded files
};

constexpr std::string_view kEmbedded = "embedded:";

// Per-process caches, shared by the compile threads. One lock for all: a walk touches the caches at every step,
// and after the first walk over a toolkit every step is a lookup.
class IncludeCache {
 public:
  std::vector<IncludedHeader> walk(std::string_view source, const std::vector<std::string>& path) {
    std::lock_guard lock(mutex_);
    std::string unit_key = std::string(source);
    for (const auto& dir : path) unit_key.append("\n").append(dir);
    if (auto it = units_.find(unit_key); it != units_.end()) return it->second;

    std::vector<IncludedHeader> out;
    std::set<std::string> seen_ids;    // files reached, whatever they were called
    std::set<std::string> seen_names;  // headers found nowhere, by name
    visit(scan_includes(source), "", path, out, seen_ids, seen_names);
    units_.emplace(std::move(unit_key), out);
    return out;
  }

  // The headers the source and the embedded files it reaches include that resolve nowhere, each once.
  std::vector<std::string> missing(std::string_view source, const std::vector<std::string>& path) {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    std::set<std::string> seen;
    std::vector<std::pair<std::vector<Directive>, std::string>> todo{{scan_includes(source), ""}};
    while (!todo.empty()) {
      auto [includes, from_dir] = std::move(todo.back());
      todo.pop_back();
      for (const auto& d : includes) {
        const std::optional<std::string> id = resolve(d, from_dir, path);
        if (!id) {
          if (std::find(out.begin(), out.end(), d.name) == out.end()) out.push_back(d.name);
        } else if (id->starts_with(kEmbedded) && seen.insert(*id).second) {
          const Header& h = header(*id);
          todo.emplace_back(h.includes, h.dir);
        }
      }
    }
    return out;
  }

 private:
  void visit(const std::vector<Directive>& includes, const std::string& from_dir, const std::vector<std::string>& path,
             std::vector<IncludedHeader>& out, std::set<std::string>& seen_ids, std::set<std::string>& seen_names) {
    for (const auto& d : includes) {
      const std::optional<std::string> id = resolve(d, from_dir, path);
      if (!id) {
        if (seen_names.insert((d.angle ? "<" : "\"") + d.name).second) out.push_back({d.name, std::nullopt});
        continue;
      }
      if (!seen_ids.insert(*id).second) continue;
      const Header& h = header(*id);
      out.push_back({d.name, h.content_hash});
      visit(h.includes, h.dir, path, out, seen_ids, seen_names);
    }
  }

  // Where NVRTC would find the header: "x" next to the including file, then among the embedded files, then on the
  // include path; <x> on the include path, then among the embedded files.
  std::optional<std::string> resolve(const Directive& d, const std::string& from_dir,
                                     const std::vector<std::string>& path) {
    std::string key = (d.angle ? "<" : "\"") + d.name + "\n" + from_dir;
    for (const auto& dir : path) key.append("\n").append(dir);
    if (auto it = resolved_.find(key); it != resolved_.end()) return it->second;

    auto embedded = [&]() -> std::optional<std::string> {
      for (const auto& file : kernel_sources())
        if (file.name == d.name) return std::string(kEmbedded) + d.name;
      return std::nullopt;
    };
    auto on_disk = [&](const std::string& dir) -> std::optional<std::string> {
      std::error_code ec;
      const fs::path p = (fs::path(dir) / d.name).lexically_normal();
      if (fs::is_regular_file(p, ec)) return p.string();
      return std::nullopt;
    };
    std::optional<std::string> found;
    if (!d.angle && !from_dir.empty()) found = on_disk(from_dir);
    if (!found && !d.angle) found = embedded();
    for (std::size_t i = 0; !found && i < path.size(); ++i) found = on_disk(path[i]);
    if (!found && d.angle) found = embedded();
    resolved_.emplace(std::move(key), found);
    return found;
  }

  const Header& header(const std::string& id) {
    if (auto it = headers_.find(id); it != headers_.end()) return it->second;
    Header h;
    std::string text;
    if (id.starts_with(kEmbedded)) {
      text = std::string(kernel_source(std::string_view(id).substr(kEmbedded.size())));
    } else {
      std::ifstream in(id, std::ios::binary);
      text.assign(std::istreambuf_iterator<char>(in), {});
      h.dir = fs::path(id).parent_path().string();
    }
    h.content_hash = fnv1a64(text);
    h.includes = scan_includes(text);
    return headers_.emplace(id, std::move(h)).first->second;
  }

  std::mutex mutex_;
  std::map<std::string, Header> headers_;                       // by id: "embedded:<name>" or a normalized path
  std::map<std::string, std::optional<std::string>> resolved_;  // (directive, from, path) -> id
  std::map<std::string, std::vector<IncludedHeader>> units_;    // (source, path) -> its headers
};

IncludeCache& cache() {
  static IncludeCache c;
  return c;
}

}  // namespace

std::vector<std::string> include_path(const KernelSpec& spec, const std::string& toolkit_include_dir) {
  std::vector<std::string> out{toolkit_include_dir};
  for (const auto& dir : spec.include_dirs)
    out.push_back(fs::path(dir).is_absolute() ? dir : (fs::path(toolkit_include_dir) / dir).string());
  return out;
}

std::vector<IncludedHeader> included_headers(std::string_view source, const std::vector<std::string>& include_path) {
  return cache().walk(source, include_path);
}

std::vector<std::string> missing_headers(std::string_view source, const std::vector<std::string>& include_path) {
  return cache().missing(source, include_path);
}

void hash_translation_unit(Hasher& h, const KernelSpec& spec, const std::string& toolkit_include_dir) {
  h.add(spec.source);
  for (const auto& header : included_headers(spec.source, include_path(spec, toolkit_include_dir))) {
    h.add(header.name);
    h.add(header.content_hash ? fmt::format("{:016x}", *header.content_hash) : std::string("not found"));
  }
  h.add(spec.name_expression);
}

}  // namespace mpgemm
