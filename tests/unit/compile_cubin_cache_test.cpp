// The cubin cache and the compile pool around it, without NVRTC: a stand-in compiler counts what it is asked
// to compile. Entries survive a new process, a damaged entry is a miss, an edited kernels/ header is a miss,
// concurrent pools compile each key once, and a failure of the machinery is retried and never kept as a
// config's outcome.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codegen/wgmma_family.hpp"
#include "codegen/wmma_family.hpp"
#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/hash.hpp"
#include "common/refusal.hpp"
#include "compile/compile_pool.hpp"
#include "compile/cubin_cache.hpp"
#include "compile/includes.hpp"
#include "support/run_command.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

KernelSpec spec(int i) {
  KernelSpec s;
  s.program_name = "k" + std::to_string(i) + ".cu";
  s.source = "__global__ void k" + std::to_string(i) + "() {}\n";
  s.name_expression = "k" + std::to_string(i);
  s.arch = Arch{8, 6, false};
  return s;
}

// No toolkit needed: the headers of these sources are none, and this directory holds nothing.
CompilePoolOptions pool_options(const CubinCache* cache, Compiler compiler) {
  CompilePoolOptions o;
  o.threads = 2;
  o.compile.cuda_include_dir = "/nonexistent-toolkit";
  o.cache = cache;
  o.retry_delay = std::chrono::milliseconds(1);
  o.compiler = std::move(compiler);
  return o;
}

// What NVRTC would give for `spec`: a cubin whose bytes name the source, or a compile error for sources that
// say so.
CompileResult fake_compile(const KernelSpec& s, const CompileOptions& options) {
  CompileResult r;
  r.arch = s.arch;
  r.compile_key = compile_key(s, options);
  r.compile_ms = 12.5;
  if (s.source.find("broken") != std::string::npos) {
    r.status = Status::compile_failed;
    r.log = "k.cu(1): error: identifier \"broken\" is undefined";
    return r;
  }
  r.status = Status::ok;
  const std::string bytes =
      "\x7f"
      "ELF cubin of " +
      s.source + std::string(300, '\xab');
  r.cubin.assign(bytes.begin(), bytes.end());
  r.lowered_name = "_Z2" + s.name_expression + "v";
  r.registers = 40;
  r.shared_bytes = 0;
  r.spill_store_bytes = r.spill_load_bytes = r.stack_bytes = 0;
  r.warnings = {PtxasWarning{"C7514", PtxasWarningKind::wgmma_serialized, "Potential Performance Loss: wgmma..."}};
  r.log = "ptxas info    : Used 40 registers";
  return r;
}

class CubinCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// A cache is trusted code: a folder others can write, or a symbolic link, is refused naming it, by the cache itself
// and by mpgemm-tune before it writes anything; one only its owner can write, or none yet, is fine.
TEST_F(CubinCacheTest, AFolderOthersCanWriteOrALinkIsRefused) {
  const fs::path open = dir_ / "open.cubins", link = dir_ / "link.cubins", own = dir_ / "own.cubins";
  fs::create_directories(open);
  fs::create_directories(own);
  fs::permissions(own, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  fs::permissions(open, fs::perms::all);
  fs::create_directory_symlink(own, link);
  const auto refusal = [](const fs::path& p) -> std::string {
    try {
      CubinCache c(p);
    } catch (const InputRefused& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal(open).find("cubin cache " + open.string() + ": others can write it (mode 777)"), std::string::npos)
      << refusal(open);
  EXPECT_NE(refusal(link).find("cubin cache " + link.string() + ": is a symbolic link"), std::string::npos)
      << refusal(link);
  fs::permissions(open, fs::perms::owner_all | fs::perms::group_all | fs::perms::others_read | fs::perms::others_exec);
  EXPECT_NE(refusal(open).find("others can write it (mode 775)"), std::string::npos) << refusal(open);
  EXPECT_EQ(refusal(own), "");
  EXPECT_EQ(refusal(dir_ / "not-yet.cubins"), "");

  fs::permissions(open, fs::perms::all);
  const auto tune =
      testing::run_command(fmt::format("{} {} --dry-run --db {} --cubin-cache {} 2>&1", testing::bin("mpgemm-tune"),
                                       testing::source("configs/sm86.json"), (dir_ / "r.db").string(), open.string()));
  EXPECT_EQ(tune.exit_code, 2) << tune.output;
  EXPECT_NE(tune.output.find("others can write it"), std::string::npos) << tune.output;
  EXPECT_FALSE(fs::exists(dir_ / "r.db"));
}

TEST_F(CubinCacheTest, AnEntryComesBackWhole) {
  const CubinCache cache(CubinCache::beside(dir_ / "results.db"));
  EXPECT_EQ(cache.dir(), dir_ / "results.db.cubins");
  const CompileResult r = fake_compile(spec(1), pool_options(nullptr, {}).compile);
  EXPECT_FALSE(cache.contains(r.compile_key));
  EXPECT_FALSE(cache.load(r.compile_key));
  ASSERT_TRUE(cache.store(r));
  EXPECT_TRUE(cache.contains(r.compile_key));
  EXPECT_TRUE(fs::is_regular_file(cache.dir() / (r.compile_key + ".cubin")));  // the cubin itself, for cuobjdump

  const auto back = CubinCache(cache.dir()).load(r.compile_key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, Status::ok);
  EXPECT_EQ(back->arch, r.arch);
  EXPECT_EQ(back->cubin, r.cubin);
  EXPECT_EQ(back->lowered_name, r.lowered_name);
  EXPECT_EQ(back->registers, 40);
  EXPECT_EQ(back->shared_bytes, 0);
  EXPECT_EQ(back->spill_store_bytes, 0);
  EXPECT_EQ(back->stack_bytes, 0);
  EXPECT_EQ(back->warnings, r.warnings);
  EXPECT_EQ(back->compile_ms, 12.5);
  EXPECT_EQ(back->log, r.log);
  EXPECT_EQ(back->compile_key, r.compile_key);
  EXPECT_EQ(back->dynamic_shared_bytes, -1);  // the coordinator's figure, not kept
  // Nothing half-written is left behind.
  for (const auto& e : fs::directory_iterator(cache.dir()))
    EXPECT_FALSE(e.path().filename().string().starts_with(".tmp-")) << e.path();
}

TEST_F(CubinCacheTest, ACompileErrorIsAnEntryWithoutACubin) {
  const CubinCache cache(dir_ / "c");
  KernelSpec s = spec(2);
  s.source = "broken";
  const CompileResult r = fake_compile(s, pool_options(nullptr, {}).compile);
  ASSERT_TRUE(cache.store(r));
  EXPECT_FALSE(fs::exists(cache.dir() / (r.compile_key + ".cubin")));
  const auto back = cache.load(r.compile_key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, Status::compile_failed);
  EXPECT_TRUE(back->cubin.empty());
  EXPECT_EQ(back->log, r.log);
}

TEST_F(CubinCacheTest, ADamagedEntryIsAMiss) {
  const CubinCache cache(dir_ / "c");
  const CompileResult r = fake_compile(spec(3), pool_options(nullptr, {}).compile);
  const fs::path cubin = cache.dir() / (r.compile_key + ".cubin");
  const fs::path json = cache.dir() / (r.compile_key + ".json");
  auto restore = [&] {
    ASSERT_TRUE(cache.store(r));
    ASSERT_TRUE(cache.load(r.compile_key));
  };

  restore();
  fs::resize_file(cubin, r.cubin.size() / 2);  // truncated
  EXPECT_FALSE(cache.load(r.compile_key));
  restore();
  {
    std::fstream f(cubin, std::ios::in | std::ios::out | std::ios::binary);  // one byte flipped, same size
    f.seekp(100);
    f.put('\x00');
  }
  EXPECT_FALSE(cache.load(r.compile_key));
  restore();
  fs::remove(cubin);  // a json without its cubin
  EXPECT_FALSE(cache.load(r.compile_key));
  restore();
  fs::resize_file(json, 20);  // json cut short
  EXPECT_FALSE(cache.load(r.compile_key));
  restore();
  // Another key's entry under this name.
  const CompileResult other = fake_compile(spec(4), pool_options(nullptr, {}).compile);
  ASSERT_TRUE(cache.store(other));
  fs::copy_file(cache.dir() / (other.compile_key + ".json"), json, fs::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.load(r.compile_key));
}

// The warning lines load() prints on stderr while `body` runs.
template <class Body>
std::vector<std::string> warnings_of(Body&& body) {
  ::testing::internal::CaptureStderr();
  body();
  std::istringstream text(::testing::internal::GetCapturedStderr());
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  return lines;
}

// One damaged byte in the json's figures (registers 40 -> 41) was read as the entry: the run recorded 41
// registers for a kernel ptxas gave 40. The json's checksum makes it a miss, told once on stderr.
TEST_F(CubinCacheTest, ADamagedByteInTheJsonIsAMissNotAnotherFigure) {
  const CubinCache cache(dir_ / "c");
  const CompileResult r = fake_compile(spec(8), pool_options(nullptr, {}).compile);
  ASSERT_TRUE(cache.store(r));
  const fs::path json = cache.dir() / (r.compile_key + ".json");
  std::string text = testing::read_file(json);
  const std::size_t at = text.find("\"registers\": 40");
  ASSERT_NE(at, std::string::npos) << text;
  text[at + 14] = '1';
  std::ofstream(json, std::ios::binary | std::ios::trunc) << text;
  const auto lines = warnings_of([&] {
    EXPECT_FALSE(cache.load(r.compile_key));
    EXPECT_FALSE(cache.load(r.compile_key));  // told once
  });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "mpgemm: warning: cubin cache entry " + json.string() +
                          " is damaged (its checksum does not match its content): ignored, compiled again");
  ASSERT_TRUE(cache.store(r));  // the next compile replaces it
  EXPECT_EQ(cache.load(r.compile_key)->registers, 40);
}

// Another kernel's cubin under this key's name (a copy gone wrong) fails the hash the json names.
TEST_F(CubinCacheTest, AnotherKernelsCubinUnderThisKeyIsAMiss) {
  const CubinCache cache(dir_ / "c");
  const auto opts = pool_options(nullptr, {}).compile;
  KernelSpec same_size = spec(9);
  same_size.source = "__global__ void kX() {}\n";  // spec(8)'s length: the sizes agree, the bytes do not
  const CompileResult r = fake_compile(spec(8), opts), other = fake_compile(same_size, opts);
  ASSERT_NE(r.compile_key, other.compile_key);
  ASSERT_EQ(r.cubin.size(), other.cubin.size());
  ASSERT_TRUE(cache.store(r) && cache.store(other));
  const fs::path cubin = cache.dir() / (r.compile_key + ".cubin");
  fs::copy_file(cache.dir() / (other.compile_key + ".cubin"), cubin, fs::copy_options::overwrite_existing);
  const auto lines = warnings_of([&] { EXPECT_FALSE(cache.load(r.compile_key)); });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(cubin.string() + " is damaged (its hash is not the one its json names)"), std::string::npos)
      << lines[0];
  ASSERT_TRUE(cache.load(other.compile_key));
  EXPECT_EQ(cache.load(other.compile_key)->cubin, other.cubin);
}

// What a hostile or broken folder may hold under an entry's names: each is a miss with one warning, read within
// bounds (no bad_alloc, no stack overflow from a million levels of nesting, no wait on /dev/zero or a FIFO).
TEST_F(CubinCacheTest, AHostileEntryIsAMissWithAWarningNeverACrash) {
  const CubinCache cache(dir_ / "c");
  const auto opts = pool_options(nullptr, {}).compile;
  int n = 20;
  auto fresh = [&] {
    CompileResult r = fake_compile(spec(++n), opts);
    EXPECT_TRUE(cache.store(r));
    return r;
  };
  // One warning naming the file and a reason that starts with `why`.
  auto expect_miss = [&](const CompileResult& r, const fs::path& file, const std::string& why) {
    SCOPED_TRACE(why);
    const auto lines = warnings_of([&] { EXPECT_FALSE(cache.load(r.compile_key)); });
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_TRUE(lines[0].starts_with("mpgemm: warning: cubin cache entry " + file.string() + " is damaged (" + why))
        << lines[0];
    EXPECT_TRUE(lines[0].ends_with("): ignored, compiled again")) << lines[0];
    EXPECT_LT(lines[0].size(), 400u);
  };
  auto json_of = [&](const CompileResult& r) { return cache.dir() / (r.compile_key + ".json"); };
  auto cubin_of = [&](const CompileResult& r) { return cache.dir() / (r.compile_key + ".cubin"); };

  CompileResult r = fresh();
  std::ofstream(json_of(r), std::ios::trunc) << std::string(1'000'000, '[') << std::string(1'000'000, ']');
  expect_miss(r, json_of(r),
              "not JSON: [json.exception.parse_error.101] parse error at byte 65: nesting deeper than 64 levels");

  r = fresh();
  fs::resize_file(json_of(r), kMaxInputFileBytes + 1);  // sparse
  expect_miss(r, json_of(r), "the cache entry is larger than 64 MiB (is it the right file?)");

  r = fresh();
  fs::remove(json_of(r));
  fs::create_symlink("/dev/zero", json_of(r));
  expect_miss(r, json_of(r), "not a plain file");

  r = fresh();
  fs::remove(json_of(r));
  ASSERT_EQ(::mkfifo(json_of(r).c_str(), 0644), 0);  // opening it would wait for a writer forever
  expect_miss(r, json_of(r), "not a plain file");

  r = fresh();
  fs::remove(cubin_of(r));
  fs::create_symlink("/dev/zero", cubin_of(r));
  expect_miss(r, cubin_of(r), "missing, or not a plain file");

  r = fresh();
  fs::resize_file(cubin_of(r), 8ull << 30);  // 8 GiB, sparse: its size is compared, it is never read
  expect_miss(r, cubin_of(r), fmt::format("{} bytes where its json names {}", 8ull << 30, r.cubin.size()));

  r = fresh();
  fs::remove(cubin_of(r));
  expect_miss(r, cubin_of(r), "missing, or not a plain file");

  r = fresh();
  std::ofstream(json_of(r), std::ios::trunc) << "[1, 2]";
  expect_miss(r, json_of(r), "not a JSON object");

  // An entry of another format (an older mpgemm's) is a miss to compile again, not damage.
  r = fresh();
  std::ofstream(json_of(r), std::ios::trunc) << R"({"format": 1, "compile_key": ")" << r.compile_key << R"("})";
  EXPECT_TRUE(warnings_of([&] { EXPECT_FALSE(cache.load(r.compile_key)); }).empty());

  // The pool compiles a damaged key again and the entry is whole after it.
  r = fresh();
  fs::resize_file(cubin_of(r), 10);
  std::atomic<int> calls{0};
  auto counting = [&](const KernelSpec& s, const CompileOptions& o) {
    ++calls;
    return fake_compile(s, o);
  };
  const auto lines = warnings_of([&] {
    const auto results = compile_all({spec(n)}, pool_options(&cache, counting));
    ASSERT_EQ(results.size(), 1u);
    EXPECT_FALSE(results[0].from_cache);
  });
  EXPECT_EQ(lines.size(), 1u);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(cache.load(r.compile_key));
}

// mpgemm-query merge: the entries another cache holds and this one lacks are copied whole; damaged ones and the
// ones this cache has are left as they are.
TEST_F(CubinCacheTest, MissingEntriesAreCopiedFromAnotherCache) {
  const CubinCache from(dir_ / "in.db.cubins"), to(dir_ / "out.db.cubins");
  const auto opts = pool_options(nullptr, {}).compile;
  const CompileResult a = fake_compile(spec(5), opts), b = fake_compile(spec(6), opts), c = fake_compile(spec(7), opts);
  ASSERT_TRUE(from.store(a) && from.store(b) && from.store(c) && to.store(a));
  fs::resize_file(from.dir() / (c.compile_key + ".cubin"), 10);  // damaged: not copied
  EXPECT_EQ(to.copy_missing_from(from), 1u);
  const auto back = to.load(b.compile_key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cubin, b.cubin);
  EXPECT_FALSE(to.contains(c.compile_key));
  EXPECT_EQ(to.copy_missing_from(from), 0u);
  EXPECT_EQ(to.copy_missing_from(CubinCache(dir_ / "none")), 0u);  // no cache beside that input
}

TEST_F(CubinCacheTest, AnUnwritableCacheOnlyKeepsNothing) {
  std::ofstream(dir_ / "not-a-folder") << "a file where the cache folder would go\n";  // unwritable, even for root
  const CubinCache cache(dir_ / "not-a-folder" / "c");
  const CompileResult r = fake_compile(spec(5), pool_options(nullptr, {}).compile);
  EXPECT_FALSE(cache.store(r));
  EXPECT_FALSE(cache.load(r.compile_key));
  // The pool still compiles (and returns) what it cannot keep.
  std::atomic<int> calls{0};
  auto counting = [&](const KernelSpec& s, const CompileOptions& o) {
    ++calls;
    return fake_compile(s, o);
  };
  for (int round = 0; round < 2; ++round) {
    const auto results = compile_all({spec(5)}, pool_options(&cache, counting));
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].result.status, Status::ok);
    EXPECT_FALSE(results[0].from_cache);
  }
  EXPECT_EQ(calls, 2);
}

TEST_F(CubinCacheTest, AClaimExcludesEveryOtherClaimOfTheKey) {
  const CubinCache cache(dir_ / "c");
  const CubinCache::Claim first = cache.claim("k1", false);
  EXPECT_TRUE(first);
  EXPECT_FALSE(cache.claim("k1", false));  // another claim, even in this process
  EXPECT_TRUE(cache.claim("k2", false));   // other keys are free
  std::atomic<bool> got{false};
  {
    std::optional<CubinCache::Claim> held;
    held.emplace(cache.claim("k3", false));
    std::thread waiter([&] {
      const CubinCache::Claim c = cache.claim("k3", true);
      got = static_cast<bool>(c);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(got);
    held.reset();  // released: the waiter gets it
    waiter.join();
  }
  EXPECT_TRUE(got);
}

TEST_F(CubinCacheTest, ASecondPoolTakesEverythingFromTheCache) {
  const CubinCache cache(dir_ / "c");
  std::atomic<int> calls{0};
  auto counting = [&](const KernelSpec& s, const CompileOptions& o) {
    ++calls;
    return fake_compile(s, o);
  };
  std::vector<KernelSpec> specs;
  for (int i = 0; i < 6; ++i) specs.push_back(spec(i));
  specs[4].source = "broken";
  const auto first = compile_all(specs, pool_options(&cache, counting));
  EXPECT_EQ(calls, 6);
  for (const auto& r : first) {
    EXPECT_FALSE(r.from_cache);
    EXPECT_EQ(r.attempts, 1);
  }
  EXPECT_EQ(first[4].result.status, Status::compile_failed);

  const auto second = compile_all(specs, pool_options(&cache, counting));
  EXPECT_EQ(calls, 6);  // nothing compiled again, the failure included
  ASSERT_EQ(second.size(), specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_TRUE(second[i].from_cache) << i;
    EXPECT_EQ(second[i].attempts, 0);
    EXPECT_EQ(second[i].result.status, first[i].result.status);
    EXPECT_EQ(second[i].result.cubin, first[i].result.cubin);
  }
}

// The kernels/ files a source reaches by #include "x", transitively, read from the checkout (not from the
// binary's embedded copies): what a developer edits.
std::set<std::string> kernels_files_reached(const std::string& source) {
  const fs::path kernels = fs::path(MPGEMM_SOURCE_DIR) / "kernels";
  const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::set<std::string> out;
  std::vector<std::string> todo{source};
  while (!todo.empty()) {
    const std::string text = std::move(todo.back());
    todo.pop_back();
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, include) || !fs::is_regular_file(kernels / m[1].str())) continue;
      if (!out.insert(m[1].str()).second) continue;
      std::ifstream in(kernels / m[1].str(), std::ios::binary);
      todo.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  return out;
}

TEST_F(CubinCacheTest, AnEditedKernelsHeaderIsAMissInEveryFamily) {
  // A cubin is never reused once a file under kernels/ that its source reaches has changed: each such file is
  // in the compile key by its content (the binary's embedded copy, which must be the checkout's), and editing
  // any one of them makes the pool compile again.
  const CompilePoolOptions no_cache = pool_options(nullptr, {});
  const KernelSpec specs[] = {family("wgmma").kernel_spec(WgmmaConfig{}.to_params(), Arch{9, 0, true}),
                              family("wmma").kernel_spec(WmmaConfig{}.to_params(), Arch{8, 6, false})};
  for (const KernelSpec& real : specs) {
    const std::set<std::string> files = kernels_files_reached(real.source);
    ASSERT_FALSE(files.empty()) << real.source;
    // The embedded copies, as the key sees them, are the checkout's files.
    const auto headers = included_headers(real.source, include_path(real, no_cache.compile.cuda_include_dir));
    for (const auto& file : files) {
      const auto h =
          std::find_if(headers.begin(), headers.end(), [&](const IncludedHeader& ih) { return ih.name == file; });
      ASSERT_NE(h, headers.end()) << file << " is not in the key of " << real.program_name;
      EXPECT_EQ(h->content_hash, fnv1a64(testing::read_file(fs::path(MPGEMM_SOURCE_DIR) / "kernels" / file)))
          << file << ": the build embeds another text than the checkout's (rebuild?)";
    }

    // The same files on disk, edited one at a time. <x> finds them on the include path before the embedded
    // copies, and their own "x" includes next to them. Each variant lives in its own folder (header texts are
    // read once per process and path).
    auto variant = [&](const std::string& folder, const std::string& edited) {
      const fs::path dir = dir_ / folder;
      fs::create_directories(dir);
      for (const auto& file : files) {
        std::string text = testing::read_file(fs::path(MPGEMM_SOURCE_DIR) / "kernels" / file);
        if (file == edited) text += "\n// edited\n";
        std::ofstream(dir / file, std::ios::binary) << text;
      }
      KernelSpec s = real;
      s.source = std::regex_replace(real.source, std::regex(R"re(#include "([^"]+)")re"), "#include <$1>");
      s.include_dirs = {dir.string()};
      return s;
    };
    const CubinCache cache(dir_ / ("cache_" + real.program_name));
    std::atomic<int> calls{0};
    const auto options = pool_options(&cache, [&](const KernelSpec& s, const CompileOptions& o) {
      ++calls;
      return fake_compile(s, o);
    });
    EXPECT_FALSE(compile_all({variant("as_is_" + real.program_name, "")}, options)[0].from_cache);
    EXPECT_TRUE(compile_all({variant("as_is_again_" + real.program_name, "")}, options)[0].from_cache)
        << "the same texts elsewhere are the same key";
    for (const auto& file : files) {
      const auto r = compile_all({variant("edited_" + file + "_" + real.program_name, file)}, options);
      EXPECT_FALSE(r[0].from_cache) << real.program_name << ": a cubin reused after " << file << " changed";
    }
    EXPECT_EQ(calls, 1 + static_cast<int>(files.size()));
  }
  const std::set<std::string> wgmma = kernels_files_reached(specs[0].source);
  for (const char* file : {"wgmma_gemm.cuh", "hopper_ptx.cuh", "wgmma_ops.cuh", "wgmma_layout.cuh", "tile_schedule.cuh",
                           "host_device.cuh", "wgmma_choices.cuh"})
    EXPECT_TRUE(wgmma.contains(file)) << file;
  // A family reaches no other family's files: editing one family's kernel leaves the other's keys (and hashes).
  const std::set<std::string> wmma = kernels_files_reached(specs[1].source);
  EXPECT_EQ(wmma, (std::set<std::string>{"wmma_gemm.cuh", "wmma_choices.cuh"}));
  EXPECT_FALSE(wgmma.contains("wmma_choices.cuh"));
}

TEST_F(CubinCacheTest, AMachineryFailureIsRetried) {
  const CubinCache cache(dir_ / "c");
  std::atomic<int> calls{0};
  auto flaky = [&](const KernelSpec& s, const CompileOptions& o) {
    if (++calls == 1) throw NvrtcError("nvrtcCompileProgram", 4, "NVRTC_ERROR_OUT_OF_MEMORY");
    return fake_compile(s, o);
  };
  const auto results = compile_all({spec(7)}, pool_options(&cache, flaky));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].result.status, Status::ok);
  EXPECT_EQ(results[0].attempts, 2);
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(cache.load(results[0].result.compile_key));
}

TEST_F(CubinCacheTest, APersistentMachineryFailureIsAnErrorNotAnOutcome) {
  const CubinCache cache(dir_ / "c");
  std::atomic<int> calls{0};
  auto broken_machinery = [&](const KernelSpec& s, const CompileOptions&) -> CompileResult {
    ++calls;
    if (s.name_expression == "k9") throw NvrtcError("nvrtcCompileProgram", 4, "NVRTC_ERROR_OUT_OF_MEMORY");
    throw std::bad_alloc();
  };
  try {
    compile_all({spec(9)}, pool_options(&cache, broken_machinery));
    ADD_FAILURE() << "no error";
  } catch (const NvrtcError& e) {
    EXPECT_EQ(e.code(), 4);
    EXPECT_NE(std::string(e.what()).find("k9.cu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3 attempts"), std::string::npos) << e.what();
  }
  EXPECT_EQ(calls, 3);
  EXPECT_THROW(compile_all({spec(10)}, pool_options(&cache, broken_machinery)), std::bad_alloc);
  // Nothing was kept for either config: a later run compiles them.
  EXPECT_FALSE(fs::exists(cache.dir()) && std::any_of(fs::directory_iterator(cache.dir()), fs::directory_iterator(),
                                                      [](const auto& e) { return e.path().extension() == ".json"; }));
}

// Two processes compile the same specs into one cache at once: every key is compiled once in all.
TEST_F(CubinCacheTest, ConcurrentPoolsCompileEachKeyOnce) {
  const fs::path cache_dir = dir_ / "c";
  const fs::path log = dir_ / "compiled.log";  // one line per compile, appended by both processes
  std::vector<KernelSpec> specs;
  for (int i = 0; i < 12; ++i) specs.push_back(spec(i));
  auto logging = [&](const KernelSpec& s, const CompileOptions& o) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // long enough for the other process to want it too
    const std::string line = s.name_expression + "\n";
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      (void)!::write(fd, line.data(), line.size());
      ::close(fd);
    }
    return fake_compile(s, o);
  };
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        const CubinCache cache(cache_dir);
        const auto results = compile_all(specs, pool_options(&cache, logging));
        for (const auto& r : results)
          if (r.result.status != Status::ok) code = 2;
      } catch (...) {
        code = 3;
      }
      std::_Exit(code);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  EXPECT_EQ(lines.size(), specs.size());
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()).size(), specs.size());
  const CubinCache cache(cache_dir);
  for (const auto& s : specs) EXPECT_TRUE(cache.load(compile_key(s, pool_options(nullptr, {}).compile)));
}

}  // namespace
}  // namespace mpgemm
