// mpgemm-query's views that name winners (best, winners, best_per_shape) never show a damaged winner as a sound one:
// a winner that mpgemm-run, mpgemm-export and the library refuse (store/winner_checks.hpp) is named on stderr after
// the rows, in one line, exit status 1, as --dump names a damaged row (issue 57, item 13).
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codegen/family.hpp"
#include "support/export_fixture.hpp"
#include "support/old_database.hpp"
#include "support/run_command.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

class QueryDamagedWinner : public testing::ExportDbTest {
 protected:
  // mpgemm-query DB VIEW, with `streams` redirecting its output.
  testing::CommandResult query(const std::string& view, const char* streams) const {
    return testing::run_command(
        fmt::format("({} {} {} {})", testing::bin("mpgemm-query"), db_.string(), view, streams));
  }
};

constexpr const char* kWinnerViews[] = {"best", "winners", "best_per_shape"};

TEST_F(QueryDamagedWinner, ANameThatItsParamsDoNotGiveIsNamedOnStderr) {
  for (const std::string view : kWinnerViews) EXPECT_EQ(query(view, "").exit_code, 0) << query(view, "").output;
  const std::string name = family("wgmma").config_name(testing::wgmma_winner_params());
  testing::raw_exec(db_,
                    fmt::format("UPDATE configs SET params = json_set(params, '$.STAGES', 3) WHERE name = '{}'", name));
  for (const std::string view : kWinnerViews) {
    const auto out = query(view, "2>/dev/null");
    EXPECT_EQ(out.exit_code, 1) << view << ": " << out.output;
    // best_per_shape shows the first pass's fastest, not the re-rank's winner; its rows are printed all the same.
    EXPECT_NE(out.output.find(view == "best_per_shape" ? "NVIDIA H200" : name), std::string::npos)
        << view << ", the rows are printed: " << out.output;
    const auto err = query(view, "2>&1 >/dev/null");
    EXPECT_EQ(err.exit_code, 1) << view << ": " << err.output;
    EXPECT_TRUE(err.output.starts_with("mpgemm-query: error: database " + db_.string() + ": the ")) << err.output;
    EXPECT_EQ(err.output.find('\n'), err.output.size() - 1) << "one line: " << err.output;
    EXPECT_NE(err.output.find("the name and the params disagree"), std::string::npos) << err.output;
    EXPECT_NE(err.output.find(name), std::string::npos) << err.output;
  }
  EXPECT_EQ(query("runs", "").exit_code, 0) << "a view that names no winner is printed as before";
}

TEST_F(QueryDamagedWinner, ARatioThatItsTimesDoNotGiveIsNamedOnStderr) {
  testing::raw_exec(db_, "UPDATE measurements SET ratio_to_cublas = ratio_to_cublas * 1.01 WHERE result_key = 'r1'");
  const auto err = query("best", "2>&1 >/dev/null");
  EXPECT_EQ(err.exit_code, 1) << err.output;
  EXPECT_NE(err.output.find("disagrees with the times it is derived from"), std::string::npos) << err.output;
}

// A problem that names no kind (past the schema's CHECK, which admits 'mk_kn_fp16_fp64') is damage: the winner it
// belongs to could stand for any kind, so the views that name winners say so, in one line.
TEST_F(QueryDamagedWinner, AProblemThatNamesNoKindIsNamedOnStderr) {
  testing::raw_exec(db_, "UPDATE measurements SET problem = 'mk_kn_fp16_fp64' WHERE result_key = 'r1'");
  const auto err = query("best", "2>&1 >/dev/null");
  EXPECT_EQ(err.exit_code, 1) << err.output;
  EXPECT_EQ(err.output.find('\n'), err.output.size() - 1) << "one line: " << err.output;
  EXPECT_NE(err.output.find("its problem 'mk_kn_fp16_fp64' is not a problem kind"), std::string::npos) << err.output;
  EXPECT_NE(err.output.find("the database is refused"), std::string::npos) << err.output;
}

}  // namespace
}  // namespace mpgemm
