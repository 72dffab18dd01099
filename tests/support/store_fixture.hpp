#pragma once
// Shared by the store tests: a fresh folder per test, and a fixture holding an open Store with one run.
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/store.hpp"

namespace mpgemm::testing {

// temp/mpgemm_<suite>_<test>_<pid>, removed if it was left over; not created.
inline std::filesystem::path per_test_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::temp_directory_path() /
             fmt::format("mpgemm_{}_{}_{}", info->test_suite_name(), info->name(), ::getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

// A read-write Store at dir_/results.db with one run begun (run_), removed after the test.
class StoreWithRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = per_test_dir();
    store_.emplace(Store::open(dir_ / "results.db", Store::Mode::read_write));
    run_ = store_->begin_run(RunInfo{});
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::int64_t config(const std::string& name, std::optional<std::string> alias = std::nullopt) {
    return store_->upsert_config(
        Candidate{"wmma", {{"BM", std::int64_t{128}}, {"LOAD", std::string("cp_async")}}, name, std::move(alias)},
        "00112233aabbccdd");
  }
  std::int64_t count(const std::string& table) {
    return static_cast<std::int64_t>(store_->query_named(table).rows.size());
  }

  std::filesystem::path dir_;
  std::optional<Store> store_;
  std::int64_t run_ = 0;
};

}  // namespace mpgemm::testing
