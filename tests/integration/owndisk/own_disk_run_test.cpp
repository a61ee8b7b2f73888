// Issue 14: `topolab run` with [guest] disk = IMG boots every cell from the user's Debian disk
// through an overlay: 2 exposures x 1 benchmark x 2 repetitions complete, the store records the
// guest source and the guest kernel, the image is unchanged, nothing is left behind; a run
// SIGKILLed during a disk cell leaves leftovers the rerun removes, and the rerun completes.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/integration/owndisk/disk_experiment.hpp"
#include "tests/integration/owndisk/test_disk.hpp"
#include "tests/support/run_summary.hpp"

namespace topolab::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class OwnDiskRun : public ::testing::Test {
 protected:
  void SetUp() override {
    image_ = test_disk_image();
    ASSERT_FALSE(image_.empty());
    char tmpl[] = "/tmp/topolab-it-owndisk-XXXXXX";
    dir_ = mkdtemp(tmpl);
    name_ = "owndisk" + std::to_string(getpid());
    write_disk_experiment(dir_, name_, image_, "{ threads = 2, n = 100000, repeats = 2 }");
    sha_before_ = sha256_of(image_);
  }
  void TearDown() override {
    EXPECT_EQ(sha256_of(image_), sha_before_) << "the user's image was written";
    EXPECT_EQ(topolab_domains_with(name_), std::vector<std::string>{});
    fs::remove_all(dir_);
  }
  std::vector<std::string> run_args(const fs::path& db) const {
    return {
        "run",    (dir_ / "exp.toml").string(), "--store", db.string(), "--accel", "tcg", "--json",
        "--quiet"};
  }
  fs::path image_, dir_;
  std::string name_, sha_before_;
};

TEST_F(OwnDiskRun, TwoExposuresTwoRepetitionsFromTheDisk) {
  auto db = dir_ / "full.db";
  CliChild child(run_args(db));
  auto r = child.wait(50min);
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(overlays_with("ov-" + std::to_string(child.pid()) + "-"), std::vector<std::string>{});
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(configurations_booted(j), 2) << j.dump();
  EXPECT_EQ(j["cells_done"], 2);
  EXPECT_EQ(j["runs_executed"], 4);
  const auto boots = read_store(db).boots;
  ASSERT_EQ(boots.size(), 2u + j.value("hang_reboots", 0u)) << j.dump();
  for (const auto& b : boots) {
    const auto& v = b.boot.versions;
    EXPECT_EQ(v["guest_source"].value("path", ""), image_.string()) << v.dump();
    EXPECT_EQ(v["guest_source"].value("size_bytes", 0ull), fs::file_size(image_));
    EXPECT_TRUE(v["guest_source"].contains("mtime"));
    // The Debian kernel of the disk, not the built-in image's host kernel name.
    EXPECT_NE(v.value("guest_kernel", "").find("-amd64"), std::string::npos) << v.dump();
  }
}

TEST_F(OwnDiskRun, SigkillDuringADiskCellThenRerunLeavesNothing) {
  auto db = dir_ / "killed.db";
  CliChild child(run_args(db));
  // Kill once a disk cell's domain exists (its overlay is in use).
  bool booting = false;
  for (int i = 0; i < 1200 && !booting; ++i) {
    std::this_thread::sleep_for(500ms);
    booting = !topolab_domains_with(name_).empty();
  }
  ASSERT_TRUE(booting) << "no domain appeared";
  std::this_thread::sleep_for(5s);
  ASSERT_EQ(kill(child.pid(), SIGKILL), 0);
  const std::string killed_owner = "ov-" + std::to_string(child.pid()) + "-";
  auto killed = child.wait(1min);
  EXPECT_EQ(killed.term_signal, SIGKILL);
  EXPECT_FALSE(overlays_with(killed_owner).empty()) << "the kill left no overlay to clean up";

  auto r = run_cli(run_args(db), 50min);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["cells_done"], 2) << j.dump();
  EXPECT_EQ(overlays_with(killed_owner), std::vector<std::string>{});
  EXPECT_NE(r.err.find("removed stale overlay"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace topolab::testing
