// Issue 12 class 6: `apply` never changes what it does not show. Against the real
// qemu:///system (define only, never start; each test's throw-away domain is undefined on every
// path): a layout without memory_mib keeps the domain's memory (a 4 GiB VM stays 4 GiB, its NUMA
// cells split it), one with memory_mib resizes it (issue 34: <memory>, <currentMemory> and the
// cells, in the diff and the notes) unless its hugepages would not divide it, a <vcpus> hot-plug
// list is removed in the diff rather than failing at define, a definition libvirt refuses fails
// at dry-run with libvirt's reason, and the dry-run diff is exactly the change apply makes.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <unistd.h>

#include <pugixml.hpp>

#include "orchestrator/libvirt/apply/domain_apply.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "orchestrator/planning/placement/synthetic_host.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

struct Planned {
  Layout layout;
  PlacementPlan plan;
};

// groups x cores x 1 thread, unpinned; `numa` exposes one NUMA cell per group; memory_mib only
// when `memory_mib` is given.
Planned layout_of(int groups, int cores, bool numa, const char* hugepages = nullptr,
                  const char* memory_mib = nullptr) {
  Layout l;
  l.name = "apply-test";
  EXPECT_TRUE(set_layout_field(l, "guest.l3_groups", std::to_string(groups)));
  EXPECT_TRUE(set_layout_field(l, "guest.cores_per_group", std::to_string(cores)));
  EXPECT_TRUE(set_layout_field(l, "guest.threads_per_core", "1"));
  EXPECT_TRUE(set_layout_field(l, "expose", numa ? "numa" : "flat"));
  EXPECT_TRUE(set_layout_field(l, "policy", "unpinned"));
  if (hugepages) {
    EXPECT_TRUE(set_layout_field(l, "memory.hugepages", hugepages));
  }
  if (memory_mib) {
    EXPECT_TRUE(set_layout_field(l, "guest.memory_mib", memory_mib));
  }
  EXPECT_TRUE(validate_layout(l));
  auto p = plan_placement(l, make_synthetic_host({1, 2, 8, 2}));
  if (!p) throw FatalError(p.error().message);
  return {l, *p};
}

std::string domain_xml(const std::string& name, const std::string& memory,
                       const std::string& extra) {
  return "<domain type='qemu'><name>" + name + "</name><memory unit='KiB'>" + memory + "</memory>" +
         extra +
         "<os><type arch='x86_64' machine='q35'>hvm</type></os>"
         "<devices><memballoon model='none'/></devices></domain>";
}

class ApplyConsistency : public ::testing::Test {
 protected:
  void SetUp() override {
    conn_ = virConnectOpen("qemu:///system");
    if (!conn_) GTEST_SKIP() << "qemu:///system not reachable";
    name_ = "topolab-test-apply-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    backups_ = fs::temp_directory_path() / (name_ + "-backups");
  }
  void define(const std::string& memory_kib, const std::string& extra) {
    dom_ = virDomainDefineXML(conn_, domain_xml(name_, memory_kib, extra).c_str());
    ASSERT_NE(dom_, nullptr) << virt::capture_libvirt_error().message;
  }
  void TearDown() override {
    if (dom_) {
      virDomainUndefine(dom_);
      virDomainFree(dom_);
    }
    if (conn_) {
      EXPECT_EQ(preview_domains_left(), 0) << "a topolab-preview- domain was left defined";
      virConnectClose(conn_);
    }
    std::error_code ec;
    fs::remove_all(backups_, ec);
  }
  int preview_domains_left() {
    virDomainPtr* doms = nullptr;
    int n = virConnectListAllDomains(conn_, &doms, 0), left = 0;
    const std::string mine = "topolab-preview-" + std::to_string(getpid()) + "-";
    for (int i = 0; i < n; ++i) {
      if (std::string(virDomainGetName(doms[i])).rfind(mine, 0) == 0) ++left;
      virDomainFree(doms[i]);
    }
    free(doms);  // NOLINT: libvirt allocates with malloc
    return left;
  }
  std::string xml() {
    char* x = virDomainGetXMLDesc(dom_, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE);
    std::string s = x ? x : "";
    free(x);  // NOLINT
    return s;
  }
  ApplyOptions opts(bool dry) {
    ApplyOptions o;
    o.domain = name_;
    o.backup_dir = backups_;
    o.dry_run = dry;
    return o;
  }
  // Dry-run, then apply; the dry-run's diff must be exactly the change apply made.
  void expect_dry_run_predicts_apply(const Planned& pl, ApplyResult& dry, ApplyResult& real) {
    const std::string before = xml();
    auto d = apply_layout_to_domain(opts(true), pl.layout, pl.plan, "GenuineIntel");
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(xml(), before) << "a dry run changes nothing";
    auto r = apply_layout_to_domain(opts(false), pl.layout, pl.plan, "GenuineIntel");
    ASSERT_TRUE(r) << r.error().message;
    const std::string after = xml();
    EXPECT_EQ(d->diff, unified_diff(before, after, "a/" + name_ + ".xml", "b/" + name_ + ".xml"))
        << "dry-run diff:\n"
        << d->diff << "\nreal change:\n"
        << unified_diff(before, after, "before", "after");
    EXPECT_EQ(r->diff, d->diff);
    for (const auto& n : r->notes) EXPECT_EQ(n.find("differs"), std::string::npos) << n;
    dry = std::move(d).value();
    real = std::move(r).value();
  }
  virConnectPtr conn_ = nullptr;
  virDomainPtr dom_ = nullptr;
  std::string name_;
  fs::path backups_;
};

std::uint64_t cell_sum_kib(const std::string& xml) {
  pugi::xml_document doc;
  doc.load_string(xml.c_str());
  std::uint64_t sum = 0;
  for (auto c : doc.child("domain").child("cpu").child("numa").children("cell")) {
    sum += c.attribute("memory").as_ullong();
  }
  return sum;
}

TEST_F(ApplyConsistency, ANumaLayoutWithoutMemoryKeepsA4GiBDomainAt4GiB) {
  define("4194304", "<vcpu>1</vcpu>");
  ApplyResult dry, real;
  expect_dry_run_predicts_apply(layout_of(2, 1, true), dry, real);
  const std::string after = xml();
  EXPECT_NE(after.find("<memory unit='KiB'>4194304</memory>"), std::string::npos) << after;
  EXPECT_NE(after.find("<currentMemory unit='KiB'>4194304</currentMemory>"), std::string::npos);
  EXPECT_EQ(cell_sum_kib(after), 4194304u) << after;
  EXPECT_EQ(dry.diff.find("\n-  <memory"), std::string::npos) << dry.diff;
  EXPECT_EQ(dry.diff.find("\n+  <memory"), std::string::npos) << dry.diff;
  EXPECT_NE(dry.diff.find("+      <cell id='1' cpus='1' memory='2097152' unit='KiB'/>"),
            std::string::npos)
      << dry.diff;
  bool noted = false;
  for (const auto& n : dry.notes) {
    noted |= n == "memory: the layout gives no guest.memory_mib; the domain keeps its own 4096 MiB";
  }
  EXPECT_TRUE(noted) << "the output says why the memory stays";
}

bool has_note(const ApplyResult& r, const std::string& text) {
  for (const auto& n : r.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_F(ApplyConsistency, ALayoutWithMemoryResizesTheDomainAndItsCells) {
  define("4194304", "<currentMemory unit='KiB'>3145728</currentMemory><vcpu>1</vcpu>");
  ApplyResult dry, real;
  expect_dry_run_predicts_apply(layout_of(2, 1, true, nullptr, "2048"), dry, real);
  const std::string after = xml();
  EXPECT_NE(after.find("<memory unit='KiB'>2097152</memory>"), std::string::npos) << after;
  EXPECT_NE(after.find("<currentMemory unit='KiB'>2097152</currentMemory>"), std::string::npos)
      << after;
  EXPECT_EQ(cell_sum_kib(after), 2097152u) << after;
  EXPECT_NE(dry.diff.find("\n-  <memory unit='KiB'>4194304</memory>"), std::string::npos)
      << dry.diff;
  EXPECT_NE(dry.diff.find("\n+  <memory unit='KiB'>2097152</memory>"), std::string::npos)
      << dry.diff;
  EXPECT_NE(dry.diff.find("\n+  <currentMemory unit='KiB'>2097152</currentMemory>"),
            std::string::npos)
      << dry.diff;
  EXPECT_TRUE(has_note(dry, "memory: 4096 MiB -> 2048 MiB (layout memory_mib")) << dry.diff;
  EXPECT_TRUE(has_note(real, "memory: 4096 MiB -> 2048 MiB (layout memory_mib"));

  // Applied again: nothing left to change, and said so.
  auto again = apply_layout_to_domain(opts(true), layout_of(2, 1, true, nullptr, "2048").layout,
                                      layout_of(2, 1, true, nullptr, "2048").plan, "GenuineIntel");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_FALSE(again->changed) << again->diff;
  EXPECT_TRUE(has_note(*again, "memory: already 2048 MiB"));
}

// Hugepages back the whole memory: a size they do not divide is refused with the reason, before
// any backup or define, whether the size or the pages come from the layout or the domain.
TEST_F(ApplyConsistency, HugepagesThatDoNotDivideTheMemoryAreRefused) {
  define("2097152",
         "<memoryBacking><hugepages><page size='1' unit='G'/></hugepages></memoryBacking>"
         "<vcpu>1</vcpu>");
  const std::string before = xml();
  auto odd = layout_of(1, 1, false, nullptr, "1536");
  auto d = apply_layout_to_domain(opts(false), odd.layout, odd.plan, "GenuineIntel");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("memory 1536 MiB is not a whole number of 1 GiB pages (the "
                                   "domain's own <memoryBacking><hugepages>)"),
            std::string::npos)
      << d.error().message;
  EXPECT_EQ(xml(), before);
  EXPECT_FALSE(fs::exists(backups_)) << "refused before any backup or define";
  // The layout's own 2 MiB pages replace the domain's 1 GiB ones: 1536 MiB then fits.
  auto small_pages = layout_of(1, 1, false, "2M", "1536");
  auto ok =
      apply_layout_to_domain(opts(true), small_pages.layout, small_pages.plan, "GenuineIntel");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_NE(ok->diff.find("+  <memory unit='KiB'>1572864</memory>"), std::string::npos) << ok->diff;
  EXPECT_NE(ok->diff.find("+      <page size='2048' unit='KiB'/>"), std::string::npos) << ok->diff;
  // The layout's 1 GiB pages on the domain's own 2 GiB (no memory_mib): fits.
  auto big_pages = layout_of(1, 1, false, "1G");
  EXPECT_TRUE(apply_layout_to_domain(opts(true), big_pages.layout, big_pages.plan, "GenuineIntel"));
}

TEST_F(ApplyConsistency, VcpuHotplugListIsRemovedInTheDiff) {
  define("1048576",
         "<vcpu current='2'>4</vcpu><vcpus><vcpu id='0' enabled='yes' hotpluggable='no' "
         "order='1'/><vcpu id='1' enabled='yes' hotpluggable='yes' order='2'/><vcpu id='2' "
         "enabled='no' hotpluggable='yes'/><vcpu id='3' enabled='no' hotpluggable='yes'/></vcpus>");
  ApplyResult dry, real;
  expect_dry_run_predicts_apply(layout_of(1, 2, false), dry, real);
  EXPECT_NE(dry.diff.find("-  <vcpus>"), std::string::npos) << dry.diff;
  EXPECT_NE(dry.diff.find("-  <vcpu placement='static' current='2'>4</vcpu>"), std::string::npos)
      << dry.diff;
  EXPECT_EQ(xml().find("<vcpus>"), std::string::npos);
}

TEST_F(ApplyConsistency, WhatLibvirtRefusesFailsAtDryRunWithItsReason) {
  // vcpusched names vCPU 3; the layout has 2 vCPUs. The text patch keeps the user's tuning,
  // and libvirt refuses the result: the dry-run must say so, not show a clean diff.
  define("1048576",
         "<vcpu>4</vcpu><cputune><vcpusched vcpus='3' scheduler='fifo' priority='1'/></cputune>");
  const std::string before = xml();
  auto pl = layout_of(1, 2, false);
  auto d = apply_layout_to_domain(opts(true), pl.layout, pl.plan, "GenuineIntel");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("libvirt refuses the new definition"), std::string::npos)
      << d.error().message;
  EXPECT_NE(d.error().message.find("vCPU '3' is not present"), std::string::npos)
      << d.error().message;
  auto r = apply_layout_to_domain(opts(false), pl.layout, pl.plan, "GenuineIntel");
  ASSERT_FALSE(r);
  EXPECT_EQ(xml(), before);
  EXPECT_FALSE(fs::exists(backups_)) << "refused before any backup or define";
}

TEST_F(ApplyConsistency, HugepageCellsThatDoNotDivideTheDomainsMemoryAreRefused) {
  define("1572864", "<vcpu>1</vcpu>");  // 1.5 GiB: not a whole number of 1 GiB pages
  const std::string before = xml();
  auto pl = layout_of(2, 1, true, "1G");  // no memory_mib: the domain's own 1.5 GiB stays
  auto d = apply_layout_to_domain(opts(true), pl.layout, pl.plan, "GenuineIntel");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("memory 1536 MiB is not a whole number of 1 GiB pages (the "
                                   "layout's memory.hugepages)"),
            std::string::npos)
      << d.error().message;
  EXPECT_EQ(xml(), before);
}

TEST(DomainPatchMemory, NumaCellsRefusedForMemoryHotplugDomains) {
  auto pl = layout_of(2, 1, true);
  DomainSpec spec;
  spec.layout = &pl.layout;
  spec.plan = &pl.plan;
  auto out = patch_domain_xml(
      "<domain type='kvm'><name>x</name><maxMemory slots='4' unit='KiB'>8388608</maxMemory>"
      "<memory unit='KiB'>4194304</memory><vcpu>2</vcpu></domain>",
      spec);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("<maxMemory>"), std::string::npos) << out.error().message;
  // Any libvirt memory unit is read as the domain's size.
  out = patch_domain_xml(
      "<domain type='kvm'><name>x</name><memory unit='GiB'>4</memory><vcpu>2</vcpu></domain>",
      spec);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->find("memory='2097152' unit='KiB'"), std::string::npos) << *out;
}

}  // namespace
}  // namespace topolab
