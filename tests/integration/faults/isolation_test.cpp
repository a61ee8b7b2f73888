// Isolation (issue 7, item 4): the leftover cleanup a rerun performs after SIGKILL removes only
// topolab's own dead-run domains. Real qemu:///system: define bystanders next to a genuine
// leftover, run cleanup_stale_domains, check the leftover is gone and every bystander is
// untouched (same XML). Domains are defined, never started: no boot needed.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/process.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "orchestrator/libvirt/virt/stale_domains.hpp"

namespace topolab {
namespace {

std::string minimal_domain(const std::string& name, const std::string& metadata) {
  return "<domain type='qemu'><name>" + name +
         "</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>" + metadata +
         "<os><type arch='x86_64'>hvm</type></os></domain>";
}

// A PID that existed and is gone now: a child that exited and was reaped.
long dead_pid() {
  auto child = Process::spawn(ProcessSpec({"/bin/true"}));
  if (!child) return 0x7ffffffe;  // no such PID either
  const pid_t pid = child->pid();
  child->wait(std::chrono::seconds(10));
  return pid;
}

class Isolation : public ::testing::Test {
 protected:
  void SetUp() override {
    auto conn = virt::open_connection("qemu:///system");
    if (!conn) GTEST_SKIP() << "qemu:///system unreachable: " << conn.error().message;
    conn_ = std::move(*conn);
  }
  void TearDown() override {
    for (const auto& name : defined_) {
      virt::DomainPtr dom(virDomainLookupByName(conn_.get(), name.c_str()));
      if (dom) virDomainUndefine(dom.get());
    }
  }
  void define(const std::string& name, const std::string& metadata) {
    defined_.push_back(name);
    virt::DomainPtr dom(virDomainDefineXML(conn_.get(), minimal_domain(name, metadata).c_str()));
    ASSERT_TRUE(dom) << virt::capture_libvirt_error().context("define " + name).message;
  }
  std::string xml_of(const std::string& name) {
    virt::DomainPtr dom(virDomainLookupByName(conn_.get(), name.c_str()));
    if (!dom) return "";
    virt::LibvirtString xml(virDomainGetXMLDesc(dom.get(), 0));
    return xml ? std::string(xml.get()) : "";
  }
  virt::ConnectPtr conn_;
  std::vector<std::string> defined_;
};

TEST_F(Isolation, StaleCleanupRemovesOnlyOwnDeadRunDomains) {
  const std::string pid = std::to_string(getpid());
  const std::string run_id = "faults-" + pid;
  virt::RunOwner dead{run_id, dead_pid(), 1};
  auto with_meta = [](const virt::RunOwner& owner) {
    return "<metadata><topolab:run xmlns:topolab='" + std::string(virt::kMetadataUri) + "' id='" +
           owner.run_id + "' pid='" + std::to_string(owner.pid) + "' start='" +
           std::to_string(owner.start_time) + "'/></metadata>";
  };
  const std::string leftover = "topolab-faults-leftover-" + pid;
  const std::string bystander = "notopolab-bystander-" + pid;            // not our prefix
  const std::string bystander_meta = "notopolab-bystander-meta-" + pid;  // our metadata, not ours
  const std::string no_meta = "topolab-faults-nometa-" + pid;            // our prefix, no metadata
  const std::string live = "topolab-faults-live-" + pid;  // owner alive (this process)
  define(leftover, with_meta(dead));
  define(bystander, "");
  define(bystander_meta, with_meta(dead));
  define(no_meta, "");
  define(live, with_meta(virt::current_run_owner(run_id)));
  if (HasFatalFailure()) return;
  const std::vector<std::string> keep{bystander, bystander_meta, no_meta, live};
  std::vector<std::string> before;
  for (const auto& n : keep) before.push_back(xml_of(n));

  auto removed = virt::cleanup_stale_domains(conn_.get());
  ASSERT_TRUE(removed.ok()) << removed.error().message;

  EXPECT_EQ(xml_of(leftover), "") << "the dead run's leftover should be gone";
  EXPECT_NE(std::find(removed->begin(), removed->end(), leftover), removed->end());
  for (std::size_t i = 0; i < keep.size(); ++i) {
    EXPECT_EQ(std::find(removed->begin(), removed->end(), keep[i]), removed->end()) << keep[i];
    EXPECT_EQ(xml_of(keep[i]), before[i]) << keep[i] << " was modified or removed";
  }
}

}  // namespace
}  // namespace topolab
