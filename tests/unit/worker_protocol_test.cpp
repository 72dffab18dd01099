// Every message of the worker protocol survives encode -> frame -> decode, and broken bytes are ProtocolErrors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "worker/interleaved.hpp"
#include "worker/protocol.hpp"

namespace mpgemm {
namespace {

template <class T>
T round_trip(const T& message) {
  const std::vector<std::uint8_t> frame = encode_frame(Message{message});
  const Message decoded = decode_frame(frame);
  EXPECT_TRUE(std::holds_alternative<T>(decoded)) << message_type(decoded);
  return std::get<T>(decoded);
}

DeviceInfo sample_device() {
  DeviceInfo d;
  d.ordinal = 1;
  d.name = "NVIDIA H200";
  d.arch = Arch{9, 0, false};
  d.pci_bus_id = "0000:41:00.0";
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.regs_per_block = 65536;
  d.regs_per_sm = 65536;
  d.smem_per_block_optin = 232448;
  d.smem_per_sm = 233472;
  d.l2_bytes = 62914560;
  d.total_memory_bytes = 150754820096;
  d.max_sm_clock_mhz = 1980;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  d.cublas_version = 130100;
  return d;
}

TimingStats sample_timing() {
  return TimingStats{1.25, 1.2, 1.4, 3, 5, 20};
}
ErrorStats sample_errors() {
  return ErrorStats{0.25, 1e-4, 7, 2, 0.5, 1e-3};
}

void expect_equal(const TimingStats& a, const TimingStats& b) {
  EXPECT_EQ(a.median_ms, b.median_ms);
  EXPECT_EQ(a.min_ms, b.min_ms);
  EXPECT_EQ(a.max_ms, b.max_ms);
  EXPECT_EQ(a.warmup, b.warmup);
  EXPECT_EQ(a.runs, b.runs);
  EXPECT_EQ(a.iters, b.iters);
  EXPECT_EQ(a.noise, b.noise);
  EXPECT_EQ(a.l2, b.l2);
  EXPECT_EQ(a.batches, b.batches);
  EXPECT_EQ(a.noise_target, b.noise_target);
}

void expect_equal(const ErrorStats& a, const ErrorStats& b) {
  EXPECT_EQ(a.max_abs, b.max_abs);
  EXPECT_EQ(a.max_rel, b.max_rel);
  EXPECT_EQ(a.bad_count, b.bad_count);
  EXPECT_EQ(a.nan_count, b.nan_count);
  EXPECT_EQ(a.atol, b.atol);
  EXPECT_EQ(a.rtol, b.rtol);
}

TEST(WorkerProtocol, Hello) {
  const auto req = round_trip(HelloRequest{kProtocolVersion, 3});
  EXPECT_EQ(req.protocol, kProtocolVersion);
  EXPECT_EQ(req.device_ordinal, 3);

  const auto reply = round_trip(HelloReply{kProtocolVersion, sample_device(), 4242});
  EXPECT_EQ(reply.pid, 4242);
  const DeviceInfo& d = reply.device;
  const DeviceInfo e = sample_device();
  EXPECT_EQ(d.ordinal, e.ordinal);
  EXPECT_EQ(d.name, e.name);
  EXPECT_EQ(d.arch, e.arch);
  EXPECT_EQ(d.pci_bus_id, e.pci_bus_id);
  EXPECT_EQ(d.sm_count, e.sm_count);
  EXPECT_EQ(d.max_threads_per_block, e.max_threads_per_block);
  EXPECT_EQ(d.regs_per_block, e.regs_per_block);
  EXPECT_EQ(d.regs_per_sm, e.regs_per_sm);
  EXPECT_EQ(d.smem_per_block_optin, e.smem_per_block_optin);
  EXPECT_EQ(d.smem_per_sm, e.smem_per_sm);
  EXPECT_EQ(d.l2_bytes, e.l2_bytes);
  EXPECT_EQ(d.total_memory_bytes, e.total_memory_bytes);
  EXPECT_EQ(d.max_sm_clock_mhz, e.max_sm_clock_mhz);
  EXPECT_EQ(d.driver_version, e.driver_version);
  EXPECT_EQ(d.runtime_version, e.runtime_version);
  EXPECT_EQ(d.cublas_version, e.cublas_version);
  EXPECT_EQ(cuda_version_string(d.driver_version), "13.0");
  EXPECT_EQ(cublas_version_string(d.cublas_version), "13.1.0");
}

TEST(WorkerProtocol, PrepareShape) {
  PrepareShapeRequest asked;
  asked.shape = Shape{4096, 1024, 8192};
  asked.seed = 0xfedcba9876543210ull;
  asked.warmup = 2;
  asked.runs = 7;
  asked.iters = 11;
  asked.cublaslt = false;
  asked.atol = 0.25;
  asked.rtol = 2e-3;
  const auto req = round_trip(asked);
  EXPECT_EQ(req.shape, (Shape{4096, 1024, 8192}));
  EXPECT_EQ(req.seed, 0xfedcba9876543210ull);  // all 64 bits survive
  EXPECT_EQ(req.warmup, 2);
  EXPECT_EQ(req.runs, 7);
  EXPECT_EQ(req.iters, 11);
  EXPECT_FALSE(req.cublaslt);
  EXPECT_EQ(req.atol, 0.25);
  EXPECT_EQ(req.rtol, 2e-3);
  EXPECT_TRUE(round_trip(PrepareShapeRequest{}).cublaslt);  // asked for unless turned off
  // The problem's kind and scalars (protocol 15): the default kind unless asked.
  EXPECT_TRUE(req.kind.is_default());
  EXPECT_EQ(req.alpha, 1.0f);
  EXPECT_EQ(req.beta, 0.0f);
  PrepareShapeRequest linear;
  linear.kind = *ProblemKind::parse("km_nk_bf16_bf16_beta");
  linear.alpha = 0.5f;
  linear.beta = -1.25f;
  const auto back = round_trip(linear);
  EXPECT_EQ(back.kind, linear.kind);
  EXPECT_EQ(back.alpha, 0.5f);
  EXPECT_EQ(back.beta, -1.25f);
  EXPECT_EQ(back.problem(), (GemmProblem{linear.shape, linear.kind}));
  nlohmann::json bad = to_json_message(linear);
  bad["problem"] = "mk_kn_fp8_fp32";
  EXPECT_THROW(message_from_json(bad), ProtocolError);
  EXPECT_EQ(req.l2, L2Mode::warm);
  PrepareShapeRequest cold;
  cold.l2 = L2Mode::cold;
  EXPECT_EQ(round_trip(cold).l2, L2Mode::cold);
  EXPECT_EQ(req.batches, BatchEnqueue::stream);  // the writeup's way unless asked
  PrepareShapeRequest graphs;
  graphs.batches = BatchEnqueue::graph;
  EXPECT_EQ(round_trip(graphs).batches, BatchEnqueue::graph);
  EXPECT_EQ(req.settle_ms, 0);  // no untimed launches unless asked for
  PrepareShapeRequest settled;
  settled.settle_ms = 1250;
  EXPECT_EQ(round_trip(settled).settle_ms, 1250);
  EXPECT_EQ(req.hold, ClockHold{});  // no clock hold unless asked for
  PrepareShapeRequest held;
  held.hold = ClockHold{4000, 150};
  EXPECT_EQ(round_trip(held).hold, (ClockHold{4000, 150}));

  CublasReference ref{Shape{64, 32, 16}, 99, sample_timing(), 1755};
  const auto reply = round_trip(PrepareShapeReply{ref, std::nullopt});
  EXPECT_EQ(reply.reference.shape, ref.shape);
  EXPECT_EQ(reply.reference.seed, 99u);
  expect_equal(reply.reference.timing, ref.timing);
  EXPECT_EQ(reply.reference.sm_clock_mhz, 1755);
  EXPECT_FALSE(reply.cublaslt);
  EXPECT_EQ(reply.settled_ms, 0);
  EXPECT_EQ(round_trip(PrepareShapeReply{ref, std::nullopt, 1003.25}).settled_ms, 1003.25);
  EXPECT_FALSE(round_trip(PrepareShapeReply{ref, std::nullopt, 1003.25}).inputs_kept);
  EXPECT_TRUE(round_trip(PrepareShapeReply{ref, std::nullopt, 0, true}).inputs_kept);
}

// The settling after the fill: the longer of settle_ms and the hold's idle settling.
TEST(WorkerProtocol, SettlingAfterTheFill) {
  PrepareShapeRequest m;
  m.settle_ms = 700;
  m.hold.idle_settle_ms = 200;
  EXPECT_EQ(after_fill_settle_ms(m), 700);
  m.settle_ms = 0;
  EXPECT_EQ(after_fill_settle_ms(m), 200);
  m.hold.idle_settle_ms = 0;
  EXPECT_EQ(after_fill_settle_ms(m), 0);
}

// The settling after cuBLASLt's search: the hold's idle settling, else settle_ms, and none without cuBLASLt.
TEST(WorkerProtocol, SettlingAfterTheCublasLtSearch) {
  PrepareShapeRequest m;
  m.settle_ms = 700;
  m.hold.idle_settle_ms = 200;
  m.cublaslt = false;
  EXPECT_EQ(after_search_settle_ms(m), 0) << "without cuBLASLt there is no search";
  m.cublaslt = true;
  EXPECT_EQ(after_search_settle_ms(m), 200);
  m.hold.idle_settle_ms = 0;
  EXPECT_EQ(after_search_settle_ms(m), 700) << "the hold off, the shape's own settling";
  m.settle_ms = 0;
  EXPECT_EQ(after_search_settle_ms(m), 0);
}

TEST(WorkerProtocol, PrepareShapeReplyCarriesCublasLt) {
  CublasLtReference lt;
  lt.heuristics_returned = 8;
  lt.heuristics_valid = 6;
  lt.timing = TimingStats{0.0251, 0.025, 0.0262, 3, 5, 20};
  lt.algo = CublasLtAlgo{66, 24, 35, 2, 1, 1, 3, 4, 5, 1048576, 1.25};
  lt.error = sample_errors();
  lt.sm_clock_mhz = 1980;
  lt.message = "left out: heuristic 3 (algo 21 tile 20): 5 of 4096 elements differ from cuBLAS";
  const auto reply = round_trip(PrepareShapeReply{CublasReference{Shape{64, 32, 16}, 1, sample_timing(), 0}, lt});
  ASSERT_TRUE(reply.cublaslt);
  const CublasLtReference& got = *reply.cublaslt;
  EXPECT_EQ(got.heuristics_returned, 8);
  EXPECT_EQ(got.heuristics_valid, 6);
  ASSERT_TRUE(got.timing);
  expect_equal(*got.timing, *lt.timing);
  ASSERT_TRUE(got.algo);
  EXPECT_EQ(*got.algo, *lt.algo);
  ASSERT_TRUE(got.error);
  expect_equal(*got.error, *lt.error);
  EXPECT_EQ(got.sm_clock_mhz, 1980);
  EXPECT_EQ(got.message, lt.message);
  EXPECT_EQ(describe(*got.algo), "algo 66 tile 24 stages 35 splitk 2 reduction 1 swizzle 1 custom 3 inner 4 cluster 5");

  // cuBLASLt asked for but not timed: the reply says why, and prepare_shape still succeeds.
  CublasLtReference failed;
  failed.message = "cuBLASLt failed: cublasLtCreate (CUBLAS_STATUS_NOT_INITIALIZED)";
  const auto without = round_trip(PrepareShapeReply{CublasReference{}, failed});
  ASSERT_TRUE(without.cublaslt);
  EXPECT_FALSE(without.cublaslt->timing);
  EXPECT_FALSE(without.cublaslt->algo);
  EXPECT_FALSE(without.cublaslt->error);
  EXPECT_EQ(without.cublaslt->heuristics_returned, 0);
  EXPECT_EQ(without.cublaslt->message, failed.message);
}

TEST(WorkerProtocol, Measure) {
  MeasureRequest m;
  m.family = "wmma";
  m.params = Params{{"BM", std::int64_t{128}}, {"LOAD", std::string("cp_async")}};
  for (int i = 0; i < 70000; ++i) m.cubin.push_back(static_cast<char>(i * 7));  // binary, with every byte value
  m.lowered_name = "_Z9wmma_gemmILi128EEvPK6__halfS2_Pfiii";
  m.geometry = LaunchGeometry{{16, 32, 1}, {256, 1, 1}, {2, 1, 1}, 100000, false};
  m.atol = 0.25;
  m.rtol = 2e-3;
  m.warmup = 1;
  m.runs = 2;
  m.iters = 3;
  m.pair_with_cublas = true;
  const auto got = round_trip(m);
  EXPECT_EQ(got.family, m.family);
  EXPECT_EQ(got.params, m.params);
  EXPECT_EQ(got.cubin, m.cubin);
  EXPECT_EQ(got.lowered_name, m.lowered_name);
  EXPECT_EQ(got.geometry.grid.x, 16u);
  EXPECT_EQ(got.geometry.grid.y, 32u);
  EXPECT_EQ(got.geometry.block.x, 256u);
  EXPECT_EQ(got.geometry.cluster.x, 2u);
  EXPECT_EQ(got.geometry.dynamic_smem_bytes, 100000u);
  EXPECT_FALSE(got.geometry.persistent);
  EXPECT_EQ(got.atol, 0.25);
  EXPECT_EQ(got.rtol, 2e-3);
  EXPECT_EQ(got.warmup, 1);
  EXPECT_EQ(got.runs, 2);
  EXPECT_EQ(got.iters, 3);
  EXPECT_TRUE(got.pair_with_cublas);
  EXPECT_FALSE(round_trip(MeasureRequest{}).pair_with_cublas);
  // The cubin travels as MessagePack binary, not as an array of numbers.
  EXPECT_TRUE(to_json_message(m)["cubin"].is_binary());
}

// Protocol 4: the L2 mode, the noise target, the screen and the best time it compares against.
TEST(WorkerProtocol, MeasureSamplingAndScreen) {
  const auto plain = round_trip(MeasureRequest{});
  EXPECT_EQ(plain.l2, L2Mode::warm);
  EXPECT_FALSE(plain.noise_stop);
  EXPECT_FALSE(plain.screen);
  EXPECT_FALSE(plain.screen_against_ms);

  MeasureRequest m;
  m.l2 = L2Mode::cold;
  m.noise_stop = NoiseStop{0.0025, 17, 2.5};
  m.screen = ScreenRule{1.75, 4};
  m.screen_against_ms = 0.0123456789;
  const auto got = round_trip(m);
  EXPECT_EQ(got.l2, L2Mode::cold);
  EXPECT_EQ(got.noise_stop, m.noise_stop);
  EXPECT_EQ(got.screen, m.screen);
  EXPECT_EQ(got.screen_against_ms, m.screen_against_ms);
  EXPECT_EQ(plain.batches, BatchEnqueue::stream);
  m.batches = BatchEnqueue::graph;
  EXPECT_EQ(round_trip(m).batches, BatchEnqueue::graph);

  nlohmann::json j = to_json_message(m);
  j["l2"] = "lukewarm";
  EXPECT_THROW(message_from_json(j), ProtocolError);
  j = to_json_message(m);
  j["batches"] = "carrier pigeon";
  EXPECT_THROW(message_from_json(j), ProtocolError);
  j = to_json_message(m);
  j.erase("batches");  // a field every request carries: an old coordinator is refused, not misread
  EXPECT_THROW(message_from_json(j), ProtocolError);
}

// A screened-out result keeps the screening launches' timing; every timing carries its noise, L2 mode and target.
TEST(WorkerProtocol, ScreenedOutResultAndTimingFields) {
  Measurement m;
  m.status = Status::screened_out;
  m.timing = TimingStats{2.5, 2.4, 2.7, 0, 3, 1};
  m.timing->noise = 0.0625;
  m.timing->l2 = L2Mode::cold;
  m.timing->batches = BatchEnqueue::graph;
  m.error = sample_errors();
  m.message = "screened out";
  const auto r = round_trip(ResultReply{m});
  EXPECT_EQ(r.measurement.status, Status::screened_out);
  ASSERT_TRUE(r.measurement.timing);
  expect_equal(*r.measurement.timing, *m.timing);

  m.status = Status::ok;
  m.timing->noise_target = 0.005;
  m.timing->runs = 37;
  const auto sampled = round_trip(ResultReply{m});
  ASSERT_TRUE(sampled.measurement.timing);
  expect_equal(*sampled.measurement.timing, *m.timing);
}

TEST(WorkerProtocol, MeasurePersistentGeometry) {
  MeasureRequest m;
  m.lowered_name = "k";
  m.geometry = LaunchGeometry{{4096, 1, 1}, {384, 1, 1}, {2, 1, 1}, 200704, true, 512, true};
  const auto got = round_trip(m);
  EXPECT_TRUE(got.geometry.persistent);
  EXPECT_TRUE(got.geometry.dependent_launch);
  EXPECT_FALSE(round_trip(MeasureRequest{}).geometry.dependent_launch);
  EXPECT_EQ(got.geometry.balanced_units, 512u);
  EXPECT_EQ(got.geometry.grid.x, 4096u);
  EXPECT_EQ(got.geometry.cluster.x, 2u);
  EXPECT_EQ(got.geometry.dynamic_smem_bytes, 200704u);

  // Coordinator and worker come from one build: a geometry without the field is refused, not read as false.
  nlohmann::json j = to_json_message(m);
  j["geometry"].erase("persistent");
  EXPECT_THROW(message_from_json(j), ProtocolError);
  j["geometry"]["persistent"] = 1;
  EXPECT_THROW(message_from_json(j), ProtocolError);
}

TEST(WorkerProtocol, VerifiedAndResult) {
  const auto v = round_trip(VerifiedReply{Status::incorrect, sample_errors(), 0.125, "3 elements differ"});
  EXPECT_EQ(v.status, Status::incorrect);
  ASSERT_TRUE(v.error);
  expect_equal(*v.error, sample_errors());
  EXPECT_EQ(v.first_launch_ms, 0.125);
  EXPECT_EQ(v.message, "3 elements differ");

  EXPECT_EQ(v.settled_ms, 0);

  const auto bare = round_trip(VerifiedReply{Status::launch_failed, std::nullopt, 0, "refused"});
  EXPECT_FALSE(bare.error);
  EXPECT_EQ(round_trip(VerifiedReply{Status::ok, std::nullopt, 0.5, "", 201.5}).settled_ms, 201.5);

  Measurement m;
  m.status = Status::ok;
  m.timing = sample_timing();
  m.error = sample_errors();
  m.sm_clock_mhz = 1980;
  const auto r = round_trip(ResultReply{m});
  EXPECT_EQ(r.measurement.status, Status::ok);
  ASSERT_TRUE(r.measurement.timing);
  expect_equal(*r.measurement.timing, sample_timing());
  ASSERT_TRUE(r.measurement.error);
  expect_equal(*r.measurement.error, sample_errors());
  EXPECT_EQ(r.measurement.sm_clock_mhz, 1980);
  EXPECT_FALSE(r.measurement.paired_cublas);
  m.paired_cublas = TimingStats{0.75, 0.5, 1.0, 3, 5, 20};
  const auto paired = round_trip(ResultReply{m});
  ASSERT_TRUE(paired.measurement.paired_cublas);
  expect_equal(*paired.measurement.paired_cublas, *m.paired_cublas);

  Measurement fault;
  fault.status = Status::runtime_fault;
  fault.message = "CUDA_ERROR_ILLEGAL_ADDRESS";
  const auto f = round_trip(ResultReply{fault});
  EXPECT_EQ(f.measurement.status, Status::runtime_fault);
  EXPECT_FALSE(f.measurement.timing);
  EXPECT_FALSE(f.measurement.error);
  EXPECT_EQ(f.measurement.message, fault.message);
}

TEST(WorkerProtocol, TimeInterleaved) {
  TimeInterleavedRequest m;
  for (int k = 0; k < 3; ++k) {
    InterleavedKernel kernel;
    kernel.family = k == 2 ? "" : "wmma";
    kernel.params = Params{{"BM", std::int64_t{64 << k}}};
    for (int i = 0; i < 1000; ++i) kernel.cubin.push_back(static_cast<char>(i * (k + 3)));
    kernel.lowered_name = "kernel" + std::to_string(k);
    kernel.geometry = LaunchGeometry{{16u + k, 8, 1}, {128, 1, 1}, {1, 1, 1}, 4096, k == 1, 0};
    kernel.expected_ms = 0.5 + k;
    m.kernels.push_back(kernel);
  }
  m.atol = 0.25;
  m.rtol = 2e-3;
  m.warmup = 7;
  m.rounds = 11;
  m.iters = 13;
  m.cublaslt = false;
  m.graphs = true;
  m.settle_ms = 750;
  const auto got = round_trip(m);
  ASSERT_EQ(got.kernels.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(got.kernels[k].family, m.kernels[k].family);
    EXPECT_EQ(got.kernels[k].params, m.kernels[k].params);
    EXPECT_EQ(got.kernels[k].cubin, m.kernels[k].cubin);
    EXPECT_EQ(got.kernels[k].lowered_name, m.kernels[k].lowered_name);
    EXPECT_EQ(got.kernels[k].geometry.grid.x, m.kernels[k].geometry.grid.x);
    EXPECT_EQ(got.kernels[k].geometry.persistent, m.kernels[k].geometry.persistent);
    EXPECT_EQ(got.kernels[k].expected_ms, m.kernels[k].expected_ms);
  }
  EXPECT_EQ(got.atol, 0.25);
  EXPECT_EQ(got.rtol, 2e-3);
  EXPECT_EQ(got.warmup, 7);
  EXPECT_EQ(got.rounds, 11);
  EXPECT_EQ(got.iters, 13);
  EXPECT_FALSE(got.cublaslt);
  EXPECT_TRUE(got.graphs);
  EXPECT_EQ(got.settle_ms, 750);
  EXPECT_EQ(round_trip(TimeInterleavedRequest{}).settle_ms, 0);  // no untimed rounds unless asked for
  EXPECT_TRUE(round_trip(TimeInterleavedRequest{}).cublaslt);    // asked for by default
  EXPECT_FALSE(round_trip(TimeInterleavedRequest{}).graphs);     // batches from the host by default
  EXPECT_TRUE(to_json_message(m)["kernels"][0]["cubin"].is_binary());
  EXPECT_EQ(message_type(m), "time_interleaved");

  InterleavedReply r;
  InterleavedKernelResult ok;
  ok.error = sample_errors();
  ok.samples = {{0, 0, 1.25}, {1, 2, 1.5}, {2, 1, 1.125}};
  ok.timing = sample_timing();
  InterleavedKernelResult dropped;
  dropped.status = Status::launch_failed;
  dropped.message = "too many resources requested";
  dropped.samples = {{0, 1, 2.0}};
  r.kernels = {ok, dropped};
  r.cublas = {{0, 2, 1.0}, {1, 0, 1.0625}, {2, 0, 0.9375}};
  r.cublas_timing = TimingStats{1.0, 0.9375, 1.0625, 7, 3, 13};
  r.cublaslt = {{0, 3, 0.875}, {1, 1, 0.90625}, {2, 3, 0.8125}};
  r.cublaslt_timing = TimingStats{0.875, 0.8125, 0.90625, 7, 3, 13};
  r.sm_clock_mhz = 1755;
  r.graphs = true;
  r.settled_ms = 1003.5;
  r.settle_rounds = 7;
  r.context_lost = true;
  const auto back = round_trip(r);
  ASSERT_EQ(back.kernels.size(), 2u);
  EXPECT_EQ(back.kernels[0].status, Status::ok);
  ASSERT_TRUE(back.kernels[0].error);
  expect_equal(*back.kernels[0].error, sample_errors());
  EXPECT_EQ(back.kernels[0].samples, ok.samples);
  ASSERT_TRUE(back.kernels[0].timing);
  expect_equal(*back.kernels[0].timing, sample_timing());
  EXPECT_EQ(back.kernels[1].status, Status::launch_failed);
  EXPECT_EQ(back.kernels[1].message, dropped.message);
  EXPECT_FALSE(back.kernels[1].error);
  EXPECT_FALSE(back.kernels[1].timing);
  EXPECT_EQ(back.kernels[1].samples, dropped.samples);
  EXPECT_EQ(back.cublas, r.cublas);
  ASSERT_TRUE(back.cublas_timing);
  expect_equal(*back.cublas_timing, *r.cublas_timing);
  EXPECT_EQ(back.cublaslt, r.cublaslt);
  ASSERT_TRUE(back.cublaslt_timing);
  expect_equal(*back.cublaslt_timing, *r.cublaslt_timing);
  EXPECT_EQ(back.cublaslt_message, "");
  EXPECT_EQ(back.sm_clock_mhz, 1755);
  EXPECT_TRUE(back.graphs);
  EXPECT_EQ(back.graphs_message, "");
  EXPECT_EQ(back.settled_ms, 1003.5);
  EXPECT_EQ(back.settle_rounds, 7);
  EXPECT_TRUE(back.context_lost);
  EXPECT_EQ(message_type(r), "interleaved");

  // A sample that is not [round, position, ms] is refused.
  nlohmann::json j = to_json_message(r);
  j["cublas"][0] = nlohmann::json::array({0, 1});
  EXPECT_THROW(message_from_json(j), ProtocolError);

  // Without cuBLASLt in the rounds: no samples, no timing, and why.
  InterleavedReply without;
  without.kernels = {ok};
  without.cublas = r.cublas;
  without.cublaslt_message = "not asked for";
  without.graphs_message = "cuBLAS could not be captured as a graph (x): batches enqueued from the host";
  const auto plain = round_trip(without);
  EXPECT_FALSE(plain.graphs);
  EXPECT_EQ(plain.settled_ms, 0);
  EXPECT_EQ(plain.graphs_message, without.graphs_message);
  EXPECT_TRUE(plain.cublaslt.empty());
  EXPECT_FALSE(plain.cublaslt_timing);
  EXPECT_EQ(plain.cublaslt_message, "not asked for");
  EXPECT_EQ(plain.cublas, r.cublas);
}

// A Williams square: with E entries, over E rounds (2E when E is odd) every entry holds every position equally
// often and follows every other entry equally often (the rotation before it kept the cyclic order, so cuBLAS always
// ran right after the same kernel). Dropped entries are skipped; negative (untimed) rounds are permutations too.
TEST(WorkerProtocol, InterleavedOrderBalancesPositionsAndPredecessors) {
  for (int entries = 1; entries <= 9; ++entries) {
    const std::vector<bool> all(static_cast<std::size_t>(entries), true);
    const int rounds = entries % 2 == 0 ? entries : 2 * entries;
    const auto n = static_cast<std::size_t>(entries);
    std::vector<std::vector<int>> at(n, std::vector<int>(n, 0));     // at[entry][position]
    std::vector<std::vector<int>> after(n, std::vector<int>(n, 0));  // after[entry][predecessor]
    for (int r = 0; r < rounds; ++r) {
      const auto order = interleaved_order(r, all);
      ASSERT_EQ(order.size(), n);
      EXPECT_EQ(std::set<int>(order.begin(), order.end()).size(), n) << entries << " entries, round " << r;
      for (std::size_t p = 0; p < n; ++p) {
        ++at[static_cast<std::size_t>(order[p])][p];
        if (p > 0) ++after[static_cast<std::size_t>(order[p])][static_cast<std::size_t>(order[p - 1])];
      }
      EXPECT_EQ(interleaved_order(r + 2 * entries * 3, all), order);  // periodic in 2E rounds
      const auto untimed = interleaved_order(-1 - r, all);
      EXPECT_EQ(std::set<int>(untimed.begin(), untimed.end()).size(), n);
    }
    const int per_position = rounds / entries;
    const int per_pair = entries > 1 ? rounds * (entries - 1) / (entries * (entries - 1)) : 0;
    for (std::size_t e = 0; e < n; ++e)
      for (std::size_t x = 0; x < n; ++x) {
        EXPECT_EQ(at[e][x], per_position) << entries << " entries: " << e << " at position " << x;
        if (x != e) {
          EXPECT_EQ(after[e][x], per_pair) << entries << " entries: " << e << " after " << x;
        }
      }
  }
  // The first rounds of a wide re-rank (66 entries, 20 rounds): cuBLAS (64) never follows the same entry twice.
  const std::vector<bool> wide(66, true);
  std::set<int> before_cublas;
  for (int r = 0; r < 20; ++r) {
    const auto order = interleaved_order(r, wide);
    const auto at = std::find(order.begin(), order.end(), 64);
    if (at != order.begin()) {
      EXPECT_TRUE(before_cublas.insert(*(at - 1)).second) << "round " << r;
    }
  }
  const std::vector<bool> one_out{true, false, true, true, true};
  for (int r = 0; r < 10; ++r) {
    const auto order = interleaved_order(r, one_out);
    EXPECT_EQ(std::set<int>(order.begin(), order.end()), (std::set<int>{0, 2, 3, 4}));
  }
  EXPECT_EQ(interleaved_order(0, std::vector<bool>(4, true)), (std::vector<int>{0, 1, 3, 2}));
  EXPECT_TRUE(interleaved_order(0, {}).empty());
}

TEST(WorkerProtocol, ErrorAndShutdown) {
  const auto e = round_trip(ErrorReply{ErrorKind::cuda, 2, "out of memory", false});
  EXPECT_EQ(e.kind, ErrorKind::cuda);
  EXPECT_EQ(e.code, 2);
  EXPECT_EQ(e.message, "out of memory");
  EXPECT_FALSE(e.fatal);
  for (ErrorKind k :
       {ErrorKind::no_device, ErrorKind::cublas, ErrorKind::bad_request, ErrorKind::protocol, ErrorKind::internal})
    EXPECT_EQ(round_trip(ErrorReply{k, 0, "", true}).kind, k);
  round_trip(ShutdownRequest{});
}

// The worker's account crosses whole: every count and every phase's seconds.
TEST(WorkerProtocol, AccountRequestAndReply) {
  round_trip(AccountRequest{});
  WorkerPhases p;
  p.measurements = 312;
  p.shapes = 5;
  p.reranks = 4;
  p.idle_settles = 2;
  p.waiting_s = 1.5;
  p.setup_s = 2.25;
  p.verifying_s = 3.5;
  p.timing_s = 13.75;
  p.replying_s = 0.125;
  p.preparing_s = 8.5;
  p.reranking_s = 20.25;
  p.settling_s = 1.75;
  p.keeping_warm_s = 120.5;
  p.idle_settling_s = 0.625;
  const WorkerPhases q = round_trip(AccountReply{p}).phases;
  EXPECT_EQ(q.summary(), p.summary());
  EXPECT_EQ(q.total_s(), p.total_s());
  EXPECT_EQ(q.measurements, 312);
  EXPECT_EQ(q.shapes, 5);
  EXPECT_EQ(q.reranks, 4);
  EXPECT_EQ(q.idle_settles, 2);
  EXPECT_EQ(q.timing_s, 13.75);
  EXPECT_EQ(q.keeping_warm_s, 120.5);
  EXPECT_EQ(message_type(AccountReply{}), "worker_account");
  EXPECT_EQ(message_type(AccountRequest{}), "account");
}

TEST(WorkerProtocol, FrameIsLittleEndianLengthPlusMsgpack) {
  const auto frame = encode_frame(ShutdownRequest{});
  ASSERT_GE(frame.size(), 4u);
  const std::uint32_t size = frame[0] | frame[1] << 8 | frame[2] << 16 | static_cast<std::uint32_t>(frame[3]) << 24;
  EXPECT_EQ(size, frame.size() - 4);
  const auto j = nlohmann::json::from_msgpack(frame.begin() + 4, frame.end());
  EXPECT_EQ(j["type"], "shutdown");
}

TEST(WorkerProtocol, ReaderReassemblesByteByByte) {
  std::vector<std::uint8_t> stream;
  for (const Message& m : {Message{HelloRequest{}}, Message{ShutdownRequest{}}, Message{PrepareShapeRequest{}}}) {
    const auto f = encode_frame(m);
    stream.insert(stream.end(), f.begin(), f.end());
  }
  FrameReader reader;
  std::vector<std::string> types;
  for (std::uint8_t byte : stream) {
    reader.append({&byte, 1});
    while (auto m = reader.next()) types.emplace_back(message_type(*m));
  }
  EXPECT_EQ(types, (std::vector<std::string>{"hello", "shutdown", "prepare_shape"}));
  EXPECT_EQ(reader.pending_bytes(), 0u);
}

TEST(WorkerProtocol, TruncatedFrameIsAnError) {
  const auto frame = encode_frame(HelloRequest{});
  for (std::size_t cut : {std::size_t{0}, std::size_t{2}, std::size_t{4}, frame.size() - 1}) {
    const std::vector<std::uint8_t> part(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_THROW(decode_frame(part), ProtocolError) << cut;
    FrameReader reader;
    reader.append(part);
    EXPECT_FALSE(reader.next());
    EXPECT_EQ(reader.pending_bytes(), cut);
  }
  auto extra = frame;
  extra.push_back(0);
  EXPECT_THROW(decode_frame(extra), ProtocolError);
}

TEST(WorkerProtocol, MalformedFramesAreErrors) {
  // Oversized length.
  EXPECT_THROW(decode_frame(std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0xff, 0}), ProtocolError);
  // Not MessagePack (0xc1 is never used).
  EXPECT_THROW(decode_frame(std::vector<std::uint8_t>{1, 0, 0, 0, 0xc1}), ProtocolError);

  const auto frame_of = [](const nlohmann::json& j) {
    const auto payload = nlohmann::json::to_msgpack(j);
    std::vector<std::uint8_t> f{static_cast<std::uint8_t>(payload.size()), 0, 0, 0};
    f.insert(f.end(), payload.begin(), payload.end());
    return f;
  };
  EXPECT_THROW(decode_frame(frame_of(nlohmann::json::array({1, 2}))), ProtocolError);  // not an object
  EXPECT_THROW(decode_frame(frame_of({{"type", "launch_missiles"}})), ProtocolError);  // unknown type
  EXPECT_THROW(decode_frame(frame_of({{"type", "hello"}})), ProtocolError);            // missing fields
  EXPECT_THROW(decode_frame(frame_of({{"type", "hello"}, {"protocol", "one"}, {"device_ordinal", 0}})),
               ProtocolError);  // wrong field type
  auto verified = to_json_message(VerifiedReply{});
  verified["status"] = "splendid";
  EXPECT_THROW(decode_frame(frame_of(verified)), ProtocolError);  // unknown status
  auto error = to_json_message(ErrorReply{});
  error["kind"] = "gremlins";
  EXPECT_THROW(decode_frame(frame_of(error)), ProtocolError);
}

}  // namespace
}  // namespace mpgemm
