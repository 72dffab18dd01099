#pragma once
// Compilations kept between runs, keyed by the compile key (compile_key() in compile/nvrtc_compile.hpp: the
// source with every header it includes, the NVRTC options, the NVRTC version and the arch): equal keys
// compile to the same cubin, so a rerun, a resume after kill -9, mpgemm-run and a second tuner on the same
// database take it from here instead of running NVRTC again.
//
// Beside the database, not in it: "<db>.cubins/" holds per key "<key>.cubin" (the cubin itself, as cuobjdump
// reads it) and "<key>.json" (the rest of the CompileResult: status, arch, lowered name, ptxas report and
// warnings, log, compile time, and the cubin's size and hash). A cubin is tens to hundreds of KiB, so a
// thousand-config space would add 100+ MiB to a database that is copied, merged and committed as results; a
// cache folder can be deleted at any time and costs only recompiles.
//
// Writes are atomic: each file is written under a temporary name and renamed into place, the cubin before the
// json, so an entry exists once its json does. A read checks the json against its own checksum and the key, and
// the cubin against the size and hash the json names, so no damaged byte maps a key to another kernel's cubin or
// to other ptxas figures. Files are read within bounds (a json within 64 MiB and 64 levels of nesting, a cubin
// only when its size is the json's); an entry that does not match (truncated, corrupt, half-written by a crash
// before the data reached the disk, a FIFO or a huge file under its name) is a miss, told once per file on
// stderr ("mpgemm: warning: cubin cache entry F is damaged (why): ignored, compiled again"), and is replaced by
// the next compile. An entry of another format is a miss without a warning. Compile failures of the source
// (NVRTC_ERROR_COMPILATION: the config does not compile) are entries too, without a cubin; failures of the
// machinery (NvrtcError) never are.
//
// A cache that cannot be written (read-only folder, full disk) is no error: the entry is not kept and the run
// goes on. Thread-safe: every call opens its own files.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "common/file_lock.hpp"
#include "common/records.hpp"

namespace mpgemm {

class CubinCache {
 public:
  // "<db>.cubins", the cache of the results database `db`.
  static std::filesystem::path beside(const std::filesystem::path& db);

  // The folder is created on the first store(). Throws InputRefused (common/refusal.hpp) when require_trusted
  // does.
  explicit CubinCache(std::filesystem::path dir);

  // A cache is not a trust boundary: whoever can write an entry can write its checksum too, and the cubin is run.
  // So a folder that others can write (group or world write permission, or owned by another user) or that is a
  // symbolic link (its entries would be written and read elsewhere) is refused, naming it and why; a folder not
  // there yet is fine (it is created by this user). Throws InputRefused.
  static void require_trusted(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }

  // The entry of `key` when present and whole, with dynamic_shared_bytes -1 (the coordinator's figure, not
  // the compiler's); nullopt when absent, of another format, or damaged (told on stderr). Never throws for what
  // the folder holds.
  std::optional<CompileResult> load(const std::string& key) const;
  // Whether an entry of `key` exists, without reading it (a damaged one counts; load() tells).
  bool contains(const std::string& key) const;
  // Keeps `result` under result.compile_key, replacing what was there. False when it could not be written.
  bool store(const CompileResult& result) const;
  // Copies every whole entry of `from` this cache lacks (mpgemm-query merge); damaged ones are left behind.
  // Returns how many were copied.
  std::size_t copy_missing_from(const CubinCache& from) const;

  // A claim on one key between processes and threads, held while the key is compiled: an OFD lock on one
  // byte of "<dir>/locks" (as tune/claims.hpp does for measurements), released when the Claim is destroyed or
  // its process dies. Where locks are unavailable every claim is granted (two processes may then compile a
  // key twice; the entry stays one).
  class Claim {
   public:
    explicit operator bool() const { return held_; }
    Claim(Claim&&) noexcept = default;
    Claim& operator=(Claim&&) = delete;
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    ~Claim();

   private:
    friend class CubinCache;
    Claim(LockFile file, off_t at, bool held, bool locked)
        : file_(std::move(file)), at_(at), held_(held), locked_(locked) {}
    LockFile file_;
    off_t at_;
    bool held_;    // granted (locked, or locks unavailable)
    bool locked_;  // a lock to release
  };
  // The claim on `key`; without `wait`, an empty one while another holds it; with `wait`, polls until it is
  // free.
  Claim claim(const std::string& key, bool wait) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace mpgemm
