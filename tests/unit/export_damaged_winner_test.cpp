// mpgemm-export never writes a damaged winner as another kernel: a database whose winner disagrees with itself (its
// name with its params, a ratio with its times) is refused by collect_export (the store's reader checks every
// winner: store/winner_checks.hpp), and the tool says so in one line, exit 1, writing nothing.
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codegen/family.hpp"
#include "export/export_collect.hpp"
#include "support/export_fixture.hpp"
#include "support/old_database.hpp"
#include "support/run_command.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

class ExportDamagedWinner : public testing::ExportDbTest {
 protected:
  // What collect_export and the tool say of the database once `sql` damaged it.
  void expect_refused(const std::string& sql, const std::string& says) {
    testing::raw_exec(db_, sql);
    try {
      collect_export(Store::open(db_, Store::Mode::read_only), ExportOptions{db_, std::nullopt});
      ADD_FAILURE() << "exported after: " << sql;
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    const fs::path out = dir_ / "winners.json";
    const auto r =
        testing::run_command(fmt::format("{} {} -o {}", testing::bin("mpgemm-export"), db_.string(), out.string()));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(r.output.starts_with("mpgemm-export: error: database " + db_.string() + ": the ")) << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "one line: " << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
  }
};

TEST_F(ExportDamagedWinner, ANameThatItsParamsDoNotGiveIsNotExported) {
  const std::string name = family("wgmma").config_name(testing::wgmma_winner_params());
  expect_refused(fmt::format("UPDATE configs SET params = json_set(params, '$.STAGES', 3) WHERE name = '{}'", name),
                 "the name and the params disagree");
}

TEST_F(ExportDamagedWinner, ARatioThatItsTimesDoNotGiveIsNotExported) {
  expect_refused("UPDATE measurements SET ratio_to_cublas = ratio_to_cublas * 1.01 WHERE result_key = 'r1'",
                 "disagrees with the times it is derived from");
}

}  // namespace
}  // namespace mpgemm
