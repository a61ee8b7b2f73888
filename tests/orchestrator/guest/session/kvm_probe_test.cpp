// The KVM probe guest's domain XML: a local probe's console is a file and its channel a socket
// in the local probe folder; a remote probe's (empty paths) a pty and a socket libvirt places
// on that host, both read through libvirt streams.
#include "orchestrator/guest/session/kvm_probe.hpp"

#include <gtest/gtest.h>

#include <pugixml.hpp>

namespace topolab::session {
namespace {

pugi::xml_node devices_of(pugi::xml_document& doc, const std::string& xml) {
  EXPECT_TRUE(doc.load_string(xml.c_str())) << xml;
  return doc.child("domain").child("devices");
}

GuestImage image() {
  GuestImage i;
  i.kernel = "/pool/vmlinuz";
  i.initrd = "/pool/initrd";
  i.cmdline = "console=ttyS0 quiet panic=-1";
  i.agent_port_name = "org.topolab.agent.0";
  return i;
}

TEST(KvmProbeXml, LocalProbeUsesAFileConsoleAndALocalSocket) {
  const auto xml = kvm_probe_domain_xml("topolab-kvmprobe-x", image(), "/run/p/console.log",
                                        "/run/p/agent.sock");
  pugi::xml_document doc;
  auto dev = devices_of(doc, xml);
  EXPECT_STREQ(dev.child("serial").attribute("type").value(), "file");
  EXPECT_STREQ(dev.child("serial").child("source").attribute("path").value(), "/run/p/console.log");
  EXPECT_STREQ(dev.child("channel").child("source").attribute("path").value(), "/run/p/agent.sock");
  EXPECT_STREQ(doc.child("domain").attribute("type").value(), "kvm");
  EXPECT_EQ(xml.find("quiet"), std::string::npos) << "a live probe guest prints at once";
}

TEST(KvmProbeXml, RemoteProbeUsesAPtyAndASocketLibvirtPlaces) {
  const auto xml = kvm_probe_domain_xml("topolab-kvmprobe-x", image(), {}, {});
  pugi::xml_document doc;
  auto dev = devices_of(doc, xml);
  EXPECT_STREQ(dev.child("serial").attribute("type").value(), "pty");
  EXPECT_FALSE(dev.child("serial").child("source")) << xml;
  auto ch = dev.child("channel");
  EXPECT_STREQ(ch.attribute("type").value(), "unix");
  EXPECT_STREQ(ch.child("source").attribute("mode").value(), "bind");
  EXPECT_FALSE(ch.child("source").attribute("path")) << xml;
  EXPECT_STREQ(ch.child("target").attribute("name").value(), "org.topolab.agent.0");
  EXPECT_STREQ(doc.child("domain").child("os").child("kernel").text().get(), "/pool/vmlinuz");
}

}  // namespace
}  // namespace topolab::session
