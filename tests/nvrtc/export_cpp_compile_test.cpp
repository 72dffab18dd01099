// mpgemm-export --format cpp: the header it writes compiles with nvcc for every arch it names (each kernel only in
// its own arch's device pass, the Hopper kernel under sm_90a's feature macro), and for an arch it does not name
// (no kernels, nothing breaks). Needs nvcc (the toolkit), no GPU.
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "export/export_collect.hpp"
#include "export/export_cpp.hpp"
#include "support/export_fixture.hpp"
#include "support/kinds_fixture.hpp"
#include "support/old_database.hpp"
#include "support/run_command.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

// The kernels' mangled names start with these (they appear in a cubin's symbol table).
constexpr const char* kWgmmaSymbol = "_ZN6mpgemm10wgmma_gemm";
constexpr const char* kWmmaSymbol = "_ZN6mpgemm9wmma_gemm";

class ExportCpp : public testing::ExportDbTest {
 protected:
  // nvcc of a tiny program that includes the header and uses its host API, for one arch; returns nvcc's result.
  testing::CommandResult nvcc(const std::string& arch, const std::string& what, const std::filesystem::path& out) {
    return testing::run_command(fmt::format("{} -std=c++17 -I{} -I{} -arch={} {} {} -o {}", MPGEMM_NVCC,
                                            testing::source("kernels"), dir_.string(), arch, what,
                                            (dir_ / "use.cu").string(), out.string()));
  }
};

TEST_F(ExportCpp, HeaderCompilesForEveryArchItNamesAndOnlyInstantiatesThere) {
  const auto header = dir_ / "mpgemm_winners.hpp";
  const auto r = testing::run_command(
      fmt::format("{} {} --format cpp -o {}", testing::bin("mpgemm-export"), db_.string(), header.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = testing::read_file(header);
  EXPECT_NE(text.find("// Archs: sm_86 (wmma), sm_90 (wmma), sm_90a (wgmma)."), std::string::npos) << text;
  // The wmma winner serves two archs: instantiated once, in both device passes.
  EXPECT_NE(text.find("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 900\ntemplate "
                      "__global__ decltype(mpgemm::wmma_gemm<128, 64, 32, 32, 32, 2, 2, 8, 8>)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(__CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL))\n#include \"wgmma_gemm.cuh\""),
            std::string::npos)
      << text;

  std::ofstream(dir_ / "use.cu") << R"(#include "mpgemm_winners.hpp"
#include <cstdio>
int main() {
  const mpgemm_export::Winner* w = mpgemm_export::find(4096, 4096, 4096, "NVIDIA H200");
  if (w == nullptr || mpgemm_export::find(4096, 4096, 4097) != nullptr) return 1;
  cudaError_t (*launch)(const mpgemm_export::Winner&, const __half*, const __half*, float*, void*, cudaStream_t) =
      &mpgemm_export::launch;
  std::printf("%s %s %p\n", w->config, w->arch, reinterpret_cast<void*>(launch));
  return 0;
}
)";
  // Each named arch: the device code holds exactly its own kernels.
  struct Case {
    const char* arch;
    bool wgmma, wmma;
  };
  for (const Case c : {Case{"sm_90a", true, true}, Case{"sm_86", false, true}, Case{"sm_80", false, false}}) {
    const auto cubin = dir_ / fmt::format("use_{}.cubin", c.arch);
    const auto built = nvcc(c.arch, "-cubin", cubin);
    ASSERT_EQ(built.exit_code, 0) << c.arch << "\n" << built.output;
    const std::string code = testing::read_file(cubin);
    EXPECT_EQ(code.find(kWgmmaSymbol) != std::string::npos, c.wgmma) << c.arch;
    EXPECT_EQ(code.find(kWmmaSymbol) != std::string::npos, c.wmma) << c.arch;
  }
  // The whole program (host pass, launch stubs, the table, launch()) links for sm_90a plus sm_86 in one fatbin.
  const auto program = dir_ / "use";
  const auto linked = testing::run_command(fmt::format(
      "{} -std=c++17 -I{} -I{} -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_86,code=sm_86 {} -o {}",
      MPGEMM_NVCC, testing::source("kernels"), dir_.string(), (dir_ / "use.cu").string(), program.string()));
  ASSERT_EQ(linked.exit_code, 0) << linked.output;
  const auto ran = testing::run_command(program.string());  // find() and the table need no GPU
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find(WgmmaConfig{}.name() + " sm_90a"), std::string::npos) << ran.output;
}

// A program may include the header from several translation units: the kernels are explicit instantiations (one
// definition each, merged by the linker like any template's), everything else is inline.
TEST_F(ExportCpp, TheHeaderLinksIntoAProgramOfTwoTranslationUnits) {
  const auto header = dir_ / "mpgemm_winners.hpp";
  const auto r = testing::run_command(
      fmt::format("{} {} --format cpp -o {}", testing::bin("mpgemm-export"), db_.string(), header.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ofstream(dir_ / "one.cu") << R"(#include "mpgemm_winners.hpp"
const mpgemm_export::Winner* from_one() { return mpgemm_export::find(4096, 4096, 4096, "NVIDIA H200"); }
)";
  std::ofstream(dir_ / "two.cu") << R"(#include "mpgemm_winners.hpp"
#include <cstdio>
const mpgemm_export::Winner* from_one();
int main() {
  const mpgemm_export::Winner* here = mpgemm_export::find(4096, 4096, 4096, "NVIDIA H200");
  if (here == nullptr || here != from_one() || here->kernel != from_one()->kernel) return 1;
  std::printf("%s\n", here->config);
  return 0;
}
)";
  const std::string flags = fmt::format("-std=c++17 -I{} -I{} -gencode arch=compute_90a,code=sm_90a",
                                        testing::source("kernels"), dir_.string());
  for (const char* tu : {"one", "two"}) {
    const auto built = testing::run_command(fmt::format("{} {} -c {} -o {}", MPGEMM_NVCC, flags,
                                                        (dir_ / fmt::format("{}.cu", tu)).string(),
                                                        (dir_ / fmt::format("{}.o", tu)).string()));
    ASSERT_EQ(built.exit_code, 0) << tu << "\n" << built.output;
  }
  const auto program = dir_ / "two_units";
  const auto linked =
      testing::run_command(fmt::format("{} -gencode arch=compute_90a,code=sm_90a {} {} -o {}", MPGEMM_NVCC,
                                       (dir_ / "one.o").string(), (dir_ / "two.o").string(), program.string()));
  ASSERT_EQ(linked.exit_code, 0) << linked.output;
  const auto ran = testing::run_command(program.string());  // the table and find() need no GPU
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find(WgmmaConfig{}.name()), std::string::npos) << ran.output;
}

// A device name from a hostile database (issue 57): a newline and a directive, a quote and a backslash. The header
// compiles, its literal is the stored name byte for byte (find() matches it, not the name before the newline), and
// the directive never runs.
TEST_F(ExportCpp, AHostileDeviceNameCompilesAsTheSameBytes) {
  std::string sql;
  for (const char* table : {"runs", "measurements", "cublas_timings", "cublaslt_timings", "reranks"})
    sql += fmt::format(
        "UPDATE {} SET device_name = 'NVIDIA H200' || char(10) || '#error X \"\\' WHERE device_name = 'NVIDIA H200';",
        table);
  testing::raw_exec(db_, sql);
  const auto header = dir_ / "mpgemm_winners.hpp";
  const auto r = testing::run_command(
      fmt::format("{} {} --format cpp -o {}", testing::bin("mpgemm-export"), db_.string(), header.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ofstream(dir_ / "use.cu") << R"(#include "mpgemm_winners.hpp"
int main() {
  if (mpgemm_export::find(4096, 4096, 4096, "NVIDIA H200") != nullptr) return 1;
  return mpgemm_export::find(4096, 4096, 4096, "NVIDIA H200\n#error X \"\\") != nullptr ? 0 : 2;
}
)";
  const auto program = dir_ / "use";
  const auto built = nvcc("sm_90a", "", program);
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const auto ran = testing::run_command(program.string());  // find() and the table need no GPU
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
}

TEST_F(ExportCpp, TheTableCarriesTheFamilysGeometryAndTensorMaps) {
  const Store store = Store::open(db_, Store::Mode::read_only);
  std::map<std::string, std::int64_t> sm_counts;
  const ExportTable t = collect_export(store, ExportOptions{db_, testing::kH200}, &sm_counts);
  EXPECT_EQ(sm_counts.at(testing::kH200), 132);
  const std::string text = export_cpp_header(t, sm_counts);
  const WgmmaConfig c;
  DeviceDescription h200;
  h200.arch = *Arch::parse("sm_90");
  h200.sm_count = 132;
  const LaunchGeometry g = family("wgmma").launch_geometry(c.to_params(), testing::kBig, h200);
  EXPECT_NE(text.find(fmt::format("{{{}u, 1u, 1u}}, {{{}u, 1u, 1u}}, {{1u, 1u, 1u}}, {}u, true", g.grid.x, g.block.x,
                                  g.dynamic_smem_bytes)),
            std::string::npos)
      << text;
  const WgmmaTensorMaps maps = tensor_map_specs(c, testing::kBig);
  EXPECT_NE(text.find(fmt::format("{{CU_TENSOR_MAP_DATA_TYPE_FLOAT16, {{4096ull, 4096ull}}, 8192ull, {{{}u, {}u}}",
                                  maps.a.box[0], maps.a.box[1])),
            std::string::npos)
      << text;

  // A deep-stage winner (BK 128): its kernel takes BK as a 17th template argument, and A's map row carries the 3-D
  // view's depth (2 k-blocks per copy), which the header's encode() turns into a 3-D map; B's box is 128 rows deep.
  ExportTable deep = t;
  ExportEntry* wgmma_entry = nullptr;
  for (auto& e : deep.entries)
    if (e.family == "wgmma") wgmma_entry = &e;
  ASSERT_NE(wgmma_entry, nullptr);
  wgmma_entry->params["BK"] = std::int64_t{128};
  wgmma_entry->params["STAGES"] = std::int64_t{2};
  const std::string deep_text = export_cpp_header(deep, sm_counts);
  const WgmmaConfig d = WgmmaConfig::from_params(wgmma_entry->params);
  EXPECT_NE(deep_text.find(d.name_expression()), std::string::npos) << deep_text;
  EXPECT_NE(d.name_expression().find(", 128>"), std::string::npos);
  const WgmmaTensorMaps deep_maps = tensor_map_specs(d, wgmma_entry->shape);
  EXPECT_EQ(deep_maps.a.depth, 2u);
  EXPECT_NE(deep_text.find(fmt::format("{{{}u, {}u}}, CU_TENSOR_MAP_SWIZZLE_128B, {}, 2u}}", deep_maps.a.box[0],
                                       deep_maps.a.box[1], "CU_TENSOR_MAP_L2_PROMOTION_L2_256B")),
            std::string::npos)
      << deep_text;
  EXPECT_NE(deep_text.find("{64u, 128u}, CU_TENSOR_MAP_SWIZZLE_128B"), std::string::npos) << deep_text;
  EXPECT_EQ(text.find(", 2u}"), std::string::npos) << "BK 64 maps are 2-D (depth 1)";

  ExportTable unknown = t;
  unknown.entries[0].family = "nonesuch";
  EXPECT_THROW(export_cpp_header(unknown), ExportError);
  EXPECT_THROW(export_cpp_header(ExportTable{}), ExportError);
}

// A database with winners of two kinds (tests/support/kinds_fixture.hpp: mk_nk_bf16_bf16 at 4096^3 on the H200,
// whose winner is not the default kind's there): the header instantiates the kind's own kernel (its template
// arguments), carries the kind's tensor maps (BF16, B stored N x K), and find() keeps kinds apart; it compiles for
// sm_90a and the program runs its lookups without a GPU.
TEST_F(ExportCpp, AKindOtherThanTheDefaultIsInstantiatedAndFoundByItsName) {
  testing::add_linear_winners(db_);
  const auto header = dir_ / "mpgemm_winners.hpp";
  const auto r = testing::run_command(
      fmt::format("{} {} --format cpp -o {}", testing::bin("mpgemm-export"), db_.string(), header.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = testing::read_file(header);
  const Params other = testing::wgmma_other_params();
  const KernelSpec linear = family("wgmma").kernel_spec(other, *Arch::parse("sm_90a"), testing::kLinear);
  const KernelSpec plain = family("wgmma").kernel_spec(other, *Arch::parse("sm_90a"));
  ASSERT_NE(linear.name_expression, plain.name_expression);
  EXPECT_NE(text.find("template __global__ decltype(" + linear.name_expression + ")"), std::string::npos) << text;
  EXPECT_NE(text.find("\"mk_nk_bf16_bf16\", \"wgmma\""), std::string::npos) << text;
  EXPECT_NE(text.find("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"), std::string::npos) << text;

  std::ofstream(dir_ / "use.cu") << R"(#include "mpgemm_winners.hpp"
#include <cstdio>
#include <cstring>
int main() {
  const mpgemm_export::Winner* plain = mpgemm_export::find(4096, 4096, 4096, "NVIDIA H200");
  const mpgemm_export::Winner* linear = mpgemm_export::find(4096, 4096, 4096, "NVIDIA H200", "mk_nk_bf16_bf16");
  if (plain == nullptr || linear == nullptr || plain == linear) return 1;
  if (std::strcmp(plain->problem, "mk_kn_fp16_fp32") != 0 || std::strcmp(linear->problem, "mk_nk_bf16_bf16") != 0)
    return 2;
  if (mpgemm_export::find(4096, 4096, 4096, "NVIDIA H200", "mk_nk_bf16_bf16_beta") != nullptr) return 3;
  if (mpgemm_export::find(2048, 2048, 2048, nullptr, "mk_nk_bf16_bf16") != nullptr) return 4;
  // Not launched (no GPU needed): a default-kind launch() of the linear winner is refused before any CUDA call.
  if (mpgemm_export::launch(*linear, nullptr, nullptr, nullptr, nullptr) != cudaErrorInvalidValue) return 5;
  // Which of C and the bias a kind reads, from the parts of its name.
  using mpgemm_export::detail::has_part;
  if (!has_part("mk_nk_bf16_bf16_beta_bias_gelu", "beta") || !has_part("mk_nk_bf16_bf16_beta_bias_gelu", "bias") ||
      !has_part("mk_nk_bf16_bf16_bias", "bias") || has_part("mk_nk_bf16_bf16", "bias") ||
      has_part("mk_nk_bf16_bf16_bias", "beta") || has_part("mk_kn_fp16_fp32_betas", "beta"))
    return 6;
  cudaError_t (*launch)(const mpgemm_export::Winner&, const void*, const void*, void*, void*, cudaStream_t, float,
                        float, const void*, const void*) = &mpgemm_export::launch_problem;
  std::printf("%s %s %p\n", linear->config, linear->problem, reinterpret_cast<void*>(launch));
  return 0;
}
)";
  const auto cubin = dir_ / "use_sm_90a.cubin";
  const auto built = nvcc("sm_90a", "-cubin", cubin);
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const auto program = dir_ / "use";
  const auto linked = nvcc("sm_90a", "", program);
  ASSERT_EQ(linked.exit_code, 0) << linked.output;
  const auto ran = testing::run_command(program.string());  // find() and the table need no GPU
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find(family("wgmma").config_name(other) + " mk_nk_bf16_bf16"), std::string::npos) << ran.output;
}

}  // namespace
}  // namespace mpgemm
