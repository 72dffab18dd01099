// mpgemm-export's JSON table: what it takes from a database (re-rank winners first, tuning winners else, cuBLASLt
// where the database has it), the format's exact fields, the round trip through its one reader, the device filter,
// and the tool's refusals (no database, a foreign file, a newer schema, an unknown device, nothing to export).
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "export/export_collect.hpp"
#include "export/export_table.hpp"
#include "support/export_fixture.hpp"
#include "support/kinds_fixture.hpp"
#include "support/run_command.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

using testing::kBig;
using testing::kH200;
using testing::kMid;
using testing::kRtx;
using testing::kSmall;

class ExportJson : public testing::ExportDbTest {
 protected:
  ExportTable collect(std::optional<std::string> device = std::nullopt) {
    const Store store = Store::open(db_, Store::Mode::read_only);
    return collect_export(store, ExportOptions{db_, std::move(device)});
  }
  testing::CommandResult tool(const std::string& args) {
    return testing::run_command(testing::bin("mpgemm-export") + " " + args);
  }
};

double tflops(const Shape& s, double ms) {
  return s.flops() / ms / 1e9;
}

TEST_F(ExportJson, EntriesAreEachShapesWinnerSortedByDeviceAndShape) {
  const ExportTable t = collect();
  EXPECT_EQ(t.generated_by, fmt::format("mpgemm {}", tool_version()));
  EXPECT_EQ(t.database, db_.string());
  ASSERT_EQ(t.entries.size(), 3u);

  const ExportEntry& rtx = t.entries[0];  // "NVIDIA GeForce ..." sorts before "NVIDIA H200"
  EXPECT_EQ(rtx.device, kRtx);
  EXPECT_EQ(rtx.device_arch, "sm_86");
  EXPECT_EQ(rtx.arch, "sm_86");
  EXPECT_EQ(rtx.shape, kSmall);
  EXPECT_EQ(rtx.family, "wmma");
  EXPECT_EQ(rtx.config, "wmma_cp_async_bm128_bn64_bk32_s2_w32x32_p8x8");
  EXPECT_EQ(rtx.params, testing::wmma_params());
  EXPECT_EQ(rtx.source, "tune");
  EXPECT_EQ(rtx.command.find("--graphs"), std::string::npos) << rtx.command;  // timed call by call

  // 2048^3 on the H200: a tuning winner with cuBLAS and no cuBLASLt anywhere for the shape, its batches graph
  // replays (so is the command that measures it again).
  const ExportEntry& mid = t.entries[1];
  EXPECT_EQ(mid.shape, kMid);
  EXPECT_EQ(mid.arch, "sm_90");
  EXPECT_EQ(mid.source, "tune");
  EXPECT_DOUBLE_EQ(mid.tflops, tflops(kMid, 0.100));
  EXPECT_DOUBLE_EQ(*mid.cublas_tflops, tflops(kMid, 0.050));
  EXPECT_DOUBLE_EQ(*mid.ratio_cublas, 0.5);
  EXPECT_FALSE(mid.cublaslt_tflops);
  EXPECT_FALSE(mid.ratio_cublaslt);
  EXPECT_EQ(mid.l2, L2Mode::warm);
  EXPECT_EQ(mid.command, fmt::format("mpgemm-run --db {} --config {} --M 2048 --N 2048 --K 2048 --warmup 3 --runs 5 "
                                     "--iters 20 --graphs",
                                     db_.string(), mid.config));

  // 4096^3: the re-rank's winner, not the config with the fastest tuning median; its TFLOP/s and cuBLAS ratio from
  // the re-rank rounds, its cuBLASLt ratio from its own tuning measurement (cuBLASLt is never re-ranked).
  const ExportEntry& big = t.entries[2];
  EXPECT_EQ(big.shape, kBig);
  EXPECT_EQ(big.source, "rerank");
  EXPECT_EQ(big.family, "wgmma");
  EXPECT_EQ(big.arch, "sm_90a");
  EXPECT_EQ(big.config, WgmmaConfig{}.name());
  EXPECT_EQ(big.params, testing::wgmma_winner_params());
  EXPECT_DOUBLE_EQ(big.tflops, tflops(kBig, 0.195));
  EXPECT_DOUBLE_EQ(*big.cublas_tflops, tflops(kBig, 0.2));
  EXPECT_DOUBLE_EQ(*big.ratio_cublas, 0.2 / 0.195);
  EXPECT_DOUBLE_EQ(*big.cublaslt_tflops, tflops(kBig, 0.180));
  EXPECT_DOUBLE_EQ(*big.ratio_cublaslt, 0.180 / 0.200);
  EXPECT_EQ(big.command, fmt::format("mpgemm-run --db {} --config {} --M 4096 --N 4096 --K 4096 --paired --warmup 2 "
                                     "--runs 10 --iters 20 --graphs",
                                     db_.string(), big.config));
}

// Rows from before schema 10 (re-ranks) and 11 (tuning measurements) say nothing of how their batches were
// enqueued: they were timed call by call, and the command that measures them again says no --graphs.
TEST_F(ExportJson, BatchesNotRecordedReadAsTimedCallByCall) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE measurements SET batches = NULL; UPDATE reranks SET batches = NULL", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const ExportTable t = collect();
  ASSERT_EQ(t.entries.size(), 3u);
  for (const ExportEntry& e : t.entries) EXPECT_EQ(e.command.find("--graphs"), std::string::npos) << e.command;
  EXPECT_EQ(t.entries[2].source, "rerank");  // the re-rank winner still, only its batches unknown
}

TEST_F(ExportJson, JsonHasExactlyTheFormatsFieldsAndRoundTrips) {
  const ExportTable t = collect();
  const nlohmann::json j = to_json(t);
  std::set<std::string> top, entry;
  for (const auto& [k, v] : j.items()) top.insert(k);
  for (const auto& [k, v] : j["entries"][0].items()) entry.insert(k);
  EXPECT_EQ(top, (std::set<std::string>{"format", "version", "generated_by", "database", "entries"}));
  EXPECT_EQ(entry, (std::set<std::string>{"device", "device_arch", "arch", "problem", "shape", "family", "config",
                                          "params", "tflops", "cublas_tflops", "ratio_cublas", "cublaslt_tflops",
                                          "ratio_cublaslt", "l2", "source", "command"}));
  EXPECT_EQ(j["format"], "mpgemm-export");
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["entries"][0]["problem"], "mk_kn_fp16_fp32");
  EXPECT_EQ(j["entries"][1]["shape"], (nlohmann::json{{"M", 2048}, {"N", 2048}, {"K", 2048}}));
  EXPECT_TRUE(j["entries"][1]["cublaslt_tflops"].is_null());
  EXPECT_TRUE(j["entries"][1]["ratio_cublaslt"].is_null());
  EXPECT_EQ(j["entries"][0]["params"]["LOAD"], "cp_async");  // strings stay strings, ints ints
  EXPECT_EQ(j["entries"][0]["params"]["BM"], 128);

  EXPECT_EQ(export_table_from_json(j), t);
  EXPECT_EQ(export_table_from_json(nlohmann::json::parse(j.dump(2))), t);
}

TEST_F(ExportJson, TheReaderRefusesForeignNewerAndIncompleteFiles) {
  nlohmann::json j = to_json(collect());
  auto refusal = [](const nlohmann::json& bad) -> std::string {
    try {
      export_table_from_json(bad);
    } catch (const ExportError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refusal(nlohmann::json{{"format", "something-else"}}).find("not an mpgemm-export file"), std::string::npos);
  nlohmann::json newer = j;
  newer["version"] = 3;
  EXPECT_NE(refusal(newer).find("newer"), std::string::npos);
  nlohmann::json missing = j;
  missing["entries"][1].erase("tflops");
  EXPECT_EQ(refusal(missing), "/entries/1: missing \"tflops\"");
  nlohmann::json wrong = j;
  wrong["entries"][0]["shape"]["M"] = "big";
  EXPECT_EQ(refusal(wrong), "/entries/0/shape/M: expected a positive integer");
  nlohmann::json source = j;
  source["entries"][2]["source"] = "guess";
  EXPECT_EQ(refusal(source), "/entries/2/source: expected \"rerank\" or \"tune\"");
  nlohmann::json kind = j;
  kind["entries"][1]["problem"] = "mk_kn_fp8_fp32";
  EXPECT_EQ(refusal(kind).rfind("/entries/1/problem: 'mk_kn_fp8_fp32' is not a problem kind", 0), 0u) << refusal(kind);
  kind["entries"][1]["problem"] = 7;
  EXPECT_EQ(refusal(kind), "/entries/1/problem: expected a string");
}

// Format version 1 had no kind: such a file (and an entry without "problem") reads as the default kind.
TEST_F(ExportJson, AVersion1FileIsOfTheDefaultKind) {
  nlohmann::json j = to_json(collect());
  j["version"] = 1;
  for (auto& e : j["entries"]) e.erase("problem");
  const ExportTable t = export_table_from_json(j);
  ASSERT_EQ(t.entries.size(), 3u);
  for (const ExportEntry& e : t.entries) EXPECT_TRUE(e.problem.is_default());
  EXPECT_EQ(t, collect());
}

// A database of two kinds exports each kind's own winner, named, after the default kind's entries of its device,
// with a command that names the kind.
TEST_F(ExportJson, EveryKindIsExportedWithItsOwnWinner) {
  testing::add_linear_winners(db_);
  const ExportTable t = collect(kH200);
  ASSERT_EQ(t.entries.size(), 3u);
  EXPECT_TRUE(t.entries[0].problem.is_default());
  EXPECT_TRUE(t.entries[1].problem.is_default());
  const ExportEntry& linear = t.entries[2];
  EXPECT_EQ(linear.problem, testing::kLinear);
  EXPECT_EQ(linear.shape, kBig);
  EXPECT_EQ(linear.config, family("wgmma").config_name(testing::wgmma_other_params()));
  ASSERT_TRUE(linear.ratio_cublas);
  EXPECT_NEAR(*linear.ratio_cublas, testing::kLinearCublasMs / 0.140, 1e-9);
  EXPECT_NE(linear.command.find("--problem mk_nk_bf16_bf16"), std::string::npos) << linear.command;
  EXPECT_EQ(t.entries[0].command.find("--problem"), std::string::npos) << t.entries[0].command;
  const nlohmann::json j = to_json(t);
  EXPECT_EQ(j["entries"][2]["problem"], "mk_nk_bf16_bf16");
  EXPECT_EQ(export_table_from_json(j), t);
}

TEST_F(ExportJson, DeviceFilterAndItsErrors) {
  const ExportTable h200 = collect(kH200);
  ASSERT_EQ(h200.entries.size(), 2u);
  for (const auto& e : h200.entries) EXPECT_EQ(e.device, kH200);
  try {
    collect(std::string("NVIDIA A100"));
    FAIL() << "an unknown device was accepted";
  } catch (const ExportError& e) {
    EXPECT_NE(std::string(e.what()).find("no verified config on device 'NVIDIA A100'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(kRtx), std::string::npos);  // lists what the database has
  }
  const auto empty = dir_ / "empty.db";
  { Store created = Store::open(empty, Store::Mode::read_write); }
  const Store store = Store::open(empty, Store::Mode::read_only);
  EXPECT_THROW(collect_export(store, ExportOptions{empty, std::nullopt}), ExportError);
}

TEST_F(ExportJson, ToolWritesTheTableAndReadsItBack) {
  const auto out = dir_ / "winners.json";
  const auto r = tool(fmt::format("{} --format json --device '{}' -o {}", db_.string(), kH200, out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const ExportTable t = read_export_file(out);
  EXPECT_EQ(t, collect(kH200));
  const auto stdout_run = tool(db_.string());  // json by default, to standard output
  ASSERT_EQ(stdout_run.exit_code, 0) << stdout_run.output;
  EXPECT_EQ(export_table_from_json(nlohmann::json::parse(stdout_run.output)), collect());
}

TEST_F(ExportJson, ToolRefusalsSayWhy) {
  auto expect = [&](const std::string& args, int code, const std::string& says) {
    const auto r = tool(args);
    EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  };
  expect((dir_ / "absent.db").string(), 1, "cannot read " + (dir_ / "absent.db").string() + ": no such file");
  const auto foreign = dir_ / "foreign.db";
  std::ofstream(foreign) << "not sqlite at all, just text that is long enough to be a file";
  expect(foreign.string(), 1, "not an mpgemm results database");
  const auto newer = dir_ / "newer.db";
  std::filesystem::copy_file(db_, newer);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 999", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  expect(newer.string(), 1, "newer than this mpgemm supports");
  expect(db_.string() + " --device 'NVIDIA A100'", 1, "no verified config on device 'NVIDIA A100'");
  const auto empty = dir_ / "empty.db";
  { Store created = Store::open(empty, Store::Mode::read_write); }
  expect(empty.string(), 1, "has no verified config to export");
  expect(db_.string() + " --format yaml", 2, "--format must be json or cpp");
  expect("", 2, "missing DB");
  expect(db_.string() + " -o " + (dir_ / "no_such_folder" / "x.json").string(), 1,
         "no_such_folder/x.json: the folder " + (dir_ / "no_such_folder").string() + " does not exist");
  const auto help = tool("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--format"), std::string::npos);
}

}  // namespace
}  // namespace mpgemm
