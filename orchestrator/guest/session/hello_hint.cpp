#include "orchestrator/guest/session/hello_hint.hpp"

#include <pugixml.hpp>
#include <vector>

namespace topolab {
namespace {

struct Channel {
  std::string type, name, path;
};

// The virtio-serial channels of a domain XML (unparseable XML: none).
std::vector<Channel> virtio_channels(std::string_view xml) {
  std::vector<Channel> out;
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) return out;
  for (auto ch : doc.child("domain").child("devices").children("channel")) {
    auto target = ch.child("target");
    if (std::string_view(target.attribute("type").value()) != "virtio") continue;
    out.push_back({ch.attribute("type").value(), target.attribute("name").value(),
                   ch.child("source").attribute("path").value()});
  }
  return out;
}

std::string describe(const std::vector<Channel>& channels) {
  if (channels.empty()) return "none";
  std::string out;
  for (const auto& c : channels) {
    out += (out.empty() ? "" : ", ") + std::string("'") +
           (c.name.empty() ? "(no name)" : c.name.substr(0, 80)) + "' (" + c.type.substr(0, 20) +
           (c.path.empty() ? "" : " " + c.path.substr(0, 200)) + ")";
  }
  return out;
}

// What topolab did to the template's channels (DomainXmlWriter: the first unix virtio channel
// is the agent's, else one is added).
std::string template_note(const std::vector<Channel>& base, std::string_view channel) {
  for (const auto& c : base) {
    if (c.type != "unix") continue;
    if (c.name == channel) return "";
    return "; topolab renamed the template's channel '" + c.name.substr(0, 80) + "' to '" +
           std::string(channel) + "'";
  }
  return "; the template had no virtio-serial channel: topolab added '" + std::string(channel) +
         "'";
}

}  // namespace

std::string own_guest_hello_hint(std::string_view base_xml, std::string_view live_xml,
                                 std::string_view channel,
                                 const std::filesystem::path& console_log) {
  const std::string ch(channel);
  return "check: (1) the topolab agent is installed and running in the guest (Linux: "
         "`systemctl status topolab-agent.service`; Windows: the topolab-agent service); (2) it "
         "serves the virtio-serial port '" +
         ch + "': the domain's virtio channels: " + describe(virtio_channels(live_xml)) +
         template_note(virtio_channels(base_xml), channel) +
         "; (3) the guest has the virtio-serial driver (Linux: virtio_console; Windows: "
         "virtio-win's vioser); the console log is kept: " +
         console_log.string();
}

}  // namespace topolab
