// mpgemm-export --format cpp: a winner that hands tiles between CTAs through flags (split-K, and stream-K, whose
// SPLIT_K is 1) gets the zeroed workspace its launch needs; an unsplit one gets none. Before this, only SPLIT_K > 1
// asked for it, so an exported stream-K winner would have been launched with null flags. No GPU, no nvcc.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "export/export_cpp.hpp"
#include "export/export_table.hpp"

namespace mpgemm {
namespace {

ExportEntry h200_entry(const WgmmaConfig& c) {
  ExportEntry e;
  e.device = "NVIDIA H200";
  e.device_arch = "sm_90";
  e.arch = "sm_90a";
  e.shape = Shape{3000, 3000, 3000};
  e.family = "wgmma";
  e.config = c.name();
  e.params = c.to_params();
  e.tflops = 600;
  return e;
}

// The header of one entry; its row reads "..., <persistent>, <balanced_units>ull, <workspace_bytes>u, ...".
std::string header_of(const WgmmaConfig& c) {
  ExportTable table;
  table.entries.push_back(h200_entry(c));
  return export_cpp_header(table, {{"NVIDIA H200", 132}});
}

const std::string kWorkspace = std::to_string(kWorkspaceBytes) + "u";

TEST(ExportCppWorkspace, StreamKAndSplitKWinnersGetTheFlagsWorkspaceAndUnsplitOnesNone) {
  WgmmaConfig stream;
  stream.bm = 128;
  stream.bn = 128;
  stream.split_mode = SplitMode::stream;  // SPLIT_K stays 1
  ASSERT_TRUE(stream.problems().empty());
  ASSERT_TRUE(stream.splits());
  EXPECT_NE(header_of(stream).find(", " + kWorkspace + ", "), std::string::npos) << header_of(stream);

  WgmmaConfig split = stream;
  split.split_mode = SplitMode::tail;
  split.split_k = 2;
  EXPECT_NE(header_of(split).find(", " + kWorkspace + ", "), std::string::npos) << header_of(split);

  WgmmaConfig plain = stream;
  plain.split_mode = SplitMode::all;
  const std::string text = header_of(plain);
  EXPECT_EQ(text.find(", " + kWorkspace + ", "), std::string::npos) << text;
  EXPECT_NE(text.find("true, 0ull, 0u, "), std::string::npos) << text;
}

// With a 16-bit D the split tiles' FP32 partial sums follow the flags: the entry asks for them, sized for its grid
// on the tuned device (3000^3 in 128 x 128 tiles: 576 tiles; stream-K on 132 SMs splits at most 263 of them).
TEST(ExportCppWorkspace, A16BitOutputsSplitWinnerGetsRoomForItsPartialSums) {
  WgmmaConfig stream;
  stream.bm = 128;
  stream.bn = 128;
  stream.persistent = true;
  stream.split_mode = SplitMode::stream;
  ExportTable table;
  table.entries.push_back(h200_entry(stream));
  table.entries.back().problem = *ProblemKind::parse("mk_nk_bf16_bf16");
  const std::string text = export_cpp_header(table, {{"NVIDIA H200", 132}});
  const std::size_t bytes = kWorkspaceBytes + std::size_t{263} * 128 * 128 * sizeof(float);
  EXPECT_NE(text.find(", " + std::to_string(bytes) + "u, "), std::string::npos) << text;
}

}  // namespace
}  // namespace mpgemm
