// Reading an exported file a user hands us (read_export_file): a file that never ends, JSON nested far past any
// export's depth, and a huge parameter value each end in one ExportError line naming the file, never a crash,
// bad_alloc or a megabyte-long message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "export/export_table.hpp"
#include "support/run_command.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

// One entry, complete but for its parameters: `params` is put in as it is.
std::string export_with_params(const std::string& params) {
  return fmt::format(
      R"({{"format": "mpgemm-export", "version": 1, "generated_by": "t", "database": "d", "entries": [
  {{"device": "NVIDIA H200", "device_arch": "sm_90", "arch": "sm_90a", "shape": {{"M": 64, "N": 64, "K": 64}},
   "family": "wgmma", "config": "c", "params": {}, "tflops": 1.5, "cublas_tflops": null,
   "ratio_cublas": null, "cublaslt_tflops": null, "ratio_cublaslt": null, "l2": "warm", "source": "tune",
   "command": "mpgemm-run"}}]}})",
      params);
}

class ExportBoundedRead : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_dir("export_bounded_read"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& text) {
    const fs::path p = dir_ / "winners.json";
    std::ofstream(p) << text;
    return p;
  }
  static std::string refusal(const fs::path& path) {
    try {
      read_export_file(path);
    } catch (const ExportError& e) {
      return e.what();
    }
    return "accepted";
  }
  fs::path dir_;
};

TEST_F(ExportBoundedRead, ReadsAnExportWithinTheBounds) {
  const ExportTable t = read_export_file(write(export_with_params(R"({"BM": 128, "SCHEDULE": "coop"})")));
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_EQ(t.entries[0].params, (Params{{"BM", std::int64_t{128}}, {"SCHEDULE", std::string("coop")}}));
}

// A million levels in the parameters: the message about a parameter that is not an integer or a string dumped the
// value recursively and overflowed the stack. Parsing now stops at the 65th level.
TEST_F(ExportBoundedRead, DeepNestingIsOneError) {
  const fs::path p =
      write(export_with_params(R"({"BM": )" + std::string(1'000'000, '[') + std::string(1'000'000, ']') + "}"));
  const std::string what = refusal(p);
  EXPECT_TRUE(what.starts_with(p.string() + ": not valid JSON (")) << what;
  EXPECT_NE(what.find("nesting deeper than 64 levels"), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos);
}

// Within the depth bound, a parameter value is quoted cut short, however large it is.
TEST_F(ExportBoundedRead, AHugeParameterValueIsQuotedCutShort) {
  std::string huge = "[";
  for (int i = 0; i < 100'000; ++i) huge += i ? ",7" : "7";
  const fs::path p = write(export_with_params(R"({"BM": )" + huge + "]}"));
  const std::string what = refusal(p);
  EXPECT_NE(what.find("/entries/0/params: parameter BM must be an integer or a string, got [7,7,7,"), std::string::npos)
      << what.substr(0, 300);
  EXPECT_LT(what.size(), p.string().size() + 200);
}

// A parameter past int64 (the JSON reads it as unsigned) was read wrapped to a negative value, not refused.
TEST_F(ExportBoundedRead, AParameterPastInt64IsRefusedNotWrapped) {
  const fs::path p = write(export_with_params(R"({"BM": 18446744073709551615})"));
  EXPECT_EQ(refusal(p), p.string() +
                            ": /entries/0/params: parameter BM = 18446744073709551615 is out of range (at most "
                            "9223372036854775807)");
}

// /dev/zero never ends: reading stops at kMaxInputFileBytes. A folder or a missing file is named the same way.
TEST_F(ExportBoundedRead, EndlessMissingAndFolderAreOneError) {
  EXPECT_EQ(refusal("/dev/zero"), "/dev/zero: the exported file is larger than 64 MiB (is it the right file?)");
  EXPECT_EQ(refusal(dir_), dir_.string() + ": cannot read the exported file: it is a folder");
  EXPECT_EQ(refusal(dir_ / "none.json"),
            (dir_ / "none.json").string() + ": cannot read the exported file: no such file");
  const std::string not_json = refusal(write("{\"format\": "));
  EXPECT_TRUE(not_json.starts_with((dir_ / "winners.json").string() + ": not valid JSON (")) << not_json;
}

}  // namespace
}  // namespace mpgemm
