// Family::check_device end to end without a GPU: mpgemm-tune's compile-only pass over a test_faulty space compiles
// what runs on the target and skips, counts and reports what does not (MODE needs_sm90 before sm_90).
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

#include "reliability/replay_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;
using testing::sql_int;

fs::path write_space(const fs::path& dir, const char* modes = R"(["ok", "needs_sm90"])") {
  const fs::path path = dir / "space.json";
  std::ofstream(path) << fmt::format(R"({{
  "family": "test_faulty",
  "shapes": [{{"M": 256, "N": 256, "K": 256}}],
  "parameters": {{"MODE": {{"values": {}}}, "COPY": {{"values": [0, 1, 2]}}}},
  "constraints": []
}})",
                                     modes);
  return path;
}

testing::CommandResult compile_only(const fs::path& space, const fs::path& db, const char* arch) {
  return testing::run_command(fmt::format("{} {} --compile-only --arch {} --db {}", testing::bin("mpgemm-tune"),
                                          space.string(), arch, db.string()));
}

std::int64_t compiled(const fs::path& db, const char* mode) {
  return sql_int(db, fmt::format("SELECT count(*) FROM compilations JOIN configs ON configs.id = config_id WHERE "
                                 "json_extract(params, '$.MODE') = '{}' AND status = 'ok'",
                                 mode));
}

TEST(TuneDeviceCheckCompileOnly, SkipsWhatDoesNotRunOnTheTarget) {
  try {
    (void)family("test_faulty");  // linked here and into mpgemm-tune by the same CMake option
  } catch (const Error&) {
    GTEST_SKIP() << "the test-only families are not linked (MPGEMM_TEST_FAMILIES is off)";
  }
  const auto dir = testing::fresh_dir("tune_device_check");
  const fs::path space = write_space(dir);

  const fs::path db86 = dir / "sm86.db";
  const auto r = compile_only(space, db86, "sm_86");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 configs do not run on sm_86: test_faulty_needs_sm90_c0 runs only on sm_90 or newer"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not for sm_86: 3 config(s), not compiled"), std::string::npos) << r.output;
  // The three configs that run differ only in COPY, a launch parameter: one compile key, compiled once, the
  // other two take its cubin from the cache.
  EXPECT_NE(r.output.find("compiled now 1, from the cubin cache 2 "), std::string::npos) << r.output;
  EXPECT_EQ(compiled(db86, "ok"), 3);
  EXPECT_EQ(sql_int(db86,
                    "SELECT count(*) FROM compilations JOIN configs ON configs.id = config_id WHERE "
                    "json_extract(params, '$.MODE') = 'needs_sm90'"),
            0);

  // On sm_90 the same configs run, so they compile.
  const fs::path db90 = dir / "sm90.db";
  const auto r90 = compile_only(space, db90, "sm_90");
  ASSERT_EQ(r90.exit_code, 0) << r90.output;
  EXPECT_EQ(r90.output.find("do not run on"), std::string::npos) << r90.output;
  EXPECT_EQ(compiled(db90, "ok"), 3);
  EXPECT_EQ(compiled(db90, "needs_sm90"), 3);

  // When nothing runs on the target, the pass says so instead of pointing at an empty compilations view.
  const fs::path none_db = dir / "none.db";
  const auto none = compile_only(write_space(dir, R"(["needs_sm90"])"), none_db, "sm_86");
  ASSERT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(none.output.find("nothing compiled for sm_86"), std::string::npos) << none.output;
  EXPECT_EQ(none.output.find("see the compiled configs"), std::string::npos) << none.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mpgemm
