// Result keys decide when a stored outcome is reused (issue item 10: stale results). The same inputs must give the
// same key, in any process; anything that can change a measurement must give a new one.
#include <gtest/gtest.h>

#include <fstream>

#include "codegen/family.hpp"
#include "compile/nvrtc_compile.hpp"
#include "support/run_command.hpp"
#include "tune/keys.hpp"

namespace mpgemm {
namespace {

Params cp_async_params() {
  return Params{{"BM", std::int64_t{128}},         {"BN", std::int64_t{64}},   {"BK", std::int64_t{32}},
                {"WM", std::int64_t{32}},          {"WN", std::int64_t{32}},   {"STAGES", std::int64_t{2}},
                {"LOAD", std::string("cp_async")}, {"PAD_A", std::int64_t{8}}, {"PAD_B", std::int64_t{8}}};
}

Candidate candidate(const Params& p = cp_async_params()) {
  return Candidate{"wmma", p, family("wmma").config_name(p), std::nullopt};
}

DeviceDescription h200() {
  DeviceDescription d;
  d.name = "NVIDIA H200";
  d.arch = *Arch::parse("sm_90");
  d.sm_count = 132;
  d.driver_version = "13.0";
  d.runtime_version = "13.0";
  d.cublas_version = "13.1.0";
  return d;
}

// Everything result_key takes, as one value to vary one field at a time.
struct Inputs {
  Candidate c = candidate();
  std::string compile_key = "0123456789abcdef";
  DeviceDescription device = h200();
  Shape shape{2048, 2048, 2048};
  ProblemKind kind;
  MeasureSettings settings;
  std::string key() const { return result_key(c, compile_key, device, GemmProblem{shape, kind}, settings); }
};

TEST(TuneKeys, SameInputsGiveTheSameKey) {
  const Inputs a, b;
  EXPECT_EQ(a.key(), b.key());
  EXPECT_EQ(a.key().size(), 16u);
  // Pinned: keys are stored, so a change of the hash or of what it covers silently invalidates every
  // database. Update this value only together with a note that existing results will be measured again.
  // History: "fe3f3f157c5c17f6" until the key took in kMeasureProtocolVersion (1); databases recorded before
  // that are measured again once. "215d5433d6f101a0" until measure protocol 2 and the L2 mode, noise target and
  // screen in the key (GPU-side verification, --l2, --noise-target, the quick screen). "a06a9c640146cf2f" until
  // measure protocol 3 (the warm screen's launches as one batch; dependent launches verified overlapping).
  // "a06a9b640146cd7c" until measure protocol 4 (the screen compared with the fastest screen on the shape).
  // "a06a9a640146cbc9" until measure protocol 5 (graphs uploaded before their first timed replay).
  EXPECT_EQ(a.key(), "a06a99640146ca16");
  // (That another process derives the same keys is checked end to end: tests/reliability/tune_replay_test.cpp
  // compares the keys this code computes with those mpgemm-tune records.)
}

TEST(TuneKeys, NamesOfPointsDoNotMatter) {
  const Inputs plain;
  Inputs named;
  named.c.alias = "wmma_cp_async";  // a space calling the same config by a point name measures the same thing
  EXPECT_EQ(named.key(), plain.key());
}

TEST(TuneKeys, SkippingCublasLtDoesNotMeasureAgain) {
  const Inputs with;
  Inputs without;
  without.settings.cublaslt = false;  // --no-cublaslt changes the references beside a result, not the result
  EXPECT_EQ(without.key(), with.key());
}

TEST(TuneKeys, EverythingThatDeterminesAResultChangesTheKey) {
  std::vector<std::pair<std::string, Inputs>> variants;
  auto vary = [&](std::string what, auto change) {
    Inputs in;
    change(in);
    variants.emplace_back(std::move(what), in);
  };
  vary("nothing", [](Inputs&) {});
  auto with = [](const std::string& name, Value v) {
    Params p = cp_async_params();
    p[name] = std::move(v);
    return candidate(p);
  };
  vary("a parameter", [&](Inputs& in) { in.c = with("STAGES", std::int64_t{3}); });
  vary("a string parameter", [&](Inputs& in) { in.c = with("LOAD", std::string("sync")); });
  vary("the family", [](Inputs& in) { in.c.family = "wmma2"; });
  vary("the compile key (source, options, arch, NVRTC)", [](Inputs& in) { in.compile_key = "fedcba9876543210"; });
  vary("the device", [](Inputs& in) { in.device.name = "NVIDIA H100 80GB HBM3"; });
  vary("the device arch", [](Inputs& in) { in.device.arch = *Arch::parse("sm_90a"); });
  vary("the driver", [](Inputs& in) { in.device.driver_version = "13.1"; });
  vary("cuBLAS", [](Inputs& in) { in.device.cublas_version = "13.2.0"; });
  vary("M", [](Inputs& in) { in.shape.m = 4096; });
  vary("N", [](Inputs& in) { in.shape.n = 4096; });
  vary("K", [](Inputs& in) { in.shape.k = 4096; });
  vary("M and N swapped", [](Inputs& in) { in.shape = Shape{1024, 4096, 2048}; });
  vary("N and M swapped", [](Inputs& in) { in.shape = Shape{4096, 1024, 2048}; });
  // Every field of the problem's kind (issue 58); the default kind adds nothing (the pinned key above).
  vary("A stored K x M", [](Inputs& in) { in.kind.a = ALayout::km; });
  vary("B stored N x K", [](Inputs& in) { in.kind.b = BLayout::nk; });
  vary("BF16 operands", [](Inputs& in) { in.kind.in = ElementType::bf16; });
  vary("FP16 output", [](Inputs& in) { in.kind.out = ElementType::fp16; });
  vary("BF16 output", [](Inputs& in) { in.kind.out = ElementType::bf16; });
  vary("beta read", [](Inputs& in) { in.kind.beta = true; });
  vary("a linear layer's kind", [](Inputs& in) { in.kind = *ProblemKind::parse("mk_nk_bf16_bf16"); });
  vary("atol", [](Inputs& in) { in.settings.atol = 0.25; });
  vary("rtol", [](Inputs& in) { in.settings.rtol = 2e-3; });
  vary("rtol by one part in 1e8", [](Inputs& in) { in.settings.rtol = 1.00000001e-3; });
  vary("atol and rtol swapped", [](Inputs& in) { std::swap(in.settings.atol, in.settings.rtol); });
  vary("warmup", [](Inputs& in) { in.settings.warmup = 4; });
  vary("runs", [](Inputs& in) { in.settings.runs = 7; });
  vary("iters", [](Inputs& in) { in.settings.iters = 10; });
  vary("runs and iters swapped", [](Inputs& in) { std::swap(in.settings.runs, in.settings.iters); });
  vary("cold L2", [](Inputs& in) { in.settings.l2 = L2Mode::cold; });
  vary("graph batches", [](Inputs& in) { in.settings.batches = BatchEnqueue::graph; });
  vary("a noise target", [](Inputs& in) { in.settings.noise_stop = NoiseStop{}; });
  vary("another noise target", [](Inputs& in) { in.settings.noise_stop = NoiseStop{0.01, 10, 10}; });
  vary("the noise minimum", [](Inputs& in) { in.settings.noise_stop = NoiseStop{0.005, 20, 10}; });
  vary("the noise time cap", [](Inputs& in) { in.settings.noise_stop = NoiseStop{0.005, 10, 20}; });
  vary("no screen", [](Inputs& in) { in.settings.screen.reset(); });
  vary("the screen threshold", [](Inputs& in) { in.settings.screen = ScreenRule{2.0, 3}; });
  vary("the screen launches", [](Inputs& in) { in.settings.screen = ScreenRule{1.5, 5}; });
  vary("settling", [](Inputs& in) { in.settings.settle_ms = 1000; });
  vary("a longer settling", [](Inputs& in) { in.settings.settle_ms = 2000; });
  vary("keeping warm", [](Inputs& in) { in.settings.hold.keep_warm_ms = 5000; });
  vary("settling after idle", [](Inputs& in) { in.settings.hold.idle_settle_ms = 200; });
  vary("both", [](Inputs& in) { in.settings.hold = ClockHold{5000, 200}; });

  std::map<std::string, std::string> seen;  // key -> what produced it
  for (const auto& [what, in] : variants) {
    auto [it, fresh] = seen.emplace(in.key(), what);
    EXPECT_TRUE(fresh) << "changing " << what << " gives the key of changing " << it->second;
  }
}

TEST(TuneKeys, WhatFollowsFromTheDeviceIsNotPartOfTheKey) {
  // The shared memory opt-in follows from the device (name and arch), and replays do not know it: a key that
  // covered it would never match between a GPU run and a replay of it.
  const Inputs plain;
  Inputs known;
  known.device.smem_per_block_optin = 232448;
  EXPECT_EQ(known.key(), plain.key());
}

TEST(TuneKeys, FieldsDoNotRunIntoEachOther) {
  // Moving text from one field to the next must not give the same key.
  Inputs a, b;
  a.device.name = "NVIDIA H2";
  a.device.driver_version = "013.0";
  b.device.name = "NVIDIA H20";
  b.device.driver_version = "13.0";
  EXPECT_NE(a.key(), b.key());
  a = b = Inputs{};
  a.device.driver_version = "13.013.1.0";
  a.device.cublas_version = "";
  b.device.driver_version = "13.0";
  b.device.cublas_version = "13.1.0";
  EXPECT_NE(a.key(), b.key());
}

TEST(TuneKeys, SourceHashFollowsTheKernelSourceNotTheTarget) {
  const Family& fam = family("wmma");
  const KernelSpec spec90 = fam.kernel_spec(cp_async_params(), *Arch::parse("sm_90"));
  const KernelSpec spec86 = fam.kernel_spec(cp_async_params(), *Arch::parse("sm_86"));
  // Deterministic, and one config row serves every arch: the arch is in the compile key instead.
  EXPECT_EQ(source_hash(spec90), source_hash(fam.kernel_spec(cp_async_params(), *Arch::parse("sm_90"))));
  EXPECT_EQ(source_hash(spec90), source_hash(spec86));
  EXPECT_NE(compile_key(spec90), compile_key(spec86));
  EXPECT_EQ(compile_key(spec90), compile_key(fam.kernel_spec(cp_async_params(), *Arch::parse("sm_90"))));

  // Another config instantiates another template.
  auto p = cp_async_params();
  p["BK"] = std::int64_t{64};
  EXPECT_NE(source_hash(fam.kernel_spec(p, *Arch::parse("sm_90"))), source_hash(spec90));

  KernelSpec edited = spec90;
  edited.source += "\n// an edit\n";
  EXPECT_NE(source_hash(edited), source_hash(spec90));
  edited = spec90;
  edited.name_expression += " ";
  EXPECT_NE(source_hash(edited), source_hash(spec90));
}

TEST(TuneKeys, SourceHashFollowsTheHeadersOfTheIncludeDirs) {
  // Like compile_key (tests/unit/compile_includes_test.cpp): a header found through spec.include_dirs counts by
  // its content, wherever it lies.
  const auto dir = testing::fresh_dir("source_hash_headers");
  for (const char* variant : {"a", "b", "c"}) {
    std::filesystem::create_directories(dir / variant);
    std::ofstream(dir / variant / "mp_header.h") << (variant == std::string("b") ? "int b;\n" : "int a;\n");
  }
  auto spec = [&](const char* variant) {
    KernelSpec s;
    s.source = "#include <mp_header.h>\n";
    s.name_expression = "k";
    s.include_dirs = {(dir / variant).string()};
    return s;
  };
  EXPECT_NE(source_hash(spec("a")), source_hash(spec("b")));
  EXPECT_EQ(source_hash(spec("a")), source_hash(spec("c")));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm
