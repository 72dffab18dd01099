// WorkerClient on the CPU: this test executable doubles as a fake worker (when MPGEMM_TEST_FAKE_WORKER is set it
// serves the protocol on fds 3/4 before gtest starts), so timeouts, deaths, faults and restarts are exercised
// without a GPU.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "worker/client.hpp"
#include "worker/fd_io.hpp"

namespace mpgemm {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

constexpr double kFakeCublasMs = 0.2;
constexpr double kFakeCublasLtMs = 0.18;
constexpr double kFakeFirstLaunchMs = 2.0;

void fake_log(const std::string& line) {
  if (const char* path = std::getenv("MPGEMM_TEST_FAKE_LOG")) std::ofstream(path, std::ios::app) << line << "\n";
}

// One-shot behaviour: true the first time per marker file.
bool first_time() {
  const char* marker = std::getenv("MPGEMM_TEST_FAKE_MARKER");
  if (marker == nullptr || std::filesystem::exists(marker)) return false;
  std::ofstream(marker) << "x";
  return true;
}

[[noreturn]] void hang() {
  for (;;) pause();
}

int run_fake_worker(const std::string& mode) {
  if (mode == "exit_at_start") return 0;
  FrameReader reader;
  const auto send = [](const Message& m) { (void)write_frame(4, m, std::nullopt); };
  for (;;) {
    std::optional<Message> request;
    if (read_message(3, reader, std::nullopt, request) != IoStatus::ok) return 0;
    fake_log(fmt::format("{} {}", getpid(), message_type(*request)));
    if (std::holds_alternative<ShutdownRequest>(*request)) {
      if (mode == "ignore_shutdown") {
        signal(SIGTERM, SIG_IGN);
        hang();
      }
      return 0;
    }
    if (const auto* hello = std::get_if<HelloRequest>(&*request)) {
      if (mode == "mute") hang();
      // MPGEMM_TEST_FAKE_GPUS=N: a host of N fake GPUs of one model (tests of --gpus); 1 when unset.
      const char* gpus = std::getenv("MPGEMM_TEST_FAKE_GPUS");
      const int count = gpus ? std::atoi(gpus) : 1;
      if (hello->device_ordinal >= count) {
        send(ErrorReply{ErrorKind::no_device, 0,
                        fmt::format("no CUDA device {}: {} device(s) visible", hello->device_ordinal, count), true});
        return 4;
      }
      if (mode == "no_device") {
        send(ErrorReply{ErrorKind::no_device, 0, "no CUDA device: fake", true});
        return 4;
      }
      DeviceInfo d;
      d.name = "Fake GPU";
      d.arch = Arch{9, 0, false};
      d.ordinal = hello->device_ordinal;
      d.device_count = count;
      d.uuid = fmt::format("GPU-fake-{}", hello->device_ordinal);
      send(HelloReply{kProtocolVersion, d, static_cast<int>(getpid())});
      continue;
    }
    if (const auto* t = std::get_if<TimeInterleavedRequest>(&*request)) {
      // The re-rank: every kernel verified and timed at 1 ms in every round, beside the fake references.
      InterleavedReply reply;
      const int entries = static_cast<int>(t->kernels.size()) + 1 + (t->cublaslt ? 1 : 0);
      const auto samples = [&](int position, double ms) {
        std::vector<RoundSample> v;
        for (int round = 0; round < t->rounds; ++round) v.push_back(RoundSample{round, position, ms});
        return v;
      };
      for (std::size_t i = 0; i < t->kernels.size(); ++i) {
        InterleavedKernelResult k;
        k.error = ErrorStats{};
        k.samples = samples(static_cast<int>(i), 1.0);
        k.timing = TimingStats{1.0, 1.0, 1.0, t->warmup, t->rounds, t->iters};
        reply.kernels.push_back(k);
      }
      reply.cublas = samples(entries - 1 - (t->cublaslt ? 1 : 0), kFakeCublasMs);
      reply.cublas_timing = TimingStats{kFakeCublasMs, kFakeCublasMs, kFakeCublasMs, t->warmup, t->rounds, t->iters};
      if (t->cublaslt) {
        reply.cublaslt = samples(entries - 1, kFakeCublasLtMs);
        reply.cublaslt_timing =
            TimingStats{kFakeCublasLtMs, kFakeCublasLtMs, kFakeCublasLtMs, t->warmup, t->rounds, t->iters};
      }
      send(reply);
      continue;
    }
    if (std::holds_alternative<AccountRequest>(*request)) {
      if (mode == "mute_account") continue;  // a worker that never answers the end-of-run account
      WorkerPhases phases;
      phases.timing_s = 0.001;
      send(AccountReply{phases});
      continue;
    }
    if (const auto* p = std::get_if<PrepareShapeRequest>(&*request)) {
      fake_log(fmt::format("{} shape {} seed {} cublaslt {}{}", getpid(), p->shape.str(), p->seed, p->cublaslt ? 1 : 0,
                           p->kind.is_default() ? "" : " problem " + p->kind.name()));
      if (mode == "oom") {
        send(ErrorReply{ErrorKind::cuda, 2, "CUDA cudaMalloc failed (code 2): 4294967296 bytes for A", false});
        continue;
      }
      PrepareShapeReply reply{CublasReference{p->shape, p->seed, TimingStats{kFakeCublasMs, 0.19, 0.21, 3, 5, 20}, 0},
                              std::nullopt};
      // Settles as long as asked, as a real worker runs cuBLAS untimed for settle_ms.
      if (p->settle_ms > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(p->settle_ms));
        reply.settled_ms = p->settle_ms;
      }
      if (p->cublaslt) {
        reply.cublaslt.emplace();
        reply.cublaslt->heuristics_returned = 8;
        reply.cublaslt->heuristics_valid = 7;
        reply.cublaslt->timing = TimingStats{kFakeCublasLtMs, 0.17, 0.19, 3, 5, 20};
        reply.cublaslt->algo = CublasLtAlgo{};
      }
      send(reply);
      if (mode == "exit_after_prepare_once" && first_time()) return 0;
      if (mode == "close_after_prepare") {
        close(3);  // alive, but nobody reads the requests any more: the client's next write meets EPIPE
        hang();
      }
      continue;
    }
    if (std::holds_alternative<MeasureRequest>(*request)) {
      // MPGEMM_TEST_FAKE_MEASURE_MS: how long a measurement takes, so that every lane of a --gpus run gets work.
      if (const char* ms = std::getenv("MPGEMM_TEST_FAKE_MEASURE_MS"))
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
      const bool once = mode.ends_with("_once") && first_time();
      const std::string m = mode.ends_with("_once") ? (once ? mode.substr(0, mode.size() - 5) : "ok") : mode;
      if (m == "hang_verify") hang();
      if (m == "die_verify") raise(SIGSEGV);
      if (m == "fault") {
        send(VerifiedReply{Status::runtime_fault, std::nullopt, 0, "verifying failed: CUDA_ERROR_ILLEGAL_ADDRESS"});
        Measurement r;
        r.status = Status::runtime_fault;
        send(ResultReply{r});
        return 3;
      }
      ErrorStats e;
      send(VerifiedReply{Status::ok, e, kFakeFirstLaunchMs, ""});
      if (m == "hang_timing") hang();
      if (m == "exit_timing") return 1;
      Measurement r;
      r.status = Status::ok;
      r.timing = TimingStats{1.0, 0.9, 1.1, 1, 1, 2};
      r.error = e;
      send(ResultReply{r});
    }
  }
}

// Runs before gtest's main when this executable was started as a fake worker.
[[maybe_unused]] const bool g_is_fake_worker = [] {
  const char* mode = std::getenv("MPGEMM_TEST_FAKE_WORKER");
  if (mode == nullptr) return false;
  std::_Exit(run_fake_worker(mode));
}();

std::string self_path() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

class WorkerClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / fmt::format("mpgemm_worker_test_{}", getpid());
    std::filesystem::create_directories(dir_);
    std::filesystem::remove(dir_ / "marker");
    std::filesystem::remove(dir_ / "log");
    setenv("MPGEMM_TEST_FAKE_MARKER", (dir_ / "marker").c_str(), 1);
    setenv("MPGEMM_TEST_FAKE_LOG", (dir_ / "log").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("MPGEMM_TEST_FAKE_WORKER");
    unsetenv("MPGEMM_TEST_FAKE_MARKER");
    unsetenv("MPGEMM_TEST_FAKE_LOG");
    std::filesystem::remove_all(dir_);
  }

  static WorkerOptions options(const char* mode) {
    setenv("MPGEMM_TEST_FAKE_WORKER", mode, 1);
    WorkerOptions o;
    o.executable = self_path();
    o.hello_timeout = 5s;
    o.account_timeout = 300ms;
    o.prepare_timeout = 5s;
    o.verify_base = 300ms;
    o.timing_base = 300ms;
    o.shutdown_grace = 300ms;
    o.reap_timeout = 5s;
    return o;
  }

  static MeasureRequest request() {
    MeasureRequest m;
    m.cubin = std::vector<char>(16, 'x');
    m.lowered_name = "k";
    m.warmup = 1;
    m.runs = 1;
    m.iters = 2;
    return m;
  }

  static PrepareShapeRequest shape() {
    PrepareShapeRequest r;
    r.shape = Shape{64, 32, 16};
    r.seed = 7;
    r.warmup = 3;
    r.runs = 5;
    r.iters = 20;
    return r;
  }

  std::string log() const {
    std::ifstream in(dir_ / "log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  static void expect_reaped(pid_t pid) {
    errno = 0;
    EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1) << "worker " << pid << " was not reaped";
    EXPECT_EQ(errno, ECHILD);
  }

  std::filesystem::path dir_;
};

TEST_F(WorkerClientTest, MeasuresThroughTheProtocol) {
  WorkerClient client(options("ok"));
  EXPECT_EQ(client.hello().name, "Fake GPU");
  const PrepareShapeReply prepared = client.prepare_shape(shape());
  const CublasReference& ref = prepared.reference;
  EXPECT_EQ(ref.shape, shape().shape);
  EXPECT_EQ(ref.timing.median_ms, kFakeCublasMs);
  ASSERT_TRUE(prepared.cublaslt);
  ASSERT_TRUE(prepared.cublaslt->timing);
  EXPECT_EQ(prepared.cublaslt->timing->median_ms, kFakeCublasLtMs);
  EXPECT_EQ(prepared.cublaslt->heuristics_valid, 7);
  const Measurement m = client.measure(request());
  EXPECT_EQ(m.status, Status::ok) << m.message;
  ASSERT_TRUE(m.timing);
  EXPECT_EQ(m.timing->median_ms, 1.0);
  EXPECT_EQ(client.starts(), 1);
  EXPECT_EQ(client.verify_limit(), 300ms + 200ms);
  EXPECT_EQ(client.timing_limit(request(), kFakeFirstLaunchMs), 300ms + 18ms);  // 3 x (1 + 1 x 2) x 2 ms
  // The protocol's options lengthen the limit by what they can take: screening launches, the noise target's
  // minimum batches and time cap, a flush per cold launch.
  MeasureRequest screened = request();
  screened.screen = ScreenRule{1.5, 3};
  screened.screen_against_ms = 1.0;
  EXPECT_EQ(client.timing_limit(screened, kFakeFirstLaunchMs), 300ms + 36ms);  // 3 x (3 + 3) x 2 ms
  screened.screen_against_ms.reset();                                          // no best so far: no screening launches
  EXPECT_EQ(client.timing_limit(screened, kFakeFirstLaunchMs), 300ms + 18ms);
  MeasureRequest sampled = request();
  sampled.noise_stop = NoiseStop{0.01, 4, 0.125};
  EXPECT_EQ(client.timing_limit(sampled, kFakeFirstLaunchMs), 300ms + 453ms);  // 3 x ((3 + 5 x 2) x 2 + 125) ms
  MeasureRequest cold = request();
  cold.l2 = L2Mode::cold;
  EXPECT_EQ(client.timing_limit(cold, kFakeFirstLaunchMs), 300ms + 27ms);  // 3 x 3 x (2 + 1) ms
  // The re-rank's limit: one verification per kernel, then every launch of every entry; untimed rounds add their
  // wall time and one more round.
  TimeInterleavedRequest rerank;
  rerank.kernels.resize(1);
  rerank.kernels[0].expected_ms = 1.0;
  rerank.cublaslt = false;
  rerank.warmup = 3;
  rerank.rounds = 2;
  rerank.iters = 2;
  // 500 + 300 + ceil(3 x (3 + 2 x 2) x (0.2 + 1.0)) ms
  EXPECT_EQ(client.interleaved_limit(rerank), 500ms + 300ms + 26ms);
  rerank.settle_ms = 100;
  // ... + 3 x (100 + 2 x 1.2) ms, one ceil over the sum
  EXPECT_EQ(client.interleaved_limit(rerank), 500ms + 300ms + 333ms);
  const pid_t pid = client.pid();
  client.shutdown();
  EXPECT_FALSE(client.running());
  expect_reaped(pid);
  EXPECT_NE(log().find("shutdown"), std::string::npos);
}

TEST_F(WorkerClientTest, VerifyTimeoutKillsAndReaps) {
  WorkerClient client(options("hang_verify"));
  client.prepare_shape(shape());
  const pid_t pid = client.pid();
  const auto start = std::chrono::steady_clock::now();
  const Measurement m = client.measure(request());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(m.status, Status::timeout);
  EXPECT_NE(m.message.find("within 500 ms"), std::string::npos) << m.message;
  EXPECT_GE(elapsed, 500ms);
  EXPECT_LT(elapsed, 500ms + 3s);
  EXPECT_FALSE(client.running());
  expect_reaped(pid);
}

TEST_F(WorkerClientTest, TimingTimeoutUsesTheFirstLaunch) {
  WorkerClient client(options("hang_timing"));
  client.prepare_shape(shape());
  const pid_t pid = client.pid();
  const auto start = std::chrono::steady_clock::now();
  const Measurement m = client.measure(request());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(m.status, Status::timeout);
  EXPECT_NE(m.message.find("timing did not finish within 318 ms"), std::string::npos) << m.message;
  EXPECT_GE(elapsed, 318ms);
  EXPECT_LT(elapsed, 318ms + 3s);
  expect_reaped(pid);
}

TEST_F(WorkerClientTest, DeathMidRequestIsARuntimeFaultAndTheNextCallRestarts) {
  WorkerClient client(options("die_verify_once"));
  client.prepare_shape(shape());
  const pid_t first = client.pid();
  const Measurement m = client.measure(request());
  EXPECT_EQ(m.status, Status::runtime_fault);
  EXPECT_NE(m.message.find("signal 11"), std::string::npos) << m.message;
  EXPECT_FALSE(client.running());
  expect_reaped(first);

  const Measurement again = client.measure(request());
  EXPECT_EQ(again.status, Status::ok) << again.message;
  EXPECT_EQ(client.starts(), 2);
  EXPECT_NE(client.pid(), first);
  // The replacement got hello and the same shape before the measurement.
  const std::string second = std::to_string(client.pid());
  const std::string text = log();
  const auto hello = text.find(second + " hello");
  // cuBLASLt was timed once, by the first worker: the replacement only needs the problem and cuBLAS's
  // reference.
  EXPECT_NE(text.find(std::to_string(first) + " shape 64x32x16 seed 7 cublaslt 1"), std::string::npos) << text;
  const auto prepared = text.find(second + " shape 64x32x16 seed 7 cublaslt 0");
  const auto measured = text.find(second + " measure");
  ASSERT_NE(hello, std::string::npos) << text;
  ASSERT_NE(prepared, std::string::npos) << text;
  ASSERT_NE(measured, std::string::npos) << text;
  EXPECT_LT(hello, prepared);
  EXPECT_LT(prepared, measured);
}

TEST_F(WorkerClientTest, ReportedStickyFaultEndsTheWorker) {
  WorkerClient client(options("fault"));
  client.prepare_shape(shape());
  const pid_t pid = client.pid();
  const Measurement m = client.measure(request());
  EXPECT_EQ(m.status, Status::runtime_fault);
  EXPECT_NE(m.message.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << m.message;
  EXPECT_FALSE(client.running());
  expect_reaped(pid);
  EXPECT_EQ(client.measure(request()).status, Status::runtime_fault);  // on a fresh worker
  EXPECT_EQ(client.starts(), 2);
}

TEST_F(WorkerClientTest, ExitWhileTimingIsARuntimeFault) {
  WorkerClient client(options("exit_timing"));
  client.prepare_shape(shape());
  const Measurement m = client.measure(request());
  EXPECT_EQ(m.status, Status::runtime_fault);
  EXPECT_NE(m.message.find("exited with status 1 while timing"), std::string::npos) << m.message;
}

TEST_F(WorkerClientTest, DeadReaderDoesNotRaiseSigpipe) {
  WorkerClient client(options("close_after_prepare"));
  client.prepare_shape(shape());
  MeasureRequest big = request();
  big.cubin.assign(4 << 20, 'c');             // far more than a pipe holds
  const Measurement m = client.measure(big);  // a SIGPIPE would kill this test process
  EXPECT_EQ(m.status, Status::runtime_fault);
  EXPECT_NE(m.message.find("during verification"), std::string::npos) << m.message;
  EXPECT_FALSE(client.running());
  sigset_t pending;
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0);
}

TEST_F(WorkerClientTest, IdleDeathIsNoticedAndTheWorkerRestarted) {
  WorkerClient client(options("exit_after_prepare_once"));
  client.prepare_shape(shape());
  const pid_t first = client.pid();
  std::this_thread::sleep_for(200ms);
  const Measurement m = client.measure(request());
  EXPECT_EQ(m.status, Status::ok) << m.message;
  EXPECT_EQ(client.starts(), 2);
  expect_reaped(first);
}

// The end-of-run account: answered, or given up on within account_timeout (not hello's start-up allowance) and the
// mute worker ended; never an exception.
TEST_F(WorkerClientTest, AccountIsAnsweredOrGivenUpOnQuickly) {
  WorkerClient answering(options("ok"));
  EXPECT_FALSE(answering.account()) << "no worker runs yet";
  answering.hello();
  const std::optional<WorkerPhases> phases = answering.account();
  ASSERT_TRUE(phases);
  EXPECT_EQ(phases->timing_s, 0.001);

  WorkerClient mute(options("mute_account"));
  mute.hello();
  const pid_t pid = mute.pid();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(mute.account());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_FALSE(mute.running());
  expect_reaped(pid);
}

TEST_F(WorkerClientTest, NoDeviceIsReportedAsNoDeviceError) {
  WorkerClient client(options("no_device"));
  EXPECT_THROW(client.hello(), NoDeviceError);
  EXPECT_FALSE(client.running());
}

// The settling a prepare asks for is added to its limit: a settle longer than prepare_timeout is not a timeout.
TEST_F(WorkerClientTest, PrepareWaitsForTheSettlingItAsksFor) {
  WorkerOptions o = options("ok");
  o.prepare_timeout = 1s;
  WorkerClient client(o);
  client.hello();
  PrepareShapeRequest settled = shape();
  settled.settle_ms = 2000;
  const PrepareShapeReply reply = client.prepare_shape(settled);
  EXPECT_EQ(reply.settled_ms, 2000);
  EXPECT_TRUE(client.running());
}

TEST_F(WorkerClientTest, ShapeErrorsKeepTheWorker) {
  WorkerClient client(options("oom"));
  try {
    client.prepare_shape(shape());
    FAIL() << "no error";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.code(), 2);
    EXPECT_NE(std::string(e.what()).find("4294967296 bytes"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(client.running());
  EXPECT_THROW(client.measure(request()), Error);  // no current shape
}

TEST_F(WorkerClientTest, StartFailuresAreWorkerErrors) {
  WorkerOptions o = options("ok");
  o.executable = (dir_ / "no-such-worker").string();
  WorkerClient missing(o);
  try {
    missing.hello();
    FAIL() << "no error";
  } catch (const WorkerError& e) {
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
  WorkerClient quitter(options("exit_at_start"));
  EXPECT_THROW(quitter.hello(), WorkerError);
  WorkerOptions slow = options("mute");
  slow.hello_timeout = 300ms;
  WorkerClient mute(slow);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(mute.hello(), WorkerError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 300ms + 3s);
  EXPECT_FALSE(mute.running());
}

TEST_F(WorkerClientTest, DestructorKillsAWorkerThatIgnoresShutdown) {
  pid_t pid = -1;
  const auto start = std::chrono::steady_clock::now();
  {
    WorkerClient client(options("ignore_shutdown"));
    client.hello();
    pid = client.pid();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 300ms + 3s);
  expect_reaped(pid);
}

TEST_F(WorkerClientTest, RealWorkerAnswersHello) {
  const std::filesystem::path worker = std::filesystem::path(MPGEMM_BINARY_DIR) / "bin" / "mpgemm-worker";
  if (!std::filesystem::exists(worker)) GTEST_SKIP() << "mpgemm-worker is not built at " << worker;
  WorkerOptions o;
  o.executable = worker.string();
  WorkerClient client(o);
  try {
    const DeviceInfo d = client.hello();
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.sm_count, 0);
  } catch (const NoDeviceError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("no CUDA")) << e.what();
    EXPECT_FALSE(client.running());
  }
}

}  // namespace
}  // namespace mpgemm
