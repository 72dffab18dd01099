// mpgemm-worker as a black box on a real GPU, over its pipes with the wire format written out by hand here
// (length-prefixed MessagePack through nlohmann::json): a correct kernel is ok; a sticky fault (illegal address,
// trap) is reported as runtime_fault, the worker exits, and a fresh worker measures fine; a kernel that never ends is
// killed and the GPU serves the next worker. Without a device every test is skipped with the reason.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../kernels/device_test_nvrtc.hpp"
#include "device/query.hpp"
#include "worker/protocol.hpp"

namespace mpgemm {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const std::filesystem::path kWorker = std::filesystem::path(MPGEMM_BINARY_DIR) / "bin" / "mpgemm-worker";

class WorkerProcess {
 public:
  WorkerProcess() {
    int req[2], rep[2];
    if (pipe2(req, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    pid_ = fork();
    if (pid_ == 0) {
      const int in = fcntl(req[0], F_DUPFD, 10), out = fcntl(rep[1], F_DUPFD, 10);
      const int null_fd = open("/dev/null", O_RDONLY);
      dup2(null_fd, 0);
      dup2(in, 3);
      dup2(out, 4);
      execl(kWorker.c_str(), kWorker.c_str(), nullptr);
      _exit(127);
    }
    close(req[0]);
    close(rep[1]);
    to_ = req[1];
    from_ = rep[0];
  }
  ~WorkerProcess() {
    close(to_);
    close(from_);
    if (!status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  void send(const json& message) {
    const auto payload = json::to_msgpack(message);
    const auto size = static_cast<std::uint32_t>(payload.size());
    std::vector<std::uint8_t> frame{static_cast<std::uint8_t>(size), static_cast<std::uint8_t>(size >> 8),
                                    static_cast<std::uint8_t>(size >> 16), static_cast<std::uint8_t>(size >> 24)};
    frame.insert(frame.end(), payload.begin(), payload.end());
    ASSERT_EQ(write(to_, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
  }

  // The next message, or nullopt when none came within `timeout` or the worker closed its end.
  std::optional<json> receive(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::vector<std::uint8_t> bytes;
    std::size_t want = 4;
    while (bytes.size() < want) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{from_, POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
      std::uint8_t chunk[65536];
      const ssize_t n = read(from_, chunk, std::min(sizeof chunk, want - bytes.size()));
      if (n <= 0) return std::nullopt;
      bytes.insert(bytes.end(), chunk, chunk + n);
      if (want == 4 && bytes.size() == 4)
        want = 4 + (bytes[0] | bytes[1] << 8 | bytes[2] << 16 | static_cast<std::size_t>(bytes[3]) << 24);
    }
    return json::from_msgpack(bytes.begin() + 4, bytes.end());
  }

  // The exit status once the worker has exited within `timeout` (it is killed and reaped otherwise).
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        status_ = st;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
      std::this_thread::sleep_for(20ms);
    }
    return std::nullopt;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::optional<int> status_;
};

class DeviceWorkerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!device_available(&skip_reason_)) return;
    try {
      cubin_ = test::compile_test_kernels(query_device(0).arch);
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    ASSERT_TRUE(std::filesystem::exists(kWorker)) << "build mpgemm-worker first: " << kWorker;
  }

  // A prepare_shape request for m x 192 x 320 of the default problem kind with the tests' timing protocol and
  // tolerances.
  static json prepare_request(int m, std::uint64_t seed, bool cublaslt, const char* batches = "stream",
                              int settle_ms = 0, int keep_warm_ms = 0, int idle_settle_ms = 0) {
    return {{"type", "prepare_shape"},
            {"shape", {{"m", m}, {"n", 192}, {"k", 320}}},
            {"seed", seed},
            {"warmup", 3},
            {"runs", 5},
            {"iters", 20},
            {"cublaslt", cublaslt},
            {"atol", 0.5},
            {"rtol", 1e-3},
            {"l2", "warm"},
            {"batches", batches},
            {"settle_ms", settle_ms},
            {"hold", {{"keep_warm_ms", keep_warm_ms}, {"idle_settle_ms", idle_settle_ms}}},
            {"problem", "mk_kn_fp16_fp32"},
            {"alpha", 1.0},
            {"beta", 0.0}};
  }

  // A worker that has answered hello and prepared a 256 x 192 x 320 problem (with cuBLASLt's reference when
  // asked; its reply goes to `prepared`).
  static std::unique_ptr<WorkerProcess> ready_worker(bool cublaslt = false, json* prepared = nullptr,
                                                     const char* batches = "stream", int settle_ms = 0,
                                                     int keep_warm_ms = 0, int idle_settle_ms = 0) {
    auto w = std::make_unique<WorkerProcess>();
    w->send({{"type", "hello"}, {"protocol", kProtocolVersion}, {"device_ordinal", 0}});
    const auto hello = w->receive(120s);
    EXPECT_TRUE(hello && (*hello)["type"] == "device") << (hello ? hello->dump() : "no reply");
    w->send(prepare_request(256, 5, cublaslt, batches, settle_ms, keep_warm_ms, idle_settle_ms));
    const auto ref = w->receive(120s);
    EXPECT_TRUE(ref && (*ref)["type"] == "cublas_reference") << (ref ? ref->dump() : "no reply");
    if (ref && ref->contains("reference")) {
      EXPECT_GT((*ref)["reference"]["timing"]["median_ms"].get<double>(), 0);
      EXPECT_EQ((*ref)["cublaslt"].is_null(), !cublaslt) << ref->dump();
      if (prepared) *prepared = *ref;
    }
    return w;
  }

  static json measure_request(const std::string& kernel, const std::string& family = "") {
    return {{"type", "measure"},
            {"family", family},
            {"params", json::object()},
            {"cubin", json::binary(std::vector<std::uint8_t>(cubin_.begin(), cubin_.end()))},
            {"lowered_name", kernel},
            {"geometry",
             {{"grid", {12, 16, 1}},
              {"block", {16, 16, 1}},
              {"cluster", {1, 1, 1}},
              {"dynamic_smem_bytes", 0},
              {"persistent", false},
              {"balanced_units", 0},
              {"dependent_launch", false}}},
            {"atol", 0.5},
            {"rtol", 1e-3},
            {"warmup", 3},
            {"runs", 5},
            {"iters", 20},
            {"pair_with_cublas", false},
            {"l2", "warm"},
            {"batches", "stream"},
            {"noise_stop", nullptr},
            {"screen", nullptr},
            {"screen_against_ms", nullptr}};
  }

  static void expect_ok_measurement(WorkerProcess& w) {
    w.send(measure_request("test_gemm_naive"));
    const auto verified = w.receive(60s);
    ASSERT_TRUE(verified);
    EXPECT_EQ((*verified)["status"], "ok") << verified->dump();
    const auto result = w.receive(60s);
    ASSERT_TRUE(result);
    EXPECT_EQ((*result)["measurement"]["status"], "ok") << result->dump();
    EXPECT_GT((*result)["measurement"]["timing"]["median_ms"].get<double>(), 0);
  }

  static void expect_sticky_fault(const std::string& kernel) {
    auto w = ready_worker();
    w->send(measure_request(kernel));
    const auto verified = w->receive(60s);
    ASSERT_TRUE(verified);
    EXPECT_EQ((*verified)["status"], "runtime_fault") << verified->dump();
    EXPECT_EQ(w->wait_exit(30s), 3) << "the worker must exit after a sticky fault";
    auto fresh = ready_worker();
    expect_ok_measurement(*fresh);
  }

  static inline std::string skip_reason_;
  static inline std::string setup_error_;
  static inline std::vector<char> cubin_;
};

TEST_F(DeviceWorkerTest, CorrectKernelIsOk) {
  auto w = ready_worker();
  expect_ok_measurement(*w);
  w->send({{"type", "shutdown"}});
  EXPECT_EQ(w->wait_exit(30s), 0);
}

TEST_F(DeviceWorkerTest, WrongKernelIsIncorrectWithErrorStats) {
  auto w = ready_worker();
  w->send(measure_request("test_gemm_off_by_one"));
  const auto verified = w->receive(60s);
  ASSERT_TRUE(verified);
  EXPECT_EQ((*verified)["status"], "incorrect");
  const auto result = w->receive(60s);
  ASSERT_TRUE(result);
  const json& m = (*result)["measurement"];
  EXPECT_EQ(m["status"], "incorrect");
  EXPECT_TRUE(m["timing"].is_null());
  EXPECT_EQ(m["error"]["bad_count"], 256 * 192);
  expect_ok_measurement(*w);  // the worker goes on
}

TEST_F(DeviceWorkerTest, IllegalAddressIsARuntimeFaultAndAFreshWorkerIsFine) {
  expect_sticky_fault("test_gemm_illegal_address");
}

TEST_F(DeviceWorkerTest, TrapIsARuntimeFault) {
  expect_sticky_fault("test_gemm_trap");
}

TEST_F(DeviceWorkerTest, HungKernelIsKilledAndTheGpuRecovers) {
  {
    auto w = ready_worker();
    w->send(measure_request("test_gemm_spin"));
    EXPECT_FALSE(w->receive(5s)) << "a spinning kernel cannot verify";
  }  // SIGKILL + waitpid
  auto fresh = ready_worker();
  expect_ok_measurement(*fresh);
}

TEST_F(DeviceWorkerTest, PrepareShapeTimesCublasLtAndTheWorkerGoesOn) {
  json prepared;
  auto w = ready_worker(true, &prepared);
  const json& lt = prepared["cublaslt"];
  ASSERT_TRUE(lt.is_object()) << prepared.dump();
  EXPECT_GE(lt["heuristics_returned"].get<int>(), 1) << lt.dump();
  EXPECT_GE(lt["heuristics_valid"].get<int>(), 1) << lt.dump();
  ASSERT_FALSE(lt["timing"].is_null()) << lt.dump();
  EXPECT_GT(lt["timing"]["median_ms"].get<double>(), 0);
  EXPECT_FALSE(lt["algo"].is_null());
  EXPECT_EQ(lt["error"]["bad_count"], 0);
  EXPECT_LE(lt["error"]["max_abs"].get<double>(), 0.5);
  expect_ok_measurement(*w);  // cuBLASLt wrote into C; the candidate's poisoned C must not notice
}

// Asked to settle, prepare_shape runs cuBLAS untimed for at least that long before it times anything, and says so.
TEST_F(DeviceWorkerTest, PrepareShapeSettlesWhenAsked) {
  json prepared;
  auto w = ready_worker(false, &prepared, "stream", 300);
  EXPECT_GE(prepared["settled_ms"].get<double>(), 300) << prepared.dump();
  EXPECT_LT(prepared["settled_ms"].get<double>(), 10'000) << prepared.dump();
  json unsettled;
  ready_worker(false, &unsettled);
  EXPECT_EQ(unsettled["settled_ms"].get<double>(), 0) << unsettled.dump();
}

// The clock hold: a measurement that finds the card idle longer than kIdleGapMs settles first and says how long;
// with keep-warm the card is not idle when the request comes after a pause, so nothing settles; a prepare settles
// for idle_settle_ms even without settle_ms (the host-side fill leaves the card idle), and with cuBLASLt once more
// after its search.
TEST_F(DeviceWorkerTest, ClockHoldSettlesAfterIdleAndKeepsTheCardBusyBetweenRequests) {
  const auto settled_before = [](WorkerProcess& w) {
    w.send(measure_request("test_gemm_naive"));
    const auto verified = w.receive(60s);
    EXPECT_TRUE(verified && (*verified)["status"] == "ok") << (verified ? verified->dump() : "no reply");
    const auto result = w.receive(60s);
    EXPECT_TRUE(result && (*result)["measurement"]["status"] == "ok") << (result ? result->dump() : "no reply");
    return verified ? (*verified)["settled_ms"].get<double>() : -1.0;
  };
  json prepared;
  auto idle = ready_worker(false, &prepared, "stream", 0, 0, 150);
  EXPECT_GE(prepared["settled_ms"].get<double>(), 150) << prepared.dump();
  std::this_thread::sleep_for(100ms);
  EXPECT_GE(settled_before(*idle), 150);
  EXPECT_EQ(settled_before(*idle), 0) << "right after a measurement the card is not idle";
  json prepared_lt;
  ready_worker(true, &prepared_lt, "stream", 0, 0, 150);
  EXPECT_GE(prepared_lt["settled_ms"].get<double>(), 300)
      << "settles after the fill and again after cuBLASLt's search: " << prepared_lt.dump();

  auto warm = ready_worker(false, nullptr, "stream", 0, 3000, 150);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(settled_before(*warm), 0) << "kept warm through the pause, the card was never idle";
  std::this_thread::sleep_for(3200ms);  // past the keep-warm window: idle again
  EXPECT_GE(settled_before(*warm), 150);

  auto off = ready_worker();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(settled_before(*off), 0) << "no hold asked for, none given";
}

// A shape prepared again with its seed comes back from the worker's kept shapes: inputs, reference output and
// cuBLASLt's choice as they were (the reply says so and carries the same cuBLASLt algorithm), cuBLAS timed again;
// a candidate on it verifies against the kept reference, and cuBLASLt still runs in a re-rank's rounds. Another
// seed, or asking for cuBLASLt where it was not searched, prepares the shape anew. The shape asked for does not
// count against the number kept: with sixteen kept besides it, the least recent is still found.
TEST_F(DeviceWorkerTest, AShapePreparedAgainWithItsSeedKeepsItsInputsAndCublasLtChoice) {
  const auto prepare = [](WorkerProcess& w, int m, std::uint64_t seed, bool cublaslt) {
    w.send(prepare_request(m, seed, cublaslt));
    const auto ref = w.receive(120s);
    EXPECT_TRUE(ref && (*ref)["type"] == "cublas_reference") << (ref ? ref->dump() : "no reply");
    return ref ? *ref : json();
  };
  json first;
  auto w = ready_worker(true, &first);  // 256 x 192 x 320, seed 5, with cuBLASLt
  EXPECT_FALSE(first["inputs_kept"].get<bool>()) << first.dump();
  const json other = prepare(*w, 384, 6, true);
  EXPECT_FALSE(other["inputs_kept"].get<bool>()) << other.dump();
  const json again = prepare(*w, 256, 5, true);
  EXPECT_TRUE(again["inputs_kept"].get<bool>()) << again.dump();
  EXPECT_EQ(again["cublaslt"]["algo"], first["cublaslt"]["algo"]) << again.dump();
  EXPECT_GT(again["reference"]["timing"]["median_ms"].get<double>(), 0);
  expect_ok_measurement(*w);  // verified against the kept reference

  // cuBLASLt's kept algorithm still runs in the rounds of a re-rank on the kept shape.
  json rerank = measure_request("test_gemm_naive");
  w->send({{"type", "time_interleaved"},
           {"kernels",
            {{{"family", ""},
              {"params", json::object()},
              {"cubin", rerank["cubin"]},
              {"lowered_name", "test_gemm_naive"},
              {"geometry", rerank["geometry"]},
              {"expected_ms", 0.05}}}},
           {"atol", 0.5},
           {"rtol", 1e-3},
           {"warmup", 2},
           {"rounds", 4},
           {"iters", 5},
           {"cublaslt", true},
           {"graphs", false},
           {"settle_ms", 0}});
  const auto rounds = w->receive(120s);
  ASSERT_TRUE(rounds) << "no reply to time_interleaved";
  EXPECT_EQ((*rounds)["cublaslt"].size(), 4u) << rounds->dump();
  EXPECT_EQ((*rounds)["kernels"][0]["status"], "ok") << rounds->dump();

  EXPECT_FALSE(prepare(*w, 256, 7, true)["inputs_kept"].get<bool>()) << "another seed is another problem";
  EXPECT_TRUE(prepare(*w, 384, 6, false)["inputs_kept"].get<bool>()) << "less than was kept is served from it";
  EXPECT_FALSE(prepare(*w, 512, 8, false)["inputs_kept"].get<bool>());
  EXPECT_FALSE(prepare(*w, 256, 7, false)["cublaslt"].is_object()) << "kept, and asked for without cuBLASLt";
  EXPECT_FALSE(prepare(*w, 512, 8, true)["inputs_kept"].get<bool>()) << "kept without cuBLASLt's search";
  // 256 x 192 x 320 with seed 7 was kept through a preparation without cuBLASLt, its search with it.
  const json kept_through = prepare(*w, 256, 7, true);
  EXPECT_TRUE(kept_through["inputs_kept"].get<bool>()) << kept_through.dump();
  EXPECT_TRUE(kept_through["cublaslt"].is_object()) << kept_through.dump();
  expect_ok_measurement(*w);  // the test kernel's grid covers 256 x 192

  // The same shape prepared twice in a row is served from itself (a regression check: it was before too).
  EXPECT_TRUE(prepare(*w, 256, 7, true)["inputs_kept"].get<bool>()) << "prepared twice in a row";
  // Sixteen more shapes: 256 x 192 x 320 is now the least recent of the sixteen kept, and still found, since the
  // shape asked for is taken out before the least recent ones are let go (the re-rank walks its shapes back).
  for (int i = 0; i < 16; ++i) EXPECT_FALSE(prepare(*w, 576 + 64 * i, 9, false)["inputs_kept"].get<bool>()) << i;
  const json least_recent = prepare(*w, 256, 7, true);
  EXPECT_TRUE(least_recent["inputs_kept"].get<bool>()) << least_recent.dump();
  expect_ok_measurement(*w);
  // 384 x 192 x 320 was less recent and had to go to make room for them.
  EXPECT_FALSE(prepare(*w, 384, 6, false)["inputs_kept"].get<bool>());
}

// --graphs through the worker: cuBLAS's reference, the candidate's batches and its screen are graph replays and
// the timings say so; a cold-L2 request for graphs is refused.
TEST_F(DeviceWorkerTest, GraphBatchesAreTimedAsGraphsAndSaySo) {
  json prepared;
  auto w = ready_worker(false, &prepared, "graph");
  EXPECT_EQ(prepared["reference"]["timing"]["batches"], "graph") << prepared.dump();
  json req = measure_request("test_gemm_naive");
  req["batches"] = "graph";
  req["screen"] = {{"threshold", 1.5}, {"launches", 3}};
  req["screen_against_ms"] = 1e-6;  // far faster than the naive kernel: screened out, by a graph-replayed screen
  w->send(req);
  auto verified = w->receive(60s);
  ASSERT_TRUE(verified);
  EXPECT_EQ((*verified)["status"], "ok") << verified->dump();
  auto screened = w->receive(60s);
  ASSERT_TRUE(screened);
  EXPECT_EQ((*screened)["measurement"]["status"], "screened_out") << screened->dump();
  EXPECT_EQ((*screened)["measurement"]["timing"]["batches"], "graph") << screened->dump();

  req["screen"] = nullptr;
  req["screen_against_ms"] = nullptr;
  w->send(req);
  verified = w->receive(60s);
  ASSERT_TRUE(verified);
  EXPECT_EQ((*verified)["status"], "ok") << verified->dump();
  const auto result = w->receive(60s);
  ASSERT_TRUE(result);
  const json& m = (*result)["measurement"];
  EXPECT_EQ(m["status"], "ok") << result->dump();
  EXPECT_GT(m["timing"]["median_ms"].get<double>(), 0);
  EXPECT_EQ(m["timing"]["batches"], "graph") << result->dump();
  expect_ok_measurement(*w);  // host batches again on the same stream: the capture left it usable

  req["l2"] = "cold";
  w->send(req);
  const auto refused = w->receive(60s);
  ASSERT_TRUE(refused);
  EXPECT_EQ((*refused)["type"], "error") << refused->dump();
  EXPECT_EQ((*refused)["kind"], "bad_request") << refused->dump();
  expect_ok_measurement(*w);  // and the worker goes on
}

TEST_F(DeviceWorkerTest, UnknownFamilyIsARefusedRequest) {
  auto w = ready_worker();
  w->send(measure_request("test_gemm_naive", "no_such_family"));
  const auto reply = w->receive(60s);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["type"], "error");
  EXPECT_EQ((*reply)["kind"], "bad_request");
  EXPECT_EQ((*reply)["fatal"], false);
  expect_ok_measurement(*w);
}

}  // namespace
}  // namespace mpgemm
