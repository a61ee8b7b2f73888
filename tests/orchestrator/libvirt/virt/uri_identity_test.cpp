// When two libvirt URIs name one endpoint (virt/uri_identity.hpp): spellings of one daemon
// compare equal, different routes, ports, paths and /session users do not.
#include "orchestrator/libvirt/virt/uri_identity.hpp"

#include <gtest/gtest.h>

namespace topolab::virt {
namespace {

std::string key(const std::string& uri) {
  auto p = parse_connection_uri(uri);
  EXPECT_TRUE(p.ok()) << uri << ": " << (p ? "" : p.error().message);
  return p ? endpoint_key(*p) : "refused: " + uri;
}

void expect_one_endpoint(std::initializer_list<const char*> spellings) {
  const std::string first = key(*spellings.begin());
  for (const char* s : spellings) EXPECT_EQ(key(s), first) << s << " vs " << *spellings.begin();
}

TEST(EndpointKey, LoopbackNamesAreOneHost) {
  expect_one_endpoint({"qemu+tcp://127.0.0.1/system", "qemu+tcp://localhost/system",
                       "qemu+tcp://LocalHost./system", "qemu+tcp://[::1]/system",
                       "qemu+tcp://[0:0:0:0:0:0:0:1]:16509/system", "qemu+tcp://127.1/system",
                       "qemu+tcp://127.0.1.1:16509/system", "qemu+tcp://[::ffff:127.0.0.1]/system",
                       "qemu+tcp:///system"});
  expect_one_endpoint({"qemu+ssh://localhost/system", "qemu+libssh2://127.0.0.1:22/system",
                       "qemu+libssh://[::1]/system?no_tty=1", "qemu+ssh:///system"});
  EXPECT_EQ(key("qemu+tcp://localhost/system"), "qemu+tcp://@localhost:16509/system");
}

TEST(EndpointKey, SpellingsOfOneHostAreOne) {
  expect_one_endpoint({"qemu+tcp://box/system", "qemu+tcp://BOX:16509/system",
                       "qemu+tcp://box./system", "qemu+tcp://box/system?mode=direct"});
  expect_one_endpoint({"qemu://box/system", "qemu+tls://box:16514/system"});
  expect_one_endpoint({"qemu:///system", "qemu+unix:///system"});
  // Numeric addresses in their canonical form (as the connect parses them, no DNS).
  expect_one_endpoint(
      {"qemu+tcp://10.0.0.7/system", "qemu+tcp://10.0.7/system", "qemu+tcp://167772167/system"});
  expect_one_endpoint({"qemu+ssh://[fe80::1]/system", "qemu+ssh://[FE80:0::1]:22/system"});
  // /system is the machine's one daemon whoever logs in.
  expect_one_endpoint(
      {"qemu+ssh://root@box/system", "qemu+ssh://alice@box/system", "qemu+ssh://box/system"});
}

TEST(EndpointKey, DifferentEndpointsStayApart) {
  // Two routes to one machine (the remote tests run two lanes so); a port may be a tunnel.
  EXPECT_NE(key("qemu:///system"), key("qemu+tcp://127.0.0.1:16509/system"));
  EXPECT_NE(key("qemu+ssh://localhost/system"), key("qemu+tcp://localhost/system"));
  EXPECT_NE(key("qemu+tcp://127.0.0.1:16509/system"), key("qemu+tcp://127.0.0.1:16510/system"));
  EXPECT_NE(key("qemu+tcp://box/system"), key("qemu+tcp://box/session"));
  EXPECT_NE(key("qemu+tcp://box/system"), key("qemu+tcp://box2/system"));
  EXPECT_NE(key("qemu+tcp://10.0.0.7/system"), key("qemu+tcp://10.0.0.8/system"));
  // Names are not looked up: a DNS name of this machine is another spelling we cannot see.
  EXPECT_NE(key("qemu+tcp://localhost/system"), key("qemu+tcp://box/system"));
  // One daemon per user under /session.
  EXPECT_NE(key("qemu+ssh://alice@box/session"), key("qemu+ssh://bob@box/session"));
  EXPECT_NE(key("qemu:///system"), key("test:///system"));
  // libvirt refuses "/system/" (unexpected qemu URI path): not a spelling of /system.
  EXPECT_NE(key("qemu+tcp://box/system"), key("qemu+tcp://box/system/"));
}

}  // namespace
}  // namespace topolab::virt
