#pragma once
// What the report tests on fixture stores share: a temporary store s.db built from a fixture
// (tests/support/store_fixture.hpp), and its report data.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "orchestrator/results/report/reporter.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "tests/support/store_fixture.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab::report {

class FixtureStoreTest : public ::testing::Test {
 protected:
  // Builds s.db from `fixture`, then runs `tamper` (SQL) on it.
  void build_from(const std::filesystem::path& fixture, const std::string& tamper = "") {
    ASSERT_EQ(testing::build_store(db_, fixture, tamper), "");
  }
  ReportData load() {
    auto store = store::ResultStore::open_read_only(db_);
    EXPECT_TRUE(store.ok()) << store.error().message;
    auto data = load_report(**store, "");
    EXPECT_TRUE(data.ok()) << data.error().message;
    return *data;
  }

  testing::TempDir temp_{"topolab-report-test"};
  const std::filesystem::path db_ = temp_.path() / "s.db";
};

}  // namespace topolab::report
