// Issue 32 class 1 and issue 34 (vTPM): template domains whose copies need more than overlays.
// - A UEFI template (<loader type='pflash'> + <nvram>): its copy names its own NVRAM copy and,
//   once started and cleaned up the way every topolab domain is (destroy_and_undefine), is gone
//   with that copy; the template, its definition and its NVRAM file are untouched. Before: the
//   undefine failed with "cannot undefine domain with nvram" and the copy stayed defined.
// - A template with an emulated TPM: refused before anything is created, with the reason.
// - A template with a PCI hostdev (managed='no', an address no host has): the copy carries it
//   to libvirt (whose start names the device) and nothing of the boot is left.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <pugixml.hpp>

#include "orchestrator/libvirt/guestsource/disk_guest.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "tests/integration/owndisk/test_disk.hpp"
#include "tests/support/store_view.hpp"

namespace topolab::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kOvmfCode = "/usr/share/OVMF/OVMF_CODE_4M.fd";
const fs::path kOvmfVars = "/usr/share/OVMF/OVMF_VARS_4M.fd";

CliRun uefi_virsh(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/virsh", "-c", "qemu:///system"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, std::chrono::minutes(2));
}

class OwnDomainState : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topolab-it-uefi-XXXXXX";
    dir_ = mkdtemp(tmpl);
    chmod(dir_.c_str(), 0755);  // QEMU (its own user) opens the disk and NVRAM through it
    fs::create_directories(dir_ / "overlays");
    auto r = run_process({"/usr/bin/qemu-img", "create", "-q", "-f", "qcow2",
                          (dir_ / "disk.qcow2").string(), "64M"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void TearDown() override {
    for (const auto& n : {copy_, name_}) {
      uefi_virsh({"destroy", n});
      uefi_virsh({"undefine", "--nvram", n});
    }
    EXPECT_EQ(topolab_domains_with(marker_), std::vector<std::string>{});
    fs::remove_all(dir_);
  }
  void define(const std::string& os_extra, const std::string& devices) {
    std::ofstream(dir_ / "template.xml")
        << "<domain type='qemu'><name>" << name_
        << "</name><memory unit='MiB'>256</memory><vcpu>1</vcpu><os><type arch='x86_64' "
           "machine='q35'>hvm</type>"
        << os_extra
        << "</os><features><acpi/></features><devices><disk type='file' device='disk'><driver "
           "name='qemu' "
        << "type='qcow2'/><source file='" << (dir_ / "disk.qcow2").string()
        << "'/><target dev='vda' bus='virtio'/></disk>" << devices
        << "<memballoon model='none'/></devices></domain>";
    auto r = uefi_virsh({"define", (dir_ / "template.xml").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  fs::path dir_;
  std::string marker_ = "it" + std::to_string(getpid()) + "-state";
  std::string name_ = "ownguest-state-" + std::to_string(getpid());
  std::string copy_ = "topolab-" + marker_;
};

TEST_F(OwnDomainState, UefiCopyIsUndefinedWithItsOwnNvramAndTheTemplatesIsUntouched) {
  ASSERT_TRUE(fs::exists(kOvmfCode)) << "ovmf (scripts/packages/test.txt) is not installed";
  const fs::path vars = dir_ / "template_VARS.fd";
  fs::copy_file(kOvmfVars, vars);
  define("<loader readonly='yes' type='pflash'>" + kOvmfCode.string() + "</loader><nvram>" +
             vars.string() + "</nvram>",
         "");
  const auto before = uefi_virsh({"dumpxml", "--inactive", name_}).out;
  const auto vars_sha = sha256_of(vars);

  fs::path copy_nvram;
  {
    auto prepared =
        guestsource::prepare_template_domain("qemu:///system", name_, marker_, dir_ / "overlays");
    ASSERT_TRUE(prepared) << prepared.error().message;
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(prepared->base_template->path().c_str()));
    auto domain = doc.child("domain");
    domain.child("name").text().set(copy_.c_str());
    domain.remove_child("uuid");
    copy_nvram = domain.child("os").child_value("nvram");
    EXPECT_NE(copy_nvram, vars) << "the copy names the template's NVRAM";
    EXPECT_TRUE(fs::exists(copy_nvram));
    doc.save_file((dir_ / "copy.xml").c_str());
    ASSERT_EQ(uefi_virsh({"define", (dir_ / "copy.xml").string()}).exit_code, 0);
    ASSERT_EQ(uefi_virsh({"start", copy_}).exit_code, 0);  // sits in the firmware: no OS

    auto conn = virt::open_connection("qemu:///system");
    ASSERT_TRUE(conn) << conn.error().message;
    auto dom = virt::lookup_domain(conn->get(), copy_);
    ASSERT_TRUE(dom) << dom.error().message;
    auto gone = virt::destroy_and_undefine(dom->get());
    EXPECT_TRUE(gone) << gone.error().message;
  }  // the run's owned files (overlay, NVRAM copy, base XML) go with PreparedDisk
  EXPECT_NE(uefi_virsh({"dominfo", copy_}).exit_code, 0) << "the copy is still defined";
  EXPECT_FALSE(fs::exists(copy_nvram)) << copy_nvram;
  EXPECT_EQ(uefi_virsh({"dumpxml", "--inactive", name_}).out, before);
  EXPECT_EQ(sha256_of(vars), vars_sha) << "the template's NVRAM was written";
}

TEST_F(OwnDomainState, AnEmulatedTpmTemplateIsRefusedWithTheReasonBeforeAnythingIsMade) {
  define("", "<tpm model='tpm-crb'><backend type='emulator' version='2.0'/></tpm>");
  auto r = run_cli({"boot", std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml",
                    "--accel", "tcg", "--domain", name_, "--run-id", marker_},
                   std::chrono::minutes(2));
  EXPECT_EQ(r.exit_code, 65) << r.err;  // ExitCode::data_error: a refused template
  EXPECT_NE(r.err.find("template domain '" + name_ + "' has an emulated TPM"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("bound to the template's UUID"), std::string::npos) << r.err;
  EXPECT_EQ(overlays_with(marker_), std::vector<std::string>{});
}

// The same template under an experiment ([guest] domain = ...): `run` refuses it with the
// reason before any boot, and records no boot or run in the store (issue 34).
TEST_F(OwnDomainState, AnExperimentOverAnEmulatedTpmTemplateIsRefusedWithTheReason) {
  define("", "<tpm model='tpm-crb'><backend type='emulator' version='2.0'/></tpm>");
  const fs::path exp = dir_ / "tpm.toml";
  std::ofstream(exp) << "name = \"tpm-template\"\nlayout = \"" << TOPOLAB_SOURCE_DIR
                     << "/examples/layouts/two-groups.toml\"\nrepetitions = 1\n\n[guest]\n"
                     << "domain = \"" << name_ << "\"\n\n[[benchmark]]\nname = \"sqrt\"\n"
                     << "params = { threads = 1, n = 1000, repeats = 1 }\n";
  const fs::path db = dir_ / "tpm.db";
  auto r = run_cli({"run", exp.string(), "--store", db.string(), "--accel", "tcg", "--json"},
                   std::chrono::minutes(3));
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("template domain '" + name_ + "' has an emulated TPM"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("bound to the template's UUID"), std::string::npos) << r.err;
  EXPECT_EQ(topolab_domains_with("topolab-"), std::vector<std::string>{})
      << "a copy of the template was created";
  StoreView v = read_store(db);
  EXPECT_EQ(v.total_runs, 0);
  EXPECT_TRUE(v.boots.empty());
}

TEST_F(OwnDomainState, APciHostdevReachesTheCopyAndNothingIsLeftWhenItCannotStart) {
  define("",
         "<hostdev mode='subsystem' type='pci' managed='no'><source><address domain='0x0000' "
         "bus='0x7e' slot='0x1f' function='0x7'/></source></hostdev>");
  auto r =
      run_cli({"boot", std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml",
               "--accel", "tcg", "--domain", name_, "--run-id", marker_, "--boot-retries", "0"},
              std::chrono::minutes(3));
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("kept the base's 1 PCI host device(s) unchanged: 0000:7e:1f.7"),
            std::string::npos)
      << r.err;
  // libvirt refuses to start it: on a host without VFIO "host doesn't support passthrough of
  // host PCI devices", on one with VFIO an error naming the missing device. A copy without the
  // hostdev (the old behaviour) met neither.
  const bool refused_for_it = r.err.find("passthrough of host PCI devices") != std::string::npos ||
                              r.err.find("0000:7e:1f.7") != r.err.rfind("0000:7e:1f.7");
  EXPECT_TRUE(refused_for_it) << r.err;
  EXPECT_EQ(overlays_with(marker_), std::vector<std::string>{});
}

}  // namespace
}  // namespace topolab::testing
