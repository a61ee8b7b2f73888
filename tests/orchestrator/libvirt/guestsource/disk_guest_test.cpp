// The template rewrite (issue 14): every writable disk points at a new qcow2 overlay whose
// backing store is the original (DAC relabel off), read-only and CD-ROM disks are kept as they
// are, every other device is untouched, and disks topolab cannot overlay (or that the copy would
// write in place: writable shareable disks and LUNs, redteam wave 2) are refused by name.
#include "orchestrator/libvirt/guestsource/disk_guest.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <tuple>
#include <vector>

#include "common/process.hpp"

namespace topolab::guestsource {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class DiskGuestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-diskguest-XXXXXX";
    dir_ = mkdtemp(tmpl);
    for (const char* n : {"a.qcow2", "b.qcow2"}) {
      auto r = run_process(ProcessSpec::in_path(
          {"qemu-img", "create", "-q", "-f", "qcow2", (dir_ / n).string(), "8M"}, 30s));
      ASSERT_TRUE(r && r->status.code == 0);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string disk(const std::string& file, const std::string& dev, const std::string& extra = "",
                   const std::string& device = "disk") {
    return "<disk type='file' device='" + device + "'><driver name='qemu' type='qcow2'/>" +
           "<source file='" + (dir_ / file).string() + "'/><target dev='" + dev +
           "' bus='virtio'/>" + extra + "</disk>";
  }
  fs::path dir_;
};

TEST_F(DiskGuestTest, WritableDisksGetOverlaysOthersAreKept) {
  std::string xml =
      "<domain><devices>" + disk("a.qcow2", "vda") + disk("b.qcow2", "vdb", "<readonly/>") +
      disk("b.qcow2", "vdc", "<readonly/><shareable/>") + disk("b.qcow2", "sda", "", "cdrom") +
      "<interface type='network'><source network='default'/></interface>"
      "<input type='tablet' bus='usb'/></devices></domain>";
  std::vector<OwnedFile> overlays;
  auto out = overlay_disks(xml, nullptr, "unit", dir_ / "ov", overlays);
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(overlays.size(), 1u);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(out->c_str()));
  auto disks = doc.select_nodes("/domain/devices/disk");
  ASSERT_EQ(disks.size(), 4u);
  auto vda = disks[0].node();
  EXPECT_EQ(std::string(vda.child("source").attribute("file").as_string()),
            overlays[0].path().string());
  EXPECT_EQ(std::string(vda.child("backingStore").child("source").attribute("file").as_string()),
            (dir_ / "a.qcow2").string());
  EXPECT_EQ(std::string(vda.child("backingStore")
                            .child("source")
                            .child("seclabel")
                            .attribute("relabel")
                            .as_string()),
            "no");
  for (int i = 1; i < 4; ++i) {
    EXPECT_EQ(std::string(disks[i].node().child("source").attribute("file").as_string()),
              (dir_ / "b.qcow2").string());
  }
  EXPECT_TRUE(doc.select_node("/domain/devices/interface"));
  EXPECT_TRUE(doc.select_node("/domain/devices/input[@type='tablet']"));
}

TEST_F(DiskGuestTest, UserDiskReplacesTheTemplatesFirstDisk) {
  auto user = inspect_disk(dir_ / "b.qcow2");
  ASSERT_TRUE(user);
  std::vector<OwnedFile> overlays;
  auto out =
      overlay_disks("<domain><devices>" + disk("missing.qcow2", "vda") + "</devices></domain>",
                    &*user, "unit", dir_ / "ov", overlays);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->find("<backingStore type=\"file\"><format type=\"qcow2\"/><source file=\"" +
                      (dir_ / "b.qcow2").string()),
            std::string::npos)
      << *out;
}

TEST_F(DiskGuestTest, RefusesDisksItCannotOverlayAndLeavesNoOverlay) {
  std::vector<OwnedFile> overlays;
  auto out =
      overlay_disks("<domain><devices>" + disk("a.qcow2", "vda") +
                        "<disk type='network' device='disk'><source protocol='nbd' name='x'/>"
                        "<target dev='vdb' bus='virtio'/></disk></devices></domain>",
                    nullptr, "unit", dir_ / "ov", overlays);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("disk vdb: type 'network' cannot be overlaid"),
            std::string::npos)
      << out.error().message;
  overlays.clear();  // what the caller's unwinding does
  EXPECT_TRUE(fs::is_empty(dir_ / "ov"));
}

TEST_F(DiskGuestTest, RefusesDisksTheCopyWouldWriteInPlace) {
  for (const auto& [extra, device, why] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"<shareable/>", "disk", "disk vdb: shareable and writable"},
           {"", "lun", "disk vdb: device 'lun' is written in place"}}) {
    std::vector<OwnedFile> overlays;
    auto out = overlay_disks("<domain><devices>" + disk("a.qcow2", "vda") +
                                 disk("b.qcow2", "vdb", extra, device) + "</devices></domain>",
                             nullptr, "unit", dir_ / "ov", overlays);
    ASSERT_FALSE(out) << device;
    EXPECT_NE(out.error().message.find(why), std::string::npos) << out.error().message;
  }
}

TEST_F(DiskGuestTest, RefusesMoreWritableDisksThanTheLimit) {
  std::string xml = "<domain><devices>";
  for (int i = 0; i < 40; ++i) xml += disk("a.qcow2", "vd" + std::to_string(i));
  std::vector<OwnedFile> overlays;
  auto out = overlay_disks(xml + "</devices></domain>", nullptr, "unit", dir_ / "ov", overlays);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("more than 32 writable disks"), std::string::npos)
      << out.error().message;
  overlays.clear();
  EXPECT_TRUE(fs::is_empty(dir_ / "ov"));
}

TEST_F(DiskGuestTest, ARunIdThatIsNotASafeNameIsRefusedBeforeAnyOverlay) {
  GuestSource source;
  source.kind = GuestKind::kDisk;
  source.disk = dir_ / "a.qcow2";
  source.os = GuestOs::kLinux;
  for (const std::string id : {"../x", "a,b", "x\ny", ""}) {
    auto out = prepare_guest("test:///default", source, id, dir_ / "ov");
    ASSERT_FALSE(out) << id;
    EXPECT_NE(out.error().message.find("run id '"), std::string::npos) << out.error().message;
  }
  EXPECT_FALSE(fs::exists(dir_ / "ov"));
}

}  // namespace
}  // namespace topolab::guestsource

namespace topolab::guestsource {
namespace {

// Redteam wave 3: a shared experiment file's `[guest] disk = "/dev/loopN"` (or a symlink to
// it) handed a host block device to the guest; the command line (--disk) still may. The type
// is the opened descriptor's, so a name swapped for a device is caught the same way.
TEST(CheckDisk, AFileMayNameNoHostBlockDevice) {
  char tmpl[] = "/tmp/topolab-blockdev-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  { std::ofstream(dir / "backing.img").flush(); }
  fs::resize_file(dir / "backing.img", 8u << 20);
  auto attach = run_process(
      ProcessSpec::in_path({"losetup", "-f", "--show", (dir / "backing.img").string()}, 30s));
  ASSERT_TRUE(attach && attach->status.code == 0) << (attach ? attach->err : "");
  std::string loop = attach->out.substr(0, attach->out.find('\n'));
  struct Detach {  // on every path
    std::string dev;
    fs::path dir;
    ~Detach() {
      (void)run_process(ProcessSpec::in_path({"losetup", "-d", dev}, 30s));
      fs::remove_all(dir);
    }
  } detach{loop, dir};
  fs::create_symlink(loop, dir / "disk.img");

  for (const fs::path& p : {fs::path(loop), dir / "disk.img"}) {
    auto from_file = check_disk("qemu:///system", p, true);
    ASSERT_FALSE(from_file.ok()) << p;
    EXPECT_NE(from_file.error().message.find("a host block device: not accepted from a file"),
              std::string::npos)
        << from_file.error().message;
    auto typed = check_disk("qemu:///system", p, false);
    ASSERT_TRUE(typed.ok()) << p << ": " << typed.error().message;
    EXPECT_TRUE(typed->block_device);
  }
}

}  // namespace
}  // namespace topolab::guestsource
