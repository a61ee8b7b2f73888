#include "orchestrator/libvirt/hostsource/host_source.hpp"

#include <gtest/gtest.h>

#include "host/sysfs_reader.hpp"

namespace topolab {
namespace {

TEST(HostSource, SeveralSourcesAreAnError) {
  auto t = load_host_topology({"qemu:///system", "/", ""});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("choose one"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("(got 2)"), std::string::npos) << t.error().message;
  t = load_host_topology({"qemu:///system", "/", "caps.xml"});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("--connect, --sysfs or --caps (got 3)"), std::string::npos)
      << t.error().message;
}

TEST(HostSource, CapsFile) {
  auto t = load_host_topology(
      {"", "", std::string(TOPOLAB_TESTS_DIR) + "/host/data/caps-sparse-cells.xml"});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->packages.size(), 2u);
  EXPECT_EQ(t->source.rfind("caps:", 0), 0u);
}

TEST(HostSource, MissingCapsFileNamesIt) {
  auto t = load_host_topology({"", "", "/nonexistent/caps.xml"});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("/nonexistent/caps.xml"), std::string::npos)
      << t.error().message;
  EXPECT_NE(t.error().message.find("No such file"), std::string::npos) << t.error().message;
}

TEST(HostSource, TestDriverUri) {
  auto t = load_host_topology({"test:///default", "", ""});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->online_cpus().size(), 16u);
  EXPECT_EQ(t->numa_nodes.size(), 2u);
  EXPECT_EQ(t->source, "libvirt:test:///default");
}

TEST(HostSource, BadUriFails) {
  auto t = load_host_topology({"nosuchdriver:///x", "", ""});
  ASSERT_FALSE(t.ok());
  // Refused as input (no such driver: virt/connection_uri.hpp), naming the URI; not a generic
  // failure (which exits the same but tells the user nothing about what to fix).
  EXPECT_EQ(t.error().kind, ErrorKind::input) << to_string(t.error().kind);
  EXPECT_NE(t.error().message.find("nosuchdriver:///x"), std::string::npos) << t.error().message;
}

// The default source (libvirt qemu:///system) and this machine's sysfs must describe the same
// machine: same packages, L3 domains, NUMA nodes and cores.
TEST(HostSource, LibvirtAgreesWithSysfsOnThisMachine) {
  auto lv = load_host_topology({});
  ASSERT_TRUE(lv.ok()) << lv.error().message;
  auto fs = read_sysfs_topology("/");
  ASSERT_TRUE(fs.ok()) << fs.error().message;
  EXPECT_EQ(lv->source, "libvirt:qemu:///system");
  EXPECT_EQ(lv->online_cpus(), fs->online_cpus());
  EXPECT_EQ(lv->cores(), fs->cores());
  ASSERT_EQ(lv->packages.size(), fs->packages.size());
  for (std::size_t i = 0; i < lv->packages.size(); ++i) {
    EXPECT_EQ(lv->packages[i].cpus, fs->packages[i].cpus);
  }
  ASSERT_EQ(lv->l3_domains.size(), fs->l3_domains.size());
  for (std::size_t i = 0; i < lv->l3_domains.size(); ++i) {
    EXPECT_EQ(lv->l3_domains[i].cpus, fs->l3_domains[i].cpus);
    EXPECT_EQ(lv->l3_domains[i].size_kib, fs->l3_domains[i].size_kib);
  }
  ASSERT_EQ(lv->numa_nodes.size(), fs->numa_nodes.size());
  for (std::size_t i = 0; i < lv->numa_nodes.size(); ++i) {
    EXPECT_EQ(lv->numa_nodes[i].cpus, fs->numa_nodes[i].cpus);
  }
  // Capabilities lack these; the local-URI path fills them from /sys and /proc.
  EXPECT_EQ(lv->isolated, fs->isolated);
  EXPECT_EQ(lv->model, fs->model);
}

}  // namespace
}  // namespace topolab
