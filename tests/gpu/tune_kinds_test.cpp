// On an sm_90 GPU, the problem kinds of issue 58 (and issue 60's fused epilogues) end to end through mpgemm-tune
// --problem: the Hopper family's named
// points compute each kind a linear layer and its backward pass run (B stored N x K, BF16 and FP16 in, 16-bit and FP32
// out, C read) and verify against cuBLAS computing the same kind, on poisoned output, at a ragged shape, a skinny one
// and a square one. A config the family cannot build for a kind is refused with its reason (constraint_rejected),
// never run; none is incorrect. Skipped, with the reason, without a device or on a GPU that is not sm_90.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "device/query.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

constexpr const char* kPoints =
    "wgmma_tile128,wgmma_ws128x256,wgmma_persistent,wgmma_cluster,wgmma_tma_store,wgmma_pingpong";

std::string text(const report::Cell& c) {
  auto* s = std::get_if<std::string>(&c);
  return s ? *s : "";
}

class TuneKinds : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string why;
    if (!device_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    const DeviceInfo info = query_device();
    if (info.arch.cc() != 90) GTEST_SKIP() << "the wgmma family needs an sm_90 GPU; this is " << info.arch.str();
    dir_ = fresh_dir(std::string("tune_kinds_") + GetParam());
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  // Tunes `space`'s configs `only` at `shapes` as the parameter's kind (no screening, no re-rank) and checks each of
  // the `rows` measurements: of that kind, ok or constraint_rejected with its reason, an ok one with no element
  // beyond the tolerance. Returns how many are ok.
  int verified(const std::string& space, const std::string& only, const std::string& shapes, std::size_t rows) {
    const std::string kind = GetParam();
    const std::string db = (dir_ / "t.db").string();
    const auto r =
        run_command(fmt::format("cd {} && {} {} --only {} --shapes {} --problem {} --no-screen --rerank 0 --db {}",
                                MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), space, only, shapes, kind, db));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return 0;
    Store st = Store::open(db, Store::Mode::read_only);
    const auto t = st.query_sql(
        "SELECT COALESCE(c.alias, c.name), m.M, m.N, m.K, m.status, m.message, m.bad_count, m.problem "
        "FROM measurements m JOIN configs c ON c.id = m.config_id ORDER BY m.id");
    EXPECT_EQ(t.rows.size(), rows) << r.output;
    int ok = 0;
    for (const auto& row : t.rows) {
      const std::string where =
          fmt::format("{} at {}x{}x{} ({}): {}", text(row[0]), std::get<std::int64_t>(row[1]),
                      std::get<std::int64_t>(row[2]), std::get<std::int64_t>(row[3]), text(row[7]), text(row[5]));
      EXPECT_EQ(text(row[7]), kind) << where;
      const std::string status = text(row[4]);
      EXPECT_TRUE(status == "ok" || status == "constraint_rejected") << status << ": " << where;
      if (status == "constraint_rejected") {
        EXPECT_FALSE(text(row[5]).empty()) << where;
      }
      if (status != "ok") continue;
      ++ok;
      EXPECT_EQ(std::get<std::int64_t>(row[6]), 0) << where;
    }
    return ok;
  }
  std::filesystem::path dir_;
};

TEST_P(TuneKinds, NamedPointsVerifyAgainstCublasComputingTheSameKind) {
  EXPECT_GE(verified("configs/sm90a.json", kPoints, "777x1240x520,128x4096x2048,2048x2048x2048", 18), 6)
      << "at least two points verify at each shape";
}

// Split-K (mode all and tail, swapped and not) and stream-K with a 16-bit D: the slices add in FP32 in the
// workspace, and only each tile's last slice writes D (and with beta, the first reads C). Shapes where tiles are
// split: skinny M with long K (every tile split, all and swapped), a square with a partial last wave (tail, stream),
// a ragged one (edges of split tiles).
constexpr const char* kSplitConfigs =
    "=wgmma_bm128_bn256_bk64_s4_c2_coop_cl2x1_m8_direct_pers_sk4t,"
    "=wgmma_bm16_bn64_bk64_s12_c1_coop_cl1x1_m8_direct_pers_sk2_swab,"
    "=wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers_stk,"
    "=wgmma_bm128_bn128_bk64_s7_c2_pingpong_cl1x1_m8_direct_pers_stk";

TEST_P(TuneKinds, SplitKAndStreamKWithEveryOutputVerify) {
  EXPECT_GE(verified("configs/sm90a_suite.json", kSplitConfigs, "64x4096x8192,3000x3000x3000,777x1240x2056", 12), 9)
      << "split configs run at most shapes";
}

// The rows epilogue (whole lines of 4 columns per lane, after a transpose across the warp) and a swapped tile's single
// stores, at the same shapes.
constexpr const char* kRowsAndSwapConfigs =
    "=wgmma_bm128_bn64_bk64_s9_c2_coop_cl1x1_m8_rows_pers_l2p128_pdl,"
    "=wgmma_bm64_bn128_bk64_s9_c2_coop_cl1x1_m8_direct_pers_swab_l2p128";

TEST_P(TuneKinds, RowsEpilogueAndSwappedTilesVerify) {
  EXPECT_GE(verified("configs/sm90a_suite.json", kRowsAndSwapConfigs, "777x1240x520,128x4096x2048,2048x2048x2048", 6),
            3)
      << "the rows config verifies at every shape";
}

// A linear layer's forward (mk_nk) in BF16 and FP16 with 16-bit outputs, its backward dX (mk_kn, BF16 out), an FP32
// output of BF16 operands, and C read in both output widths.
INSTANTIATE_TEST_SUITE_P(Kinds, TuneKinds,
                         ::testing::Values("mk_nk_bf16_bf16", "mk_nk_fp16_fp16", "mk_kn_bf16_bf16", "mk_nk_bf16_fp32",
                                           "mk_kn_fp16_fp32_beta", "mk_nk_bf16_bf16_beta"));

// Issue 60's fused epilogues through the same points and configs (every way out: direct, swapped, tma, rows, split-K's
// and stream-K's last slices), verified against cuBLAS's FP32 GEMM with the epilogue
// applied on the host: bias alone, ReLU, both GELU forms, a 16-bit and an FP32 output, and C read before the bias.
INSTANTIATE_TEST_SUITE_P(Epilogues, TuneKinds,
                         ::testing::Values("mk_nk_bf16_bf16_bias", "mk_nk_fp16_fp16_bias_relu",
                                           "mk_nk_bf16_bf16_bias_gelu_tanh", "mk_kn_fp16_fp32_bias_gelu",
                                           "mk_nk_bf16_bf16_beta_bias_gelu"));

}  // namespace
