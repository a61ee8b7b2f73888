#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"

#include <gtest/gtest.h>
#include <libvirt/virterror.h>
#include <unistd.h>

#include "tests/orchestrator/libvirt/virt/test_domain.hpp"

namespace topolab::virt {
namespace {

using testing::domain_exists;
using testing::test_domain_xml;
using ms = std::chrono::milliseconds;

class Lifecycle : public testing::TestDriver {};

TEST_F(Lifecycle, DefineStartDestroyUndefine) {
  auto dom = define_domain(conn(), test_domain_xml("topolab-life-1"));
  ASSERT_TRUE(dom.ok()) << dom.error().message;
  EXPECT_EQ(domain_name(dom->get()), "topolab-life-1");
  EXPECT_EQ(*domain_state(dom->get()), DomainRunState::kShutoff);

  ASSERT_TRUE(start_domain(dom->get()).ok());
  EXPECT_EQ(*domain_state(dom->get()), DomainRunState::kRunning);

  ASSERT_TRUE(destroy_domain(dom->get()).ok());
  EXPECT_EQ(*domain_state(dom->get()), DomainRunState::kShutoff);
  EXPECT_TRUE(domain_exists(conn(), "topolab-life-1"));  // destroy keeps the definition

  ASSERT_TRUE(undefine_domain(dom->get()).ok());
  EXPECT_FALSE(domain_exists(conn(), "topolab-life-1"));
}

TEST_F(Lifecycle, DestroyOfStoppedDomainIsANoop) {
  auto dom = define_domain(conn(), test_domain_xml("topolab-life-2"));
  ASSERT_TRUE(dom.ok());
  EXPECT_TRUE(destroy_domain(dom->get()).ok());
  EXPECT_TRUE(destroy_and_undefine(dom->get()).ok());
  EXPECT_FALSE(domain_exists(conn(), "topolab-life-2"));
  EXPECT_TRUE(destroy_and_undefine(dom->get()).ok()) << "second cleanup must be harmless";
}

TEST_F(Lifecycle, InvalidXmlIsAnErrorWithLibvirtsReason) {
  auto bad = define_domain(conn(), "<domain type='test'><name>topolab-bad</name></domain>");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("virDomainDefineXML(topolab-bad)"), std::string::npos)
      << bad.error().message;
  EXPECT_FALSE(domain_exists(conn(), "topolab-bad"));

  auto garbage = define_domain(conn(), "<domain><name>x</name");
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.error().message.find("does not parse"), std::string::npos);

  auto unnamed = define_domain(conn(), "<domain type='test'/>");
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(unnamed.error().message.find("no <name>"), std::string::npos);
}

TEST_F(Lifecycle, RefusesToRedefineAnExistingDomain) {
  // "test" is the domain the test driver starts with: not ours, must stay untouched.
  auto xml_before = domain_xml(lookup_domain(conn(), "test")->get());
  auto dom = define_domain(conn(), test_domain_xml("test"));
  ASSERT_FALSE(dom.ok());
  EXPECT_NE(dom.error().message.find("already exists"), std::string::npos);
  EXPECT_EQ(*domain_xml(lookup_domain(conn(), "test")->get()), *xml_before);
}

TEST_F(Lifecycle, WaitForShutoffTimesOutOnARunningDomainAndSeesAShutdown) {
  auto dom = define_domain(conn(), test_domain_xml("topolab-life-3"));
  ASSERT_TRUE(dom.ok());
  ASSERT_TRUE(start_domain(dom->get()).ok());
  auto waited = wait_for_shutoff(dom->get(), ms(60));
  ASSERT_FALSE(waited.ok());
  EXPECT_NE(waited.error().message.find("still running after 60 ms"), std::string::npos);

  ASSERT_TRUE(request_shutdown(dom->get()).ok());
  EXPECT_TRUE(wait_for_shutoff(dom->get(), ms(2000)).ok());
  EXPECT_TRUE(destroy_and_undefine(dom->get()).ok());
}

TEST_F(Lifecycle, StartingARunningDomainFails) {
  auto dom = define_domain(conn(), test_domain_xml("topolab-life-4"));
  ASSERT_TRUE(dom.ok());
  ASSERT_TRUE(start_domain(dom->get()).ok());
  auto again = start_domain(dom->get());
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("virDomainCreate(topolab-life-4)"), std::string::npos);
  // libvirt's own reason, not "unknown libvirt error": the name was read before the call.
  EXPECT_NE(again.error().message.find("already running"), std::string::npos)
      << again.error().message;
  EXPECT_TRUE(destroy_and_undefine(dom->get()).ok());
}

TEST_F(Lifecycle, CapturedErrorSurvivesLaterLibvirtCalls) {
  auto dom = define_domain(conn(), test_domain_xml("topolab-life-5"));
  ASSERT_TRUE(dom.ok());
  ASSERT_TRUE(start_domain(dom->get()).ok());
  auto e = failed(virDomainCreate(dom->get()));
  ASSERT_TRUE(e.has_value());
  (void)domain_name(dom->get());  // resets libvirt's thread error; the copy must not change
  EXPECT_EQ(virGetLastError(), nullptr);
  EXPECT_NE(e->code, 0);
  EXPECT_NE(e->message.find("already running"), std::string::npos) << e->message;
  EXPECT_FALSE(failed(0).has_value());
  EXPECT_TRUE(destroy_and_undefine(dom->get()).ok());
}

// The real driver: QEMU itself refuses to start (an option it does not know). Its stderr line
// must reach the caller through libvirt's error, with the domain named.
TEST(RealQemuStart, QemusOwnReasonReachesTheCaller) {
  auto conn = open_connection("qemu:///system");
  if (!conn) GTEST_SKIP() << conn.error().message;
  const std::string name = "topolab-test-startfail-" + std::to_string(getpid());
  const std::string xml =
      "<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'><name>" + name +
      "</name><memory unit='MiB'>64</memory><vcpu>1</vcpu><os><type arch='x86_64' "
      "machine='q35'>hvm</type></os><qemu:commandline><qemu:arg "
      "value='-topolab-no-such-option'/></qemu:commandline></domain>";
  auto dom = define_domain(conn->get(), xml);
  ASSERT_TRUE(dom.ok()) << dom.error().message;
  auto started = start_domain(dom->get());
  EXPECT_TRUE(destroy_and_undefine(dom->get()).ok());
  ASSERT_FALSE(started.ok());
  const auto& msg = started.error().message;
  EXPECT_NE(msg.find("virDomainCreate(" + name + ")"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-topolab-no-such-option: invalid option"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("unknown libvirt error"), std::string::npos) << msg;
  // QEMU's log line is appended only when libvirt's message does not quote it already.
  const auto first = msg.find("invalid option");
  EXPECT_EQ(msg.find("invalid option", first + 1), std::string::npos) << msg;
}

constexpr const char* kLiveXml = R"(<domain type='qemu' id='3'><name>topolab-x</name><devices>
  <channel type='pty'><target type='virtio' name='org.other'/></channel>
  <channel type='unix'>
    <source mode='bind' path='/var/lib/libvirt/qemu/channel/target/domain-3-topolab-x/org.topolab.agent.0'/>
    <target type='virtio' name='org.topolab.agent.0' state='disconnected'/>
  </channel></devices></domain>)";

TEST(ChannelSocket, FindsTheNamedChannelsPath) {
  auto p = find_channel_socket(kLiveXml, "org.topolab.agent.0");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->string(),
            "/var/lib/libvirt/qemu/channel/target/domain-3-topolab-x/org.topolab.agent.0");
}

TEST(ChannelSocket, ErrorsNameWhatIsWrong) {
  auto missing = find_channel_socket(kLiveXml, "org.topolab.agent.1");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no channel named 'org.topolab.agent.1'"),
            std::string::npos);
  auto pty = find_channel_socket(kLiveXml, "org.other");
  ASSERT_FALSE(pty.ok());
  EXPECT_NE(pty.error().message.find("type 'pty'"), std::string::npos);
  auto no_path = find_channel_socket(
      "<domain><devices><channel type='unix'><source mode='bind'/><target type='virtio' "
      "name='org.topolab.agent.0'/></channel></devices></domain>",
      "org.topolab.agent.0");
  ASSERT_FALSE(no_path.ok());
  EXPECT_NE(no_path.error().message.find("no socket path"), std::string::npos);
}

}  // namespace
}  // namespace topolab::virt
