#include "common/ci_retry_log.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace topolab {
namespace {

namespace fs = std::filesystem;

std::vector<nlohmann::json> read_lines(const fs::path& p) {
  std::vector<nlohmann::json> out;
  std::ifstream f(p);
  for (std::string line; std::getline(f, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(CiRetryLog, AppendsOneLinePerRetryWithThePlantedMark) {
  char tmpl[] = "/tmp/topolab-retrylog-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path log = dir / "retries.jsonl";
  ASSERT_EQ(setenv("TOPOLAB_BOOT_RETRY_LOG", log.c_str(), 1), 0);
  note_retry_for_ci("boot", "boot a", 1, "hung", false);
  note_retry_for_ci("run", "run e cmdline.topolab.fault=hang-after:3", 1, std::string(500, 'x'),
                    true);
  unsetenv("TOPOLAB_BOOT_RETRY_LOG");
  note_retry_for_ci("boot", "not logged", 1, "no variable", false);
  const auto lines = read_lines(log);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["boot"], "boot a");
  EXPECT_EQ(lines[0]["kind"], "boot");
  EXPECT_EQ(lines[1]["kind"], "run");
  EXPECT_EQ(lines[0]["planted"], false);
  EXPECT_EQ(lines[1]["planted"], true);
  EXPECT_EQ(lines[1]["reason"].get<std::string>().size(), 200u);  // bounded
  EXPECT_EQ(fs::status(log).permissions() & fs::perms::others_read, fs::perms::none);
  fs::remove_all(dir);
}

TEST(CiRetryLog, APlantedHangIsNamedByItsCmdlineKey) {
  EXPECT_TRUE(names_planted_fault("console=ttyS0 topolab.fault=hang-boot-first"));
  EXPECT_TRUE(names_planted_fault("cmdline.topolab.fault=hang-after:1"));
  EXPECT_FALSE(names_planted_fault("console=ttyS0 quiet"));
  EXPECT_FALSE(names_planted_fault("topolab.faults"));
  EXPECT_TRUE(names_planted_fault("topolab.fault=stall-boot"));
  // Faults that plant no hang: a hang of such a guest is a real one, counted against the bound.
  EXPECT_FALSE(names_planted_fault("cmdline.topolab.fault=garbage"));
  EXPECT_FALSE(names_planted_fault("console=ttyS0 topolab.fault=none"));
  EXPECT_TRUE(names_planted_fault("topolab.fault=none topolab.fault=hang-after:2"));
}

}  // namespace
}  // namespace topolab
