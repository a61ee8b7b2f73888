// Overlays (issue 14): created by qemu-img over the user's image (which stays the backing file),
// deleted with their owner object, and a dead process's overlays removed by the next run while
// a live process's are kept.
#include "orchestrator/libvirt/guestsource/overlay.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/process.hpp"
#include "orchestrator/libvirt/virt/domain_registry.hpp"

namespace topolab::guestsource {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class OverlayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-overlay-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  DiskImage make_disk(const std::string& format) {
    auto path = dir_ / ("user." + format);
    auto r = run_process(
        ProcessSpec::in_path({"qemu-img", "create", "-q", "-f", format, path.string(), "8M"}, 30s));
    EXPECT_TRUE(r && r->status.code == 0);
    auto d = inspect_disk(path);
    EXPECT_TRUE(d) << (d ? "" : d.error().message);
    return d ? *d : DiskImage{};
  }
  fs::path dir_;
};

TEST_F(OverlayTest, BacksOntoTheUserImageAndIsDeletedWithItsOwner) {
  auto disk = make_disk("raw");
  EXPECT_EQ(disk.format, "raw");
  fs::path path;
  {
    auto ov = create_overlay(disk, "unit-1", 0, dir_ / "ov");
    ASSERT_TRUE(ov) << ov.error().message;
    path = ov->path();
    ASSERT_TRUE(fs::exists(path));
    auto info = run_process(
        ProcessSpec::in_path({"qemu-img", "info", "--output=json", path.string()}, 30s));
    ASSERT_TRUE(info && info->status.code == 0);
    EXPECT_NE(info->out.find("\"backing-filename\": \"" + disk.path.string() + "\""),
              std::string::npos)
        << info->out;
    EXPECT_NE(info->out.find("\"backing-filename-format\": \"raw\""), std::string::npos);
  }
  EXPECT_FALSE(fs::exists(path)) << "the overlay outlived its owner";
}

// SIGINT/SIGTERM (domain_registry.hpp): the process-wide registry knows the overlay exactly
// while its owner lives, so the interrupt path can remove it.
TEST_F(OverlayTest, OverlayIsRecordedForTheInterruptPathWhileItsOwnerLives) {
  auto disk = make_disk("qcow2");
  auto& reg = virt::DomainRegistry::instance();
  auto recorded = [&](const fs::path& p) {
    auto files = reg.files();
    return std::find(files.begin(), files.end(), p) != files.end();
  };
  fs::path path;
  {
    auto ov = create_overlay(disk, "unit-3", 0, dir_ / "ov");
    ASSERT_TRUE(ov) << ov.error().message;
    path = ov->path();
    EXPECT_TRUE(ov->registered());
    EXPECT_TRUE(recorded(path));
    OwnedFile moved = std::move(ov).value();
    EXPECT_TRUE(recorded(path)) << "a move must not forget the file";
  }
  EXPECT_FALSE(recorded(path));
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(OverlayTest, StaleCleanupRemovesOnlyDeadOwners) {
  fs::create_directories(dir_ / "ov");
  const auto mine = dir_ / "ov" / overlay_file_name("unit-2", 0);
  // PID 0x7ffffffe does not exist: a SIGKILLed run's overlay and its base XML.
  const auto dead = dir_ / "ov" / "ov-2147483646-12345-run-0.qcow2";
  const auto dead_xml = dir_ / "ov" / "ov-2147483646-12345-run-0.xml";
  const auto foreign = dir_ / "ov" / "notes.txt";
  for (const auto& p : {mine, dead, dead_xml, foreign}) std::ofstream(p) << "x";
  auto removed = cleanup_stale_overlays(dir_ / "ov");
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_TRUE(fs::exists(mine));
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(dead_xml));
  EXPECT_TRUE(fs::exists(foreign)) << "a file not named by topolab was removed";
}

TEST_F(OverlayTest, InspectRefusesWhatItCannotOverlay) {
  auto vdi = dir_ / "d.vdi";
  ASSERT_EQ(run_process(ProcessSpec::in_path(
                            {"qemu-img", "create", "-q", "-f", "vdi", vdi.string(), "8M"}, 30s))
                ->status.code,
            0);
  auto r = inspect_disk(vdi);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("format 'vdi' cannot be overlaid"), std::string::npos)
      << r.error().message;
  std::ofstream(dir_ / "empty");
  auto e = inspect_disk(dir_ / "empty");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("empty file"), std::string::npos);
  EXPECT_EQ(make_disk("qcow2").format, "qcow2");
}

}  // namespace
}  // namespace topolab::guestsource
