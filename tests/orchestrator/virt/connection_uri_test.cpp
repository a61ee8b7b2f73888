// The local/remote decision and the URI checks (virt/connection_uri.hpp), without libvirt.
#include "orchestrator/virt/connection_uri.hpp"

#include <gtest/gtest.h>

namespace topolab::virt {
namespace {

ConnectionUri parsed(const std::string& uri) {
  auto r = parse_connection_uri(uri);
  EXPECT_TRUE(r.ok()) << uri << ": " << (r ? "" : r.error().message);
  return r ? *r : ConnectionUri{};
}

TEST(ConnectionUri, LocalSocketsAreLocal) {
  for (const char* uri :
       {"", "qemu:///system", "qemu:///session", "qemu+unix:///system",
        "qemu+unix:///system?socket=/run/libvirt/libvirt-sock", "test:///default"}) {
    auto u = parsed(uri);
    EXPECT_FALSE(u.remote) << uri;
    EXPECT_EQ(u.host, "") << uri;
  }
  EXPECT_EQ(parsed("").uri, "qemu:///system");
  EXPECT_EQ(parsed("qemu+unix:///system").transport, "unix");
}

TEST(ConnectionUri, AnyHostOrNetworkTransportIsRemote) {
  struct Case {
    const char* uri;
    const char* host;
    const char* transport;
  };
  for (const auto& c :
       {Case{"qemu+tcp://127.0.0.1:16509/system", "127.0.0.1", "tcp"},
        Case{"qemu+ssh://root@box/system", "box", "ssh"},
        Case{"qemu+ssh://root@box:2222/system?keyfile=/k", "box", "ssh"},
        Case{"qemu+tls://box.lab.example/system", "box.lab.example", "tls"},
        Case{"qemu://box/system", "box", ""},
        Case{"qemu+libssh2://u@[fe80::1]:22/system", "fe80::1", "libssh2"},
        Case{"qemu+ssh:///system", "", "ssh"}, Case{"qemu+unix://box/system", "box", "unix"}}) {
    auto u = parsed(c.uri);
    EXPECT_TRUE(u.remote) << c.uri;
    EXPECT_EQ(u.host, c.host) << c.uri;
    EXPECT_EQ(u.transport, c.transport) << c.uri;
    EXPECT_EQ(u.driver, "qemu") << c.uri;
  }
}

TEST(ConnectionUri, TyposAreRefusedNamingTheUriAndWhatIsAccepted) {
  struct Case {
    const char* uri;
    const char* want;
  };
  for (const auto& c : {Case{"qemo:///system", "unknown driver 'qemo' (expected qemu or test)"},
                        Case{"qemu+tpc://127.0.0.1/system", "unknown transport 'tpc'"},
                        Case{"qemu+/system", "expected DRIVER[+TRANSPORT]://"},
                        Case{"://x", "expected DRIVER[+TRANSPORT]://"},
                        Case{"box", "expected DRIVER[+TRANSPORT]://"},
                        Case{"qemu+ssh://box/system\n", "control character"},
                        Case{"lxc:///", "unknown driver 'lxc'"}}) {
    auto r = parse_connection_uri(c.uri);
    ASSERT_FALSE(r.ok()) << c.uri;
    EXPECT_TRUE(r.error().is(ErrorKind::input)) << c.uri;
    EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  }
  auto typo = parse_connection_uri("qemu+tpc://127.0.0.1/system");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("'qemu+tpc://127.0.0.1/system'"), std::string::npos);
}

TEST(ConnectionUri, LengthIsBounded) {
  auto r = parse_connection_uri("qemu+ssh://" + std::string(5000, 'a') + "/system");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("longer than 4096"), std::string::npos);
  EXPECT_LT(r.error().message.size(), 400u);
}

}  // namespace
}  // namespace topolab::virt
