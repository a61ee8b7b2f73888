#include "orchestrator/hostprep/doctor/layout_requirements.hpp"

#include <gtest/gtest.h>

#include "orchestrator/hostprep/doctor/doctor.hpp"

namespace topolab::doctor {
namespace {

std::string data(const std::string& name) {
  return std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/hostprep/doctor/data/" + name;
}

const CheckResult* find(const std::vector<CheckResult>& results, const std::string& name) {
  for (const auto& r : results) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

TEST(LayoutRequirements, ReadsTheVfioFields) {
  RequirementsRequest rr;
  rr.layout_file = data("layouts/win-vfio.toml");
  rr.root = data("tuned-host");
  auto req = load_guest_requirements(rr);
  ASSERT_TRUE(req.ok()) << req.error().message;
  EXPECT_EQ(req->name, "win-vfio");
  EXPECT_EQ(req->guest_cpus.to_string(), "4-7");  // the tree has no topology: layout's host_cpus
  EXPECT_EQ(req->memory_mib, 14336u);
  EXPECT_EQ(req->hugepage_kib, 2048u);
  EXPECT_TRUE(req->hugepages_locked);
  EXPECT_EQ(req->sockets, 2);
  EXPECT_EQ(req->vcpus, 4);
  ASSERT_TRUE(req->guest_os);
  EXPECT_EQ(req->guest_os->name, "windows-home");
  ASSERT_EQ(req->hostdevs.size(), 2u);
  EXPECT_EQ(req->hostdevs[0].pci_address, "0000:01:00.0");
}

TEST(LayoutRequirements, CommandLineOverridesTheLayout) {
  RequirementsRequest rr{data("layouts/win-vfio.toml"), data("tuned-host"), "", "6-7",
                         "windows-pro"};
  auto req = load_guest_requirements(rr).value();
  EXPECT_EQ(req.guest_cpus.to_string(), "6-7");
  ASSERT_TRUE(req.guest_os);
  EXPECT_EQ(req.guest_os->name, "windows-pro");
}

TEST(LayoutRequirements, BadLayoutIsAnErrorNamingTheFile) {
  RequirementsRequest rr;
  rr.layout_file = data("no-such.toml");
  auto req = load_guest_requirements(rr);
  ASSERT_FALSE(req.ok());
  EXPECT_NE(req.error().message.find("no-such.toml"), std::string::npos);
}

TEST(LayoutRequirements, PresetNamesWork) {
  RequirementsRequest rr;
  rr.layout_file = "epyc-7451-socket";  // templates/topologies, 8 groups x 3 cores x 2 threads
  rr.root = data("tuned-host");         // cannot place it here, no host_cpus: a placement finding
  auto req = load_guest_requirements(rr);
  ASSERT_TRUE(req.ok()) << req.error().message;
  EXPECT_TRUE(req->guest_cpus.empty());
  EXPECT_NE(req->placement_error.find("epyc-7451-socket"), std::string::npos)
      << req->placement_error;
  DoctorOptions options;
  options.root = data("tuned-host");
  options.guest = *req;
  auto results = run_doctor(options);
  ASSERT_NE(find(results, "placement"), nullptr);
  EXPECT_EQ(find(results, "placement")->status, CheckStatus::kFail);
  EXPECT_EQ(find(results, "isolation")->status, CheckStatus::kOk);  // guest CPUs unknown
  rr.guest_cpus = "0-7";  // with the CPUs given, the rest of the preset is read
  auto given = load_guest_requirements(rr);
  ASSERT_TRUE(given.ok()) << given.error().message;
  EXPECT_EQ(given->vcpus, 48);
  EXPECT_EQ(given->threads_per_core, 2);
}

TEST(RunDoctor, VfioLayoutOnTheTunedHost) {
  RequirementsRequest rr{data("layouts/win-vfio.toml"), data("tuned-host"), "", "", ""};
  DoctorOptions options;
  options.root = data("tuned-host");
  options.guest = load_guest_requirements(rr).value();
  auto results = run_doctor(options);
  EXPECT_EQ(find(results, "libvirt")->status, CheckStatus::kSkip);
  EXPECT_EQ(find(results, "kvm")->status, CheckStatus::kOk);
  EXPECT_EQ(find(results, "iommu")->status, CheckStatus::kOk);
  EXPECT_EQ(find(results, "hostdev 0000:01:00.0")->status, CheckStatus::kFail);  // not in tree
  EXPECT_EQ(find(results, "isolation")->status, CheckStatus::kOk);
  EXPECT_EQ(find(results, "hugepages")->status, CheckStatus::kOk);  // 7168 of 8192 free
  EXPECT_EQ(find(results, "cpufreq")->status, CheckStatus::kOk);
  EXPECT_EQ(find(results, "irq")->status, CheckStatus::kOk);
  EXPECT_EQ(find(results, "exposure")->status, CheckStatus::kWarn);  // 2 sockets, Home
  EXPECT_TRUE(any_failed(results));
  EXPECT_EQ(worst_status(results), CheckStatus::kFail);
}

TEST(RunDoctor, SmtLayoutOnTheNestedVm) {
  RequirementsRequest rr{data("layouts/linux-smt.toml"), data("nested-vm"), "", "", ""};
  DoctorOptions options;
  options.root = data("nested-vm");
  options.guest = load_guest_requirements(rr).value();
  auto results = run_doctor(options);
  EXPECT_EQ(find(results, "kvm")->status, CheckStatus::kWarn);
  EXPECT_EQ(find(results, "smt")->status, CheckStatus::kFail);
  EXPECT_EQ(find(results, "hugepages")->status, CheckStatus::kFail);  // no 1G pool
  EXPECT_EQ(find(results, "exposure")->status, CheckStatus::kOk);
}

}  // namespace
}  // namespace topolab::doctor
