// `hosts = [...]` and --connect (issue 16): checked at the boundary with FILE:LINE, bounded,
// no duplicates, the command line replacing the file; the hosts multiply the cell limit.
#include "orchestrator/run/experiment/hosts.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/progress.hpp"

namespace topolab::experiment {
namespace {

using ::testing::HasSubstr;
constexpr auto kFile = virt::UriSource::file;

Result<Experiment> parse(const std::string& hosts_line, const Overrides& o = {}) {
  const std::string text = "name = \"h\"\nlayout = \"l.toml\"\n" + hosts_line +
                           "\n[factors]\nexpose = [\"flat\", \"sockets\"]\n"
                           "[[benchmark]]\nname = \"sqrt\"\n";
  return parse_experiment(text, "h.toml", "/base", o);
}

TEST(HostUri, AcceptsTheQemuDriverOverEveryLibvirtTransport) {
  for (const char* uri : {"qemu:///system", "qemu:///session", "qemu+tcp://127.0.0.1:16509/system",
                          "qemu+ssh://root@box.lab/system", "qemu+tls://[::1]:16514/system",
                          "qemu+ssh://u@h/system?keyfile=/root/.ssh/id_ed25519&no_verify=1"})
    EXPECT_EQ(host_uri_problem(uri, virt::UriSource::command_line), "") << uri;
}

TEST(HostUri, RefusesWhatLibvirtWouldNotAcceptWithTheReason) {
  EXPECT_THAT(host_uri_problem("qemo+tcp://box/system", kFile), HasSubstr("driver 'qemo'"));
  EXPECT_THAT(host_uri_problem("qemu+tpc://box/system", kFile), HasSubstr("transport 'tpc'"));
  EXPECT_THAT(host_uri_problem("qemu://box", kFile), HasSubstr("missing the path"));
  EXPECT_THAT(host_uri_problem("qemu:///systen", kFile), HasSubstr("/system or /session"));
  EXPECT_THAT(host_uri_problem("test:///default", kFile),
              HasSubstr("an experiment boots QEMU guests"));
  EXPECT_THAT(host_uri_problem("box.lab", kFile), HasSubstr("expected DRIVER"));
  EXPECT_THAT(host_uri_problem("qemu+ssh://a b/system", kFile),
              HasSubstr("not part of a libvirt URI"));
  EXPECT_THAT(host_uri_problem("qemu+ssh://x\x1b[2J/system", kFile), HasSubstr("not part"));
  EXPECT_THAT(host_uri_problem("", kFile), HasSubstr("empty"));
  EXPECT_THAT(host_uri_problem("qemu+ssh://" + std::string(300, 'a') + "/system", kFile),
              HasSubstr("longer than 256"));
}

// Redteam wave 3: a shared experiment file must not make topolab (root) run a program.
TEST(HostUri, AFileMayNotNameAProgramTheCommandLineMay) {
  for (const char* uri :
       {"qemu+ext:///system?command=/tmp/x", "qemu+ssh://h/system?command=/tmp/x",
        "qemu+ssh://h/system?co%6Dmand=/tmp/x", "qemu+ssh://h/system?netcat=/tmp/x",
        "qemu+ssh://h/system?keyfile=/tmp/k", "qemu+tls://h/system?pkipath=/tmp",
        "qemu+tls://h/system?no_verify=1", "qemu+ssh://h/system?known_hosts=/tmp/k",
        "qemu+unix:///system?socket=/tmp/s"}) {
    EXPECT_THAT(host_uri_problem(uri, kFile), HasSubstr("not accepted from a file")) << uri;
    EXPECT_EQ(host_uri_problem(uri, virt::UriSource::command_line), "") << uri;
  }
  EXPECT_EQ(host_uri_problem("qemu+ssh://h/system?no_tty=1&mode=direct&proxy=native", kFile), "");
  EXPECT_THAT(host_uri_problem("qemu+ssh://h/system?mode=/tmp/x", kFile),
              HasSubstr("expected auto"));
}

TEST(Hosts, APasswordIsRefusedAndNeverEchoed) {
  auto file = parse(R"(hosts = ["qemu+tcp://u:s3cret@127.0.0.1:16509/system"])");
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.error().message, HasSubstr("'qemu+tcp://u:***@127.0.0.1:16509/system'"));
  EXPECT_THAT(file.error().message, HasSubstr("holds a password"));
  EXPECT_EQ(file.error().message.find("s3cret"), std::string::npos) << file.error().message;
  Overrides o;
  o.hosts = {"qemu+ssh://root:s3cret@box/system"};
  auto cli = parse("", o);
  ASSERT_FALSE(cli.ok());
  EXPECT_THAT(cli.error().message, HasSubstr("holds a password"));
  EXPECT_EQ(cli.error().message.find("s3cret"), std::string::npos) << cli.error().message;
}

TEST(Hosts, SpellingsOfOneHostAreDuplicates) {
  for (const char* second :
       {"qemu+tcp://BOX/system", "qemu+tcp://box:16509/system", "qemu+tcp://box./system"}) {
    auto e = parse(std::string(R"(hosts = ["qemu+tcp://box/system", ")") + second + "\"]");
    ASSERT_FALSE(e.ok()) << second;
    EXPECT_THAT(e.error().message, HasSubstr("the same host as 'qemu+tcp://box/system'"));
  }
  EXPECT_EQ(host_key("qemu://box/system"), host_key("qemu+tls://box:16514/system"));
  EXPECT_EQ(host_key("qemu:///system"), host_key("qemu+unix:///system"));
  EXPECT_EQ(host_key("qemu+tcp://h:01234/system"), host_key("qemu+tcp://h:1234/system"));
  EXPECT_EQ(host_key("qemu+ssh://box/system"), host_key("qemu+libssh2://box:22/system?no_tty=1"))
      << "the parameters and the ssh flavour do not make another host";
  // Different daemons or tunnels on one machine stay two hosts (tests/integration/remote).
  EXPECT_NE(host_key("qemu:///system"), host_key("qemu+tcp://127.0.0.1:16509/system"));
  EXPECT_TRUE(parse(R"(hosts = ["qemu:///system", "qemu+tcp://127.0.0.1:16509/system"])").ok());
  EXPECT_NE(host_key("qemu+tcp://box/system"), host_key("qemu+tcp://box/session"));
  EXPECT_TRUE(parse(R"(hosts = ["qemu+tcp://box/system", "qemu+tcp://box:16510/system"])").ok());
}

// localhost, 127.0.0.1 and ::1 are one machine: listed twice, one worker would measure beside
// the other. Refused in one line naming both spellings, from the file and from --connect.
TEST(Hosts, LoopbackSpellingsAreOneHost) {
  auto e = parse(R"(hosts = ["qemu+tcp://localhost/system", "qemu+tcp://127.0.0.1:16509/system"])");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message,
              HasSubstr("h.toml:3: 'hosts' 'qemu+tcp://127.0.0.1:16509/system': the same host as "
                        "'qemu+tcp://localhost/system' written differently"));
  EXPECT_EQ(e.error().message.find('\n'), std::string::npos) << e.error().message;
  Overrides o;
  o.hosts = {"qemu+ssh://[::1]/system", "qemu+ssh://root@127.0.0.1:22/system"};
  EXPECT_THAT(parse("", o).error().message,
              HasSubstr("--connect 'qemu+ssh://root@127.0.0.1:22/system': the same host as "
                        "'qemu+ssh://[::1]/system'"));
}

// The hosts are stored and shown as written; a file's are opened with no_tty=1 (never a
// password prompt on the terminal), --connect's as typed.
TEST(Hosts, AFileHostIsOpenedWithoutATerminalPrompt) {
  auto file = parse(R"(hosts = ["qemu:///system", "qemu+ssh://root@box/system?no_tty=0"])");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->hosts_source, kFile);
  EXPECT_EQ(file->hosts[1], "qemu+ssh://root@box/system?no_tty=0") << "stored as written";
  EXPECT_EQ(host_connect_uri(file->hosts[1], file->hosts_source),
            "qemu+ssh://root@box/system?no_tty=1");
  EXPECT_EQ(host_connect_uri(file->hosts[0], file->hosts_source), "qemu:///system");
  Overrides o;
  o.hosts = {"qemu+ssh://root@box/system"};
  auto cli = parse(R"(hosts = ["qemu+ssh://other/system"])", o);
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  EXPECT_EQ(cli->hosts_source, virt::UriSource::command_line) << "--connect replaced the file";
  EXPECT_EQ(host_connect_uri(cli->hosts[0], cli->hosts_source), "qemu+ssh://root@box/system");
  EXPECT_EQ(host_connect_uri("", kFile), "") << "no host: the backend's default connection";
}

TEST(Hosts, TheFileListIsCheckedWithFileAndLine) {
  auto ok = parse(R"(hosts = ["qemu:///system", "qemu+tcp://127.0.0.1:16509/system"])");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->hosts.size(), 2u);
  EXPECT_EQ(experiment_to_json(*ok)["hosts"][1], "qemu+tcp://127.0.0.1:16509/system");
  EXPECT_FALSE(experiment_to_json(*parse("")).contains("hosts")) << "one host: spec unchanged";

  auto typo = parse(R"(hosts = ["qemu:///system", "qemo:///system"])");
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.error().message,
              HasSubstr("h.toml:3: 'hosts' 'qemo:///system': unknown driver 'qemo'"));
  auto twice = parse(R"(hosts = ["qemu:///system", "qemu:///system"])");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.error().message, HasSubstr("h.toml:3: 'hosts' 'qemu:///system': given twice"));
  EXPECT_THAT(parse("hosts = []").error().message, HasSubstr("h.toml:3: 'hosts': expected"));
  EXPECT_THAT(parse("hosts = [1]").error().message, HasSubstr("expected strings"));
  EXPECT_THAT(parse("hosts = \"qemu:///system\"").error().message, HasSubstr("array"));
  std::string many = "hosts = [";
  for (int i = 0; i < 17; ++i) many += "\"qemu+ssh://h" + std::to_string(i) + "/system\",";
  EXPECT_THAT(parse(many + "]").error().message, HasSubstr("17 hosts, more than the limit 16"));
  // A control character is not echoed to the terminal: the entry is named by position.
  EXPECT_THAT(parse("hosts = [\"qemu:///system\", \"q\\u001b[2J\"]").error().message,
              HasSubstr("'hosts' #2:"));
}

TEST(Hosts, ConnectReplacesTheFileAndIsCheckedTheSameWay) {
  Overrides o;
  o.hosts = {"qemu+tcp://127.0.0.1:16509/system"};
  auto e = parse(R"(hosts = ["qemu:///system", "qemu+ssh://box/system"])", o);
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_EQ(e->hosts, o.hosts);
  o.hosts = {"qemu:///system", "qemu:///system"};
  EXPECT_THAT(parse("", o).error().message, HasSubstr("--connect 'qemu:///system': given twice"));
  o.hosts = {"xen:///system"};
  EXPECT_THAT(parse("", o).error().message,
              HasSubstr("--connect 'xen:///system': unknown driver 'xen'"));
}

TEST(Hosts, BackendHostRunsOnThisMachineOnly) {
  auto e = parse_experiment(
      "name = \"b\"\nbackend = \"host\"\nhosts = [\"qemu:///system\"]\n[[benchmark]]\nname = "
      "\"sqrt\"\n",
      "b.toml", "/base");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("b.toml:3: 'hosts': backend \"host\""));
}

TEST(Hosts, HostsMultiplyTheCellLimit) {
  std::string levels;
  for (int i = 0; i < 10000; ++i) levels += std::to_string(i) + ",";
  const std::string text =
      "name = \"big\"\nbackend = \"guest\"\nlayout = \"l.toml\"\nhosts = "
      "[\"qemu:///system\", \"qemu+ssh://a/system\", \"qemu+ssh://b/system\"]"
      "\n[factors]\n\"cmdline.x\" = [" +
      levels + "]\n\"param.n\" = [1, 2, 3, 4]\n[[benchmark]]\nname = \"sqrt\"\n";
  auto e = parse_experiment(text, "big.toml", "/base");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("120000 cells"));
}

TEST(Progress, EveryHostHasItsStateLineOnATerminal) {
  std::FILE* out = std::tmpfile();
  Progress p(out, /*tty=*/true);
  p.set_lanes({"qemu:///system", "qemu+tcp://127.0.0.1:16509/system"});
  p.begin(4, 0, 8);
  p.lane(0).config_start("expose=flat");
  p.lane(1).run_start("expose=sockets", "sqrt", 2);
  p.lane(1).state("unreachable: connection closed");
  p.end();
  std::rewind(out);
  char buf[8192] = {};
  std::string text(buf, std::fread(buf, 1, sizeof buf - 1, out));
  std::fclose(out);
  EXPECT_NE(text.find("\n  qemu:///system: booting expose=flat"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  qemu+tcp://127.0.0.1:16509/system: unreachable: connection closed"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("qemu:///system: boot expose=flat"), std::string::npos) << "log line";
  EXPECT_NE(text.find("\033[1A"), std::string::npos) << "the host lines are redrawn in place";
  EXPECT_NE(text.find("on 2 hosts"), std::string::npos);
}

}  // namespace
}  // namespace topolab::experiment
