#include "compile/cubin_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/bounded_input.hpp"
#include "common/hash.hpp"
#include "common/refusal.hpp"

namespace mpgemm {

namespace {

namespace fs = std::filesystem;

// Bumped when the entry format changes: older entries are then misses. 2: the json carries its own checksum.
constexpr int kEntryFormat = 2;

// An entry's json is a few KiB (NVRTC's log is the largest part); a cubin tens to hundreds of KiB. Past these a
// file is not an entry this cache wrote, and is not read further.
constexpr std::uintmax_t kMaxEntryJsonBytes = kMaxInputFileBytes;
constexpr std::uintmax_t kMaxCubinBytes = 256ull << 20;

std::string cubin_hash(const std::vector<char>& cubin) {
  return fmt::format("{:016x}", fnv1a64(std::string_view(cubin.data(), cubin.size())));
}

// The checksum of an entry's json without its "entry_fnv1a64" member: nlohmann::json keeps members sorted and
// dumps a number as it reads back, so the writer's value and the reader's parse give the same text.
std::string entry_hash(const nlohmann::json& without_checksum) {
  return fmt::format("{:016x}",
                     fnv1a64(without_checksum.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

// A damaged entry is a miss (the next compile replaces it); it is told once per file and process on stderr, so
// a user learns why a cache that should hold a kernel compiled it again. The cache is only a cache: it never
// refuses a run.
void warn_damaged(const fs::path& file, std::string_view why) {
  static std::mutex mutex;
  static std::set<std::string> told;
  std::lock_guard lock(mutex);
  if (!told.insert(file.string()).second) return;
  std::fputs(fmt::format("mpgemm: warning: cubin cache entry {} is damaged ({}): ignored, compiled again\n",
                         file.string(), text_excerpt(why, 200))
                 .c_str(),
             stderr);
}

// The whole of an entry's file within `max_bytes`; nullopt (told) when it is not a plain file, cannot be read or
// is larger, so a FIFO, /dev/zero or a huge file under the entry's name costs nothing.
std::optional<std::string> read_entry_file(const fs::path& path, std::uintmax_t max_bytes) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    warn_damaged(path, "not a plain file");
    return std::nullopt;
  }
  try {
    return read_bounded_file(path, "cache entry", max_bytes);
  } catch (const InputFileError& e) {
    warn_damaged(path, e.why());
    return std::nullopt;
  }
}

// Writes `bytes` to a temporary file in `path`'s folder and renames it to `path`: readers see the old file or
// the whole new one. No fsync: an entry cut short by a power loss fails its size or hash check and is
// recompiled.
bool write_atomically(const fs::path& path, std::string_view bytes) {
  std::string temp = (path.parent_path() / (".tmp-" + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fchmod(fd, 0644) == 0;
  for (std::size_t done = 0; ok && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  ok = ::close(fd) == 0 && ok;
  if (ok) ok = ::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(temp.c_str());
  return ok;
}

nlohmann::json warnings_json(const std::vector<PtxasWarning>& warnings) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& w : warnings)
    array.push_back({{"code", w.code}, {"kind", to_string(w.kind)}, {"message", w.message}});
  return array;
}

std::optional<std::vector<PtxasWarning>> warnings_from(const nlohmann::json& array) {
  if (!array.is_array()) return std::nullopt;
  std::vector<PtxasWarning> out;
  for (const auto& w : array) {
    const auto kind = ptxas_warning_kind_from_string(w.at("kind").get<std::string>());
    if (!kind) return std::nullopt;
    out.push_back(PtxasWarning{w.at("code").get<std::string>(), *kind, w.at("message").get<std::string>()});
  }
  return out;
}

std::string metadata(const CompileResult& r) {
  nlohmann::json j = {
      {"format", kEntryFormat},
      {"compile_key", r.compile_key},
      {"status", to_string(r.status)},
      {"arch", r.arch.str()},
      {"lowered_name", r.lowered_name},
      {"registers", r.registers},
      {"shared_bytes", r.shared_bytes},
      {"spill_store_bytes", r.spill_store_bytes},
      {"spill_load_bytes", r.spill_load_bytes},
      {"stack_bytes", r.stack_bytes},
      {"warnings", warnings_json(r.warnings)},
      {"compile_ms", r.compile_ms},
      {"log", r.log},
      {"cubin_bytes", r.cubin.size()},
      {"cubin_fnv1a64", cubin_hash(r.cubin)},
  };
  // The cubin's hash binds it to this json, the checksum binds the json's every byte (its key, its lowered name,
  // its ptxas figures) to itself: one damaged byte anywhere is a miss, never another kernel or another figure.
  j["entry_fnv1a64"] = entry_hash(j);
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// An entry's json: the CompileResult without its cubin, and what the cubin file must be.
struct Metadata {
  CompileResult result;
  std::size_t cubin_bytes = 0;
  std::string cubin_hash;
};

// The entry of `key` that `text` holds. nullopt with `why` empty when it is an entry of another format (a miss
// to compile again, not damage); with `why` set when it is damaged.
std::optional<Metadata> from_metadata(const std::string& text, const std::string& key, std::string* why) {
  nlohmann::json j;
  try {
    j = parse_json_bounded(text);  // nesting bounded, like every JSON mpgemm reads
  } catch (const nlohmann::json::exception& e) {
    *why = fmt::format("not JSON: {}", e.what());
    return std::nullopt;
  }
  if (!j.is_object()) {
    *why = "not a JSON object";
    return std::nullopt;
  }
  try {
    const auto format = j.find("format");
    if (format == j.end() || !format->is_number_integer()) {
      *why = "no format";
      return std::nullopt;
    }
    if (format->get<std::int64_t>() != kEntryFormat) return std::nullopt;  // written by another mpgemm
    const std::string checksum = j.at("entry_fnv1a64").get<std::string>();
    j.erase("entry_fnv1a64");
    if (entry_hash(j) != checksum) {
      *why = "its checksum does not match its content";
      return std::nullopt;
    }
    if (j.at("compile_key").get<std::string>() != key) {
      *why = fmt::format("it is the entry of key {}", text_excerpt(j.at("compile_key").get<std::string>(), 40));
      return std::nullopt;
    }
    const auto status = status_from_string(j.at("status").get<std::string>());
    const auto arch = Arch::parse(j.at("arch").get<std::string>());
    auto warnings = warnings_from(j.at("warnings"));
    if (!status || (*status != Status::ok && *status != Status::compile_failed) || !arch || !warnings) {
      *why = "a status, arch or warning this mpgemm does not know";
      return std::nullopt;
    }
    Metadata m;
    CompileResult& r = m.result;
    r.status = *status;
    r.arch = *arch;
    r.compile_key = key;
    r.lowered_name = j.at("lowered_name").get<std::string>();
    r.registers = j.at("registers").get<int>();
    r.shared_bytes = j.at("shared_bytes").get<int>();
    r.spill_store_bytes = j.at("spill_store_bytes").get<int>();
    r.spill_load_bytes = j.at("spill_load_bytes").get<int>();
    r.stack_bytes = j.at("stack_bytes").get<int>();
    r.warnings = std::move(*warnings);
    r.compile_ms = j.at("compile_ms").get<double>();
    r.log = j.at("log").get<std::string>();
    m.cubin_bytes = j.at("cubin_bytes").get<std::size_t>();
    m.cubin_hash = j.at("cubin_fnv1a64").get<std::string>();
    // An ok compilation has a cubin, a failed one none.
    if ((r.status == Status::ok) != (m.cubin_bytes > 0) || m.cubin_bytes > kMaxCubinBytes) {
      *why = fmt::format("a {} entry of {} cubin bytes", to_string(r.status), m.cubin_bytes);
      return std::nullopt;
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    *why = e.what();
    return std::nullopt;
  }
}

}  // namespace

fs::path CubinCache::beside(const fs::path& db) {
  return db.string() + ".cubins";
}

void CubinCache::require_trusted(const fs::path& dir) {
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return;  // not there (yet): created by this user on the first store
  const auto refuse = [&](const std::string& why) {
    throw InputRefused(
        fmt::format("cubin cache {}: {}; a cache is trusted code (its cubins are run), so it must be a "
                    "folder only you can write (chmod go-w), or give --cubin-cache another folder",
                    dir.string(), why));
  };
  if (S_ISLNK(st.st_mode)) refuse("is a symbolic link");
  if (!S_ISDIR(st.st_mode)) return;  // not a folder: a store() fails and is told, a load() is a miss
  if (st.st_uid != geteuid()) refuse(fmt::format("is owned by another user (uid {})", st.st_uid));
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    refuse(fmt::format("others can write it (mode {:o})", st.st_mode & 07777));
}

CubinCache::CubinCache(fs::path dir) : dir_(std::move(dir)) {
  require_trusted(dir_);
}

bool CubinCache::contains(const std::string& key) const {
  std::error_code ec;
  return fs::is_regular_file(dir_ / (key + ".json"), ec);
}

std::optional<CompileResult> CubinCache::load(const std::string& key) const {
  const fs::path json = dir_ / (key + ".json");
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(json, ec))) return std::nullopt;  // never compiled here: a miss, no damage
  const auto text = read_entry_file(json, kMaxEntryJsonBytes);
  if (!text) return std::nullopt;
  std::string why;
  auto m = from_metadata(*text, key, &why);
  if (!m) {
    if (!why.empty()) warn_damaged(json, why);
    return std::nullopt;
  }
  if (m->cubin_bytes > 0) {
    const fs::path file = dir_ / (key + ".cubin");
    const std::uintmax_t size = fs::file_size(file, ec);  // before reading: a huge file is never read
    if (ec) {
      warn_damaged(file, "missing, or not a plain file");
      return std::nullopt;
    }
    if (size != m->cubin_bytes) {
      warn_damaged(file, fmt::format("{} bytes where its json names {}", size, m->cubin_bytes));
      return std::nullopt;
    }
    const auto cubin = read_entry_file(file, m->cubin_bytes);
    if (!cubin) return std::nullopt;
    m->result.cubin.assign(cubin->begin(), cubin->end());
    if (cubin_hash(m->result.cubin) != m->cubin_hash) {
      warn_damaged(file, "its hash is not the one its json names");
      return std::nullopt;
    }
  }
  return std::move(m->result);
}

bool CubinCache::store(const CompileResult& result) const {
  if (result.compile_key.empty()) return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return false;
  const fs::path json = dir_ / (result.compile_key + ".json");
  if (result.status == Status::ok && !write_atomically(dir_ / (result.compile_key + ".cubin"),
                                                       std::string_view(result.cubin.data(), result.cubin.size())))
    return false;
  return write_atomically(json, metadata(result));
}

std::size_t CubinCache::copy_missing_from(const CubinCache& from) const {
  std::size_t copied = 0;
  std::error_code ec;
  for (fs::directory_iterator it(from.dir_, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".json") continue;
    const std::string key = it->path().stem().string();
    if (contains(key)) continue;
    if (auto entry = from.load(key); entry && store(*entry)) ++copied;
  }
  return copied;
}

CubinCache::Claim::~Claim() {
  if (locked_) file_.unlock(at_);
}

CubinCache::Claim CubinCache::claim(const std::string& key, bool wait) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  LockFile file(dir_ / "locks");
  const off_t at = LockFile::byte_of(key);
  for (;;) {
    switch (file.try_lock(at)) {
      case LockFile::Outcome::locked:
        return Claim(std::move(file), at, true, true);
      case LockFile::Outcome::unavailable:
        return Claim(std::move(file), at, true, false);
      case LockFile::Outcome::busy:
        break;
    }
    if (!wait) return Claim(std::move(file), at, false, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace mpgemm
