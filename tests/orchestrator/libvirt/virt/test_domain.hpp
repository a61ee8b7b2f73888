#pragma once
// Helpers for lifecycle tests against libvirt's test:///default driver (in-process, no QEMU).
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"

namespace topolab::virt::testing {

inline std::string test_domain_xml(const std::string& name) {
  return "<domain type='test'><name>" + name +
         "</name><memory unit='MiB'>64</memory><vcpu>1</vcpu><os><type>hvm</type></os>"
         "</domain>";
}

inline std::string owned_test_domain_xml(const std::string& name, const RunOwner& owner) {
  auto xml = add_run_metadata(test_domain_xml(name), owner);
  EXPECT_TRUE(xml.ok()) << xml.error().message;
  return xml.ok() ? *xml : std::string();
}

inline bool domain_exists(virConnectPtr conn, const std::string& name) {
  virDomainPtr d = virDomainLookupByName(conn, name.c_str());
  if (!d) return false;
  virDomainFree(d);
  return true;
}

class TestDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = open_connection("test:///default");
    ASSERT_TRUE(c.ok()) << c.error().message;
    conn_ = std::move(c).value();
  }
  virConnectPtr conn() const { return conn_.get(); }
  ConnectPtr conn_;
};

}  // namespace topolab::virt::testing
