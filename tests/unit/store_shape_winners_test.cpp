// shape_winners() checks every winner it hands out (store/winner_checks.hpp), so that mpgemm-run --config best,
// mpgemm-export and the library never take a damaged winner for another kernel: a row whose name and params
// disagree, whose ratio its times do not give, whose family's name is damaged, whose cuBLASLt row no longer reads,
// or whose params are not JSON refuses the database in one StoreError line naming the view, the row's ids, the
// device and the shape. The fixture is tests/support/export_fixture.hpp (two devices, a re-rank winner and two
// tuning winners), damaged with plain SQL.
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "store/shape_winners.hpp"
#include "store/store.hpp"
#include "support/export_fixture.hpp"
#include "support/old_database.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

class ShapeWinnersChecks : public testing::ExportDbTest {
 protected:
  std::vector<ShapeWinner> read() const { return shape_winners(Store::open(db_, Store::Mode::read_only)); }

  // The StoreError shape_winners() throws after `sql` damaged the fixture; "accepted" when it throws none.
  std::string refusal(const std::string& sql) {
    testing::raw_exec(db_, sql);
    try {
      read();
    } catch (const StoreError& e) {
      return e.what();
    }
    return "accepted";
  }

  void expect_words(const std::string& what, const std::vector<std::string>& words) {
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    for (const auto& w : words) EXPECT_NE(what.find(w), std::string::npos) << "no '" << w << "' in: " << what;
  }

  const std::string winner_ = family("wgmma").config_name(testing::wgmma_winner_params());
  const std::string wmma_ = family("wmma").config_name(testing::wmma_params());
};

TEST_F(ShapeWinnersChecks, ASoundDatabaseGivesEachWinnerWithItsRow) {
  const std::vector<ShapeWinner> winners = read();
  ASSERT_EQ(winners.size(), 3u);
  for (const auto& w : winners) {
    ASSERT_TRUE(w.row) << w.config_name;
    EXPECT_GT(w.row->id, 0);
    EXPECT_GT(w.row->config_id, 0);
    EXPECT_GT(w.row->run_id, 0);
  }
  EXPECT_TRUE(winners[2].from_rerank);
  ASSERT_TRUE(winners[2].cublaslt_ms);  // the re-rank winner's own tuning measurement's cuBLASLt
  EXPECT_DOUBLE_EQ(*winners[2].cublaslt_ms, 0.180);
  EXPECT_DOUBLE_EQ(*winners[2].ratio_to_cublaslt, 0.180 / 0.200);
}

// One damaged byte in a config's params: the name (what is dispatched and exported) and the params (what is
// compiled) disagree.
TEST_F(ShapeWinnersChecks, ANameThatItsParamsDoNotGiveRefusesTheDatabase) {
  const std::string what =
      refusal(fmt::format("UPDATE configs SET params = json_set(params, '$.STAGES', 3) WHERE name = '{}'", winner_));
  expect_words(what, {"database " + db_.string() + ": ",
                      fmt::format("the winners row \"{}\" for \"NVIDIA H200\" at 4096x4096x4096 (re-rank ", winner_),
                      ", config ", ", run ", "the name and the params disagree", "the database is refused"});
}

// One damaged byte in a REAL: a ratio the times it was derived from do not give would send the library to a kernel
// cuBLAS beat, and mpgemm-export would write it.
TEST_F(ShapeWinnersChecks, ARatioThatItsTimesDoNotGiveRefusesTheDatabase) {
  const std::string what =
      refusal("UPDATE measurements SET ratio_to_cublas = ratio_to_cublas * 1.01 WHERE result_key = 'm1'");
  expect_words(what,
               {fmt::format("the best_per_shape row \"{}\" for \"NVIDIA H200\" at 2048x2048x2048 (measurement ", wmma_),
                "ratio_to_cublas = ", "disagrees with the times it is derived from"});
}

// The family's name damaged into one this build lacks (a winner the library would leave to cuBLAS and mpgemm-export
// would write under a family nobody builds): the name and params are wgmma's.
TEST_F(ShapeWinnersChecks, AFamilyNameThatItsConfigDoesNotBearRefusesTheDatabase) {
  const std::string what = refusal(fmt::format("UPDATE configs SET family = 'wgmmq' WHERE name = '{}'", winner_));
  expect_words(what, {"the winners row", "its family \"wgmmq\" is not one this build has",
                      "the one family wgmma derives from its params"});
}

// The re-rank winner's cuBLASLt comes from its own tuning measurement: a damaged cuBLASLt row that no longer joins
// must not take the time and the ratio away without a word (the ratio stays, without what it is derived from).
TEST_F(ShapeWinnersChecks, ACuBlasLtRowThatNoLongerReadsRefusesTheDatabase) {
  const std::string what =
      refusal("DELETE FROM cublaslt_timings WHERE id = (SELECT cublaslt_id FROM measurements WHERE result_key = 'w1')");
  expect_words(what, {"the winners row", "ratio_to_cublaslt = ", "is given without cublaslt_median_ms"});
}

// Params damaged into ill-formed UTF-8 threw nlohmann's parse_error out of shape_winners() ("internal error"); into
// other text that is not JSON, likewise.
TEST_F(ShapeWinnersChecks, ParamsThatAreNotJsonRefuseTheDatabaseNamingTheRow) {
  // {"BM\xff": 128} and {"BM" 128}: past the CHECK (json_valid) as damage would be.
  const std::string what =
      refusal(fmt::format("PRAGMA ignore_check_constraints = ON; UPDATE configs SET params = "
                          "CAST(X'7B22424DFF223A203132387D' AS TEXT) WHERE name = '{}'",
                          wmma_));
  expect_words(what, {"database " + db_.string() + ": ", "the best_per_shape row", "at 1024x1024x1024 (measurement ",
                      "column params is not UTF-8 text", "the database is refused"});
  expect_words(refusal(fmt::format("PRAGMA ignore_check_constraints = ON; UPDATE configs SET params = "
                                   "'{{\"BM\" 128}}' WHERE name = '{}'",
                                   wmma_)),
               {"the best_per_shape row", "its params do not read as JSON ("});
}

// A device name damaged into another (its run restates it) makes a device of its own whose winner is the damaged
// measurement; one damaged into bytes that are not UTF-8 could not even be exported (nlohmann's type_error).
TEST_F(ShapeWinnersChecks, ADeviceThatItsRunDidNotMeasureOnRefusesTheDatabase) {
  const std::string what = refusal("UPDATE measurements SET device_name = 'NVIDIA H2p0' WHERE result_key = 'w1'");
  expect_words(what, {"the best_per_shape row", "for \"NVIDIA H2p0\" at 4096x4096x4096 (measurement ",
                      "its device is not one its run 1 measured on (\"NVIDIA H200\")"});
  testing::write_export_db(db_ = dir_ / "utf8.db");
  expect_words(refusal("UPDATE measurements SET device_name = CAST(X'4E564944494120483280' AS TEXT) WHERE "
                       "result_key = 'r1'"),
               {"for \"NVIDIA H2\\x80\" at 1024x1024x1024", "column device_name is not UTF-8 text"});
}

// A shape of negative size (the table's CHECK passed by damage) is not a winner.
TEST_F(ShapeWinnersChecks, ANegativeShapeRefusesTheDatabase) {
  const std::string what =
      refusal("PRAGMA ignore_check_constraints = ON; UPDATE measurements SET M = -24064 WHERE result_key = 'r1'");
  expect_words(what, {"at -24064x1024x1024", "is not one of positive sizes"});
}

}  // namespace
}  // namespace mpgemm
