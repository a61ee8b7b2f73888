// doctor -c URI for another host (issue 16 item 6): the checks that read /sys, /proc and /dev
// describe this machine, so through a remote connection they skip with the reason; without
// libvirt here (check_libvirt off), nothing is contacted.
#include <gtest/gtest.h>

#include <set>

#include "orchestrator/hostprep/doctor/doctor.hpp"

namespace topolab::doctor {
namespace {

TEST(DoctorRemote, FilesystemChecksSkipNamingTheHost) {
  DoctorOptions options;
  options.connect_uri = "qemu+ssh://root@box.example/system";
  options.check_libvirt = false;
  auto results = run_doctor(options);
  std::set<std::string> skipped;
  for (const auto& r : results) {
    if (r.name == "libvirt" || r.name == "exposure") continue;
    EXPECT_EQ(r.status, CheckStatus::kSkip) << r.name << ": " << r.reason;
    EXPECT_EQ(r.reason.rfind("remote (", 0), 0u) << r.reason;
    if (r.name == "hugepages") {  // answered through libvirt, which was not asked here
      EXPECT_EQ(r.reason, "remote (libvirt not asked: --no-libvirt)");
    } else {
      EXPECT_NE(r.reason.find("qemu+ssh://root@box.example/system"), std::string::npos) << r.reason;
    }
    skipped.insert(r.name);
  }
  EXPECT_EQ(skipped, (std::set<std::string>{"kvm", "iommu", "isolation", "hugepages", "cpufreq",
                                            "irq", "thp", "smt"}));
}

TEST(DoctorRemote, LocalConnectionsStillReadThisMachine) {
  for (const char* uri : {"", "qemu:///system", "qemu+unix:///system"}) {
    DoctorOptions options;
    options.connect_uri = uri;
    options.check_libvirt = false;
    const auto results = run_doctor(options);
    // Every filesystem check ran here (an empty list would pass the loop below vacuously).
    std::set<std::string> names;
    for (const auto& r : results) {
      EXPECT_EQ(r.reason.find("remote ("), std::string::npos) << uri << " " << r.name;
      names.insert(r.name);
    }
    for (const char* check :
         {"kvm", "iommu", "isolation", "hugepages", "cpufreq", "irq", "thp", "smt"}) {
      EXPECT_EQ(names.count(check), 1u) << "uri '" << uri << "': no '" << check << "' check";
    }
  }
}

}  // namespace
}  // namespace topolab::doctor
