// libmpgemm on a GPU: a small database made by mpgemm-tune (the Hopper family's wgmma_tile128 and
// wgmma_persistent points on sm_90, else the sm86 space's wmma_cp_async point) at two shapes, then gemm() against
// cuBLAS on a tuned shape, an untuned one (nearest), one no winner can run (cuBLAS), from several threads at once,
// and with an empty cubin cache (compiled with NVRTC, said in the dispatch). Skipped, with the reason, without a
// device.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include <fmt/format.h>

#include "device/cuda_check.hpp"
#include "device/problem.hpp"
#include "device/query.hpp"
#include "device/session.hpp"
#include "mpgemm/gemm.hpp"
#include "support/run_command.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

const Shape kTuned{1024, 1024, 1024};
const Shape kTunedToo{2048, 1024, 512};
const Shape kUntuned{1000, 1096, 520};     // N and K multiples of 8, as the Hopper family's TMA needs
const Shape kNoWinner{512, 512, 1001};     // K = 1001: no tuned winner can run it (TMA strides; wmma's K % 8)
const Shape kUntunedToo{1000, 1096, 512};  // fits kUntuned's buffers

class LibGemm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    if (!device_available(&why)) {
      skip_ = "no CUDA device: " + why;
      return;
    }
    const DeviceInfo info = query_device();
    dir_ = fresh_dir("lib_gemm");
    db_ = (dir_ / "lib.db").string();
    const std::string space = info.arch.cc() == 90 ? "configs/sm90a.json --only wgmma_tile128,wgmma_persistent"
                                                   : "configs/sm86.json --only wmma_cp_async";
    const auto r =
        run_command(fmt::format("cd {} && {} {} --shapes {},{} --no-screen --rerank 0 --db {}", MPGEMM_SOURCE_DIR,
                                bin("mpgemm-tune"), space, kTuned.str(), kTunedToo.str(), db_));
    tune_output_ = r.output;
    tune_ok_ = r.exit_code == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(tune_ok_) << tune_output_;
  }

  // gemm() of `shape` on random inputs, compared with cuBLAS's result on the same inputs.
  static Dispatch run_and_compare(Library& lib, const Shape& shape) {
    DeviceSession session(0);
    ProblemContext problem(session, shape, 7);
    problem.poison_output();
    const ProblemBuffers b = problem.buffers();
    Dispatch d = lib.gemm(b.a, b.b, static_cast<float*>(b.c), shape.m, shape.n, shape.k, session.stream());
    EXPECT_EQ(Library::last_dispatch(),
              &lib.gemm(b.a, b.b, static_cast<float*>(b.c), shape.m, shape.n, shape.k, session.stream()));
    const ErrorStats e = problem.compare_output(0.5, 1e-3);
    EXPECT_EQ(e.bad_count, 0) << shape.str() << " via " << d.config << ": max abs error " << e.max_abs;
    EXPECT_EQ(e.nan_count, 0) << shape.str();
    return d;
  }

  static inline std::string skip_;
  static inline std::filesystem::path dir_;
  static inline std::string db_;
  static inline std::string tune_output_;
  static inline bool tune_ok_ = false;
};

Library::Options any_winner() {
  Library::Options o;
  o.min_ratio = 0;  // a two-config space rarely beats cuBLAS: run its winners anyway
  return o;
}

}  // namespace

TEST_F(LibGemm, TunedShapeRunsItsWinnerFromTheCache) {
  Library lib = Library::open(db_, any_winner());
  EXPECT_EQ(lib.tuned_shapes(), 2u);
  const Dispatch d = run_and_compare(lib, kTuned);
  EXPECT_EQ(d.path, Path::tuned) << d.reason;
  EXPECT_FALSE(d.compiled) << "the tuner's cubin cache should have had it";
  EXPECT_EQ(d.tuned_m, kTuned.m);
  EXPECT_FALSE(d.config.empty());
  EXPECT_EQ(run_and_compare(lib, kTunedToo).path, Path::tuned);
}

TEST_F(LibGemm, UntunedShapeRunsTheNearestWinner) {
  Library lib = Library::open(db_, any_winner());
  const Dispatch planned = lib.plan(kUntuned.m, kUntuned.n, kUntuned.k);
  const Dispatch d = run_and_compare(lib, kUntuned);
  EXPECT_EQ(d.path, Path::nearest) << d.reason;
  EXPECT_EQ(planned.config, d.config);
  EXPECT_EQ(d.tuned_m, kTuned.m) << d.reason;  // 1024^3 is nearer to 1000x1096x520 than 2048x1024x512
}

TEST_F(LibGemm, ShapeNoWinnerCanRunGoesToCublasAndSaysWhy) {
  Library lib = Library::open(db_, any_winner());
  const Dispatch d = run_and_compare(lib, kNoWinner);
  EXPECT_EQ(d.path, Path::cublas);
  EXPECT_NE(d.reason.find("no tuned winner is valid"), std::string::npos) << d.reason;
  Library::Options strict = any_winner();
  strict.allow_cublas = false;
  Library none = Library::open(db_, strict);
  DeviceSession session(0);
  ProblemContext problem(session, kNoWinner, 7);
  const ProblemBuffers b = problem.buffers();
  try {
    none.gemm(b.a, b.b, static_cast<float*>(b.c), kNoWinner.m, kNoWinner.n, kNoWinner.k, session.stream());
    FAIL() << "allow_cublas = false still ran cuBLAS";
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::no_tuned_config) << e.what();
  }
}

TEST_F(LibGemm, DefaultPolicyIsCorrectWhicheverPathItTakes) {
  Library lib = Library::open(db_);
  for (const Shape& s : {kTuned, kUntuned}) {
    const Dispatch d = run_and_compare(lib, s);
    std::cout << s.str() << ": " << to_string(d.path) << ": " << d.reason << "\n";
    if (d.path == Path::cublas) {
      EXPECT_LT(d.ratio_cublas, 1.0) << d.reason;
    }
  }
}

TEST_F(LibGemm, MissingCubinIsCompiledOnceAndSaysSo) {
  Library::Options o = any_winner();
  o.cubin_cache = (dir_ / "empty.cubins").string();
  Library lib = Library::open(db_, o);
  EXPECT_TRUE(run_and_compare(lib, kTuned).compiled);
  Library again = Library::open(db_, o);
  EXPECT_FALSE(run_and_compare(again, kTuned).compiled) << "the compiled cubin was not kept in the cache";
  o.cubin_cache = (dir_ / "other_empty.cubins").string();
  o.allow_compile = false;
  Library refusing = Library::open(db_, o);
  try {
    run_and_compare(refusing, kTuned);
    FAIL() << "compiled with allow_compile = false";
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::compile_failed) << e.what();
  }
}

TEST_F(LibGemm, ConcurrentCallsFromThreadsOnTheirOwnStreams) {
  Library lib = Library::open(db_, any_winner());
  DeviceSession session(0);
  ProblemContext problem(session, kUntuned, 11);
  const ProblemBuffers b = problem.buffers();
  constexpr int kThreads = 4, kCalls = 50;
  std::vector<DeviceBuffer> outputs;
  for (int t = 0; t < kThreads; ++t) outputs.emplace_back(problem.output_elements() * sizeof(float), "C");
  MPGEMM_CUDA(cudaDeviceSynchronize());  // A and B are on the device before other streams read them
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        cudaStream_t stream = nullptr;
        MPGEMM_CUDA(cudaSetDevice(0));
        MPGEMM_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        for (int i = 0; i < kCalls; ++i) {
          // Alternate shapes (both within kUntuned's buffers) so the threads race on first uses of slots too.
          const Shape& s = i % 2 ? kUntuned : kUntunedToo;
          const Dispatch& d = lib.gemm(b.a, b.b, static_cast<float*>(outputs[t].get()), s.m, s.n, s.k, stream);
          if (Library::last_dispatch() != &d) errors[t] = "last_dispatch is not the call's";
        }
        // The last call was kUntuned (i = kCalls - 1 is odd).
        MPGEMM_CUDA(cudaStreamSynchronize(stream));
        MPGEMM_CUDA(cudaStreamDestroy(stream));
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(errors[t], "") << "thread " << t;
    MPGEMM_CUDA(cudaMemcpy(b.c, outputs[t].get(), problem.output_elements() * sizeof(float), cudaMemcpyDeviceToDevice));
    MPGEMM_CUDA(cudaDeviceSynchronize());
    const ErrorStats e = problem.compare_output(0.5, 1e-3);
    EXPECT_EQ(e.bad_count, 0) << "thread " << t << ": max abs error " << e.max_abs;
  }
}

// last_dispatch() points into the Library that made the call: once that Library is destroyed (or replaced by a
// move), it answers nullptr, never a pointer into freed memory.
TEST_F(LibGemm, LastDispatchEndsWithItsLibrary) {
  {
    Library lib = Library::open(db_);
    run_and_compare(lib, kTuned);
    ASSERT_NE(Library::last_dispatch(), nullptr);
  }
  EXPECT_EQ(Library::last_dispatch(), nullptr);
  Library kept = Library::open(db_);
  run_and_compare(kept, kTuned);
  ASSERT_NE(Library::last_dispatch(), nullptr);
  kept = Library::open(db_);  // the library that made the call is destroyed by the assignment
  EXPECT_EQ(Library::last_dispatch(), nullptr);
}

TEST_F(LibGemm, BadArgumentsAreTypedErrors) {
  Library lib = Library::open(db_, any_winner());
  DeviceSession session(0);
  ProblemContext problem(session, kTuned, 3);
  const ProblemBuffers b = problem.buffers();
  for (const Shape& s : {Shape{0, 16, 16}, Shape{16, -1, 16}, Shape{16, 16, std::int64_t{1} << 31}}) {
    try {
      lib.gemm(b.a, b.b, static_cast<float*>(b.c), s.m, s.n, s.k, session.stream());
      FAIL() << s.str() << " was accepted";
    } catch (const GemmError& e) {
      EXPECT_EQ(e.kind(), GemmError::Kind::bad_argument) << e.what();
    }
  }
  EXPECT_THROW(lib.gemm(nullptr, b.b, static_cast<float*>(b.c), 16, 16, 16, session.stream()), GemmError);
}
