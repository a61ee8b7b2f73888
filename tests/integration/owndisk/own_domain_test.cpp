// Issue 14: `topolab boot --domain NAME` boots a throw-away copy of a shut-off domain defined by
// the test with extra devices (a second disk, a NIC, a USB tablet, a serial console, no agent
// channel): the copy keeps every device and gains the agent channel, its metadata names the
// template, its writable disks are overlays, the template's XML is byte-identical afterwards and
// its disks unchanged. A running template is refused.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "tests/integration/owndisk/test_disk.hpp"

namespace topolab::testing {
namespace {

namespace fs = std::filesystem;
const std::string kLayout = std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml";

CliRun virsh(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/virsh", "-c", "qemu:///system"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, std::chrono::minutes(2));
}

std::string template_xml(const std::string& name, const std::string& devices) {
  return "<domain type='qemu'><name>" + name +
         "</name><memory unit='MiB'>512</memory><vcpu>1</vcpu><os><type arch='x86_64' "
         "machine='q35'>hvm</type><boot dev='hd'/></os><features><acpi/><apic/></features>"
         "<on_poweroff>destroy</on_poweroff><devices>" +
         devices + "<memballoon model='none'/></devices></domain>";
}

std::string disk(const fs::path& file, const std::string& dev) {
  return "<disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='" +
         file.string() + "'/><target dev='" + dev + "' bus='virtio'/></disk>";
}

// "disk", "disk", "interface", ... of a domain XML's <devices>, sorted.
std::vector<std::string> device_kinds(const std::string& xml) {
  std::vector<std::string> out;
  pugi::xml_document doc;
  doc.load_string(xml.c_str());
  for (auto d : doc.child("domain").child("devices").children()) {
    std::string kind = d.name();
    for (const char* a : {"type", "device", "bus"})
      if (d.attribute(a)) kind += std::string(" ") + a + "=" + d.attribute(a).as_string();
    out.push_back(kind);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class OwnDomain : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-it-owndomain-XXXXXX";
    dir_ = mkdtemp(tmpl);
    chmod(dir_.c_str(), 0755);  // QEMU (its own user) opens the scratch disk through it
    scratch_ = dir_ / "scratch.qcow2";
    auto r =
        run_process({"/usr/bin/qemu-img", "create", "-q", "-f", "qcow2", scratch_.string(), "64M"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void TearDown() override {
    virsh({"destroy", name_});
    virsh({"undefine", name_});
    EXPECT_EQ(overlays_with(marker_), std::vector<std::string>{});
    EXPECT_EQ(topolab_domains_with(marker_), std::vector<std::string>{});
    fs::remove_all(dir_);
  }
  void define(const std::string& devices) {
    std::ofstream(dir_ / "template.xml") << template_xml(name_, devices);
    auto r = virsh({"define", (dir_ / "template.xml").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string dumpxml() { return virsh({"dumpxml", "--inactive", "--security-info", name_}).out; }
  fs::path dir_, scratch_;
  std::string name_ = "ownguest-template-" + std::to_string(getpid());
  std::string marker_ = "it" + std::to_string(getpid()) + "-owndomain";
};

TEST_F(OwnDomain, CopyKeepsEveryDeviceAndTheTemplateIsUntouched) {
  auto image = test_disk_image();
  ASSERT_FALSE(image.empty());
  define(disk(image, "vda") + disk(scratch_, "vdb") +
         "<interface type='user'><model type='virtio'/></interface>"
         "<input type='tablet' bus='usb'/><serial type='pty'><target port='0'/></serial>"
         "<console type='pty'><target type='serial' port='0'/></console>");
  const auto before = dumpxml();
  ASSERT_FALSE(before.empty());
  const auto image_sha = sha256_of(image), scratch_sha = sha256_of(scratch_);

  auto r = run_cli({"boot", kLayout, "--accel", "tcg", "--set", "expose=sockets", "--domain", name_,
                    "--json", "--run-id", marker_},
                   std::chrono::minutes(25));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out << r.err;
  EXPECT_TRUE(j.value("match", false)) << j.dump(2);
  EXPECT_EQ(j["guest_source"].value("name", ""), name_);
  std::cout << "template copy: hello " << j["timings"].value("hello_ms", -1) << " ms\n";

  // The copy as defined (the run folder's domain.xml): every template device, plus the channel.
  std::ifstream in(fs::path(j.value("run_dir", "")) / "domain.xml");
  std::string copy((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto want = device_kinds(before);
  auto got = device_kinds(copy);
  for (const auto& k : want)
    EXPECT_NE(std::find(got.begin(), got.end(), k), got.end()) << "the copy lost: " << k;
  EXPECT_NE(copy.find("org.topolab.agent.0"), std::string::npos);
  // Issue 34: the copy's metadata names its template (what the libvirt hook isolates it by).
  auto owner = virt::parse_run_metadata(copy);
  ASSERT_TRUE(owner) << copy;
  EXPECT_EQ(owner->template_domain, name_);
  EXPECT_EQ(owner->run_id, marker_);
  pugi::xml_document doc;
  doc.load_string(copy.c_str());
  auto vdb = doc.select_node("/domain/devices/disk[target/@dev='vdb']").node();
  EXPECT_NE(std::string(vdb.child("source").attribute("file").as_string()), scratch_.string())
      << "the second disk was not overlaid";
  EXPECT_EQ(std::string(vdb.child("backingStore").child("source").attribute("file").as_string()),
            scratch_.string());

  EXPECT_EQ(dumpxml(), before) << "the template's definition changed";
  EXPECT_EQ(sha256_of(image), image_sha);
  EXPECT_EQ(sha256_of(scratch_), scratch_sha);
}

TEST_F(OwnDomain, RunningTemplateIsRefused) {
  define(disk(scratch_, "vda"));  // no OS: it sits in the firmware
  ASSERT_EQ(virsh({"start", name_}).exit_code, 0);
  auto r = run_cli({"boot", kLayout, "--accel", "tcg", "--domain", name_, "--run-id", marker_},
                   std::chrono::minutes(2));
  EXPECT_EQ(r.exit_code, 65) << r.err;  // ExitCode::data_error: a refused template
  EXPECT_NE(r.err.find("template domain '" + name_ + "' is running"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace topolab::testing
