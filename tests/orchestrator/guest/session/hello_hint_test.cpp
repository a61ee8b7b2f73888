#include "orchestrator/guest/session/hello_hint.hpp"

#include <gtest/gtest.h>

namespace topolab {
namespace {

constexpr const char* kChannel = "org.topolab.agent.0";

std::string domain(const std::string& channels) {
  return "<domain><name>t</name><devices>" + channels + "</devices></domain>";
}

const std::string kLive = domain(
    "<channel type='unix'><source mode='bind' path='/run/x/agent.sock'/>"
    "<target type='virtio' name='org.topolab.agent.0'/></channel>"
    "<channel type='spicevmc'><target type='virtio' name='com.redhat.spice.0'/></channel>");

TEST(HelloHint, NamesAgentChannelDriverAndConsole) {
  auto hint = own_guest_hello_hint(domain("<channel type='unix'><source mode='bind'/><target "
                                          "type='virtio' name='org.topolab.agent.0'/></channel>"),
                                   kLive, kChannel, "/runs/r1/console.log");
  EXPECT_NE(hint.find("systemctl status topolab-agent.service"), std::string::npos) << hint;
  EXPECT_NE(hint.find("Windows: the topolab-agent service"), std::string::npos) << hint;
  // What the running domain actually has, every virtio channel.
  EXPECT_NE(hint.find("the domain's virtio channels: 'org.topolab.agent.0' (unix "
                      "/run/x/agent.sock), 'com.redhat.spice.0' (spicevmc)"),
            std::string::npos)
      << hint;
  EXPECT_NE(hint.find("virtio-win's vioser"), std::string::npos) << hint;
  EXPECT_NE(hint.find("the console log is kept: /runs/r1/console.log"), std::string::npos) << hint;
  EXPECT_EQ(hint.find("topolab added"), std::string::npos) << hint;
  EXPECT_EQ(hint.find("renamed"), std::string::npos) << hint;
}

TEST(HelloHint, SaysWhenTopolabAddedTheChannel) {
  auto hint = own_guest_hello_hint(domain("<disk type='file'/>"), kLive, kChannel, "/c.log");
  EXPECT_NE(
      hint.find("the template had no virtio-serial channel: topolab added 'org.topolab.agent.0'"),
      std::string::npos)
      << hint;
}

TEST(HelloHint, SaysWhenTheTemplatesChannelWasRenamed) {
  auto hint = own_guest_hello_hint(
      domain("<channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/>"
             "</channel>"),
      kLive, kChannel, "/c.log");
  EXPECT_NE(hint.find("renamed the template's channel 'org.qemu.guest_agent.0' to "
                      "'org.topolab.agent.0'"),
            std::string::npos)
      << hint;
}

TEST(HelloHint, UnreadableXmlSaysNone) {
  auto hint = own_guest_hello_hint("", "<not xml", kChannel, "/c.log");
  EXPECT_NE(hint.find("the domain's virtio channels: none"), std::string::npos) << hint;
}

}  // namespace
}  // namespace topolab
