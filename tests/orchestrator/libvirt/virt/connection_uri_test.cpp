// The local/remote decision and the URI checks (virt/connection_uri.hpp), without libvirt.
#include "orchestrator/libvirt/virt/connection_uri.hpp"

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

// Redteam wave 3: what a URI may carry depends on who wrote it (connection_uri.hpp).
TEST(ConnectionUri, AFileMayCarryNoProgramOrFileParameter) {
  const auto file = UriSource::file;
  for (const char* uri :
       {"qemu+ext:///system?command=/tmp/x", "qemu+ssh://h/system?command=/tmp/x",
        "qemu+ssh://h/system?co%6Dmand=/tmp/x", "qemu+ssh://h/system?no_tty=1;command=/tmp/x",
        "qemu+ssh://h/system?netcat=/tmp/x", "qemu+ssh://h/system?name=qemu:///embed",
        "qemu+tls://h/system?tls_priority=NONE", "qemu+libssh://h/system?known_hosts_verify=ignore",
        "qemu+libssh2://h/system?sshauth=password"}) {
    auto r = parse_connection_uri(uri, file);
    ASSERT_FALSE(r.ok()) << uri;
    EXPECT_TRUE(r.error().is(ErrorKind::input));
    EXPECT_NE(r.error().message.find("not accepted from a file"), std::string::npos)
        << r.error().message;
    auto typed = parse_connection_uri(uri, UriSource::command_line);
    EXPECT_TRUE(typed.ok()) << uri << ": " << typed.error().message;
  }
  auto ok = parse_connection_uri("qemu+ssh://h/system?no_tty=1&proxy=netcat", file);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->params.size(), 2u);
  EXPECT_EQ(ok->params[1].second, "netcat");
  // Decoded as libvirt decodes it: the name is checked after %-decoding.
  auto enc = parse_connection_uri("qemu+ssh://h/system?co%6Dmand=/x", UriSource::command_line);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(enc->params.at(0).first, "command");
}

// A URI from a file must never make topolab wait for a password: libvirt is handed no_tty=1
// (ssh in batch mode, no tty), whatever no_tty the file gave; what is stored stays as written.
TEST(ConnectionUri, AFileRemoteUriIsOpenedWithNoTty) {
  struct Case {
    const char* given;
    const char* opened;
  };
  for (const auto& c : {
           Case{"qemu+ssh://box/system", "qemu+ssh://box/system?no_tty=1"},
           Case{"qemu+ssh://u@box:2222/system?no_tty=0", "qemu+ssh://u@box:2222/system?no_tty=1"},
           Case{"qemu+libssh2://box/system?no_tty=1", "qemu+libssh2://box/system?no_tty=1"},
           Case{"qemu+ssh://box/system?mode=direct;no_tty=0&proxy=netcat",
                "qemu+ssh://box/system?mode=direct&proxy=netcat&no_tty=1"},
           Case{"qemu+ssh://box/system?no%5Ftty=0", "qemu+ssh://box/system?no_tty=1"},
           Case{"qemu+tcp://127.0.0.1:16509/system", "qemu+tcp://127.0.0.1:16509/system?no_tty=1"},
           Case{"qemu+ssh:///system", "qemu+ssh:///system?no_tty=1"},
           Case{"qemu://box/session", "qemu://box/session?no_tty=1"},
       }) {
    auto f = parse_connection_uri(c.given, UriSource::file);
    ASSERT_TRUE(f.ok()) << c.given << ": " << f.error().message;
    EXPECT_EQ(f->connect, c.opened);
    EXPECT_EQ(f->uri, c.given) << "the URI as written is what is stored and printed";
    // What libvirt reads from it: exactly one no_tty, set.
    auto opened = parsed(f->connect);
    int no_tty = 0;
    for (const auto& [name, value] : opened.params) {
      if (name != "no_tty") continue;
      ++no_tty;
      EXPECT_EQ(value, "1") << f->connect;
    }
    EXPECT_EQ(no_tty, 1) << f->connect;
    // Typed on the command line, the user's own choice is kept (a prompt is theirs to answer).
    EXPECT_EQ(parsed(c.given).connect, c.given);
  }
  // A local socket runs no ssh and no remote driver prompt: left as written.
  for (const char* local : {"qemu:///system", "qemu+unix:///session"}) {
    auto f = parse_connection_uri(local, UriSource::file);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->connect, local);
  }
}

TEST(ConnectionUri, RefusedFromAnySource) {
  struct Case {
    const char* uri;
    const char* want;
  };
  for (const auto& c :
       {Case{"qemu+ssh://h/system?comand=/x", "unknown parameter 'comand'"},
        // libvirt compares names ignoring case: other spellings are refused.
        Case{"qemu+ssh://h/system?CoMmAnD=/x", "unknown parameter 'CoMmAnD'"},
        Case{"qemu+ssh://h/system?+command=/x", "unknown parameter ' command'"},
        Case{"qemu+ssh://h/system?no_tty=%0a", "encoded control character"},
        Case{"qemu+ssh://h/system?no_tty=%zz", "broken %-escape"},
        Case{"qemu+ssh://-oProxyCommand@h/system", "starting with '-'"},
        Case{"qemu+ssh://-Fx/system", "host name starting with '-'"},
        Case{"qemu+ssh://%2DFx/system", "percent-encoding"},
        Case{"qemu+ssh://u%3Ap@h/system", "percent-encoding"},
        Case{"qemu+tcp://u:secret@h/system", "holds a password"},
        Case{"qemu+tcp://h:0/system", "port '0': expected a number 1..65535"},
        Case{"qemu+tcp://h:65536/system", "port '65536'"},
        Case{"qemu+tcp://h:http/system", "port 'http'"},
        Case{"qemu+tcp://[::1]:x/system", "port 'x'"}, Case{"qemu:///system#frag", "fragment"}}) {
    auto r = parse_connection_uri(c.uri, UriSource::command_line);
    ASSERT_FALSE(r.ok()) << c.uri;
    EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find("secret"), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(redacted_uri("qemu+tcp://u:secret@h:1/system"), "qemu+tcp://u:***@h:1/system");
  EXPECT_EQ(redacted_uri("qemu+tcp://[::1]:16509/system"), "qemu+tcp://[::1]:16509/system");
  EXPECT_EQ(redacted_uri("qemu:///system?x=a:b@c"), "qemu:///system?x=a:b@c");
  auto u = parsed("qemu+ssh://root@[fe80::1]:2222/session?no_tty=1");
  EXPECT_EQ(u.user, "root");
  EXPECT_EQ(u.host, "fe80::1");
  EXPECT_EQ(u.port, "2222");
  EXPECT_EQ(u.path, "/session");
}

TEST(ConnectionUri, LengthIsBounded) {
  auto r = parse_connection_uri("qemu+ssh://" + std::string(5000, 'a') + "/system");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("longer than 4096"), std::string::npos);
  EXPECT_LT(r.error().message.size(), 400u);
}

}  // namespace
}  // namespace topolab::virt
