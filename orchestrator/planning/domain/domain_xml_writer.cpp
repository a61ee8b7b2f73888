#include "orchestrator/planning/domain/domain_xml_writer.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "common/file_io.hpp"
#include "orchestrator/base/install/install_paths.hpp"
#include "orchestrator/planning/domain/domain_features.hpp"
#include "orchestrator/planning/domain/domain_memory.hpp"
#include "orchestrator/planning/domain/domain_sections.hpp"
#include "orchestrator/planning/domain/xml_depth.hpp"

namespace topolab {
namespace {

using domain::ensure_child;
using domain::replace_child;

void set_attr(pugi::xml_node n, const char* name, const std::string& value) {
  auto a = n.attribute(name);
  if (!a) a = n.append_attribute(name);
  a.set_value(value.c_str());
}

void set_child_text(pugi::xml_node parent, const char* name, const std::string& text) {
  auto n = parent.child(name);
  if (!n) n = parent.append_child(name);
  n.remove_children();
  n.append_child(pugi::node_pcdata).set_value(text.c_str());
}

void write_boot(pugi::xml_node domain, const DomainSpec& spec) {
  auto os = ensure_child(domain, "os");
  std::string cmdline;
  if (spec.boot) {
    set_child_text(os, "kernel", spec.boot->kernel.string());
    if (!spec.boot->initrd.empty()) {
      set_child_text(os, "initrd", spec.boot->initrd.string());
    } else if (auto n = os.child("initrd")) {
      os.remove_child(n);
    }
    cmdline = spec.boot->cmdline;
  } else {
    cmdline = os.child("cmdline").text().as_string();
  }
  const std::string& extra = spec.layout->kernel_cmdline_extra;
  if (!extra.empty()) cmdline += (cmdline.empty() ? "" : " ") + extra;
  if (!cmdline.empty() || os.child("cmdline")) set_child_text(os, "cmdline", cmdline);
}

// The machine type a memoryless cell needs (announced_topology.hpp, kMemorylessMachine).
void write_machine(pugi::xml_node domain, const std::string& machine) {
  auto type = ensure_child(ensure_child(domain, "os"), "type");
  set_attr(type, "machine", machine);
}

}  // namespace

void write_hyperv_features(pugi::xml_node domain) {
  auto features = ensure_child(domain, "features");
  if (!features.child("hyperv")) {
    auto hv = features.append_child("hyperv");
    set_attr(hv, "mode", "custom");
    for (const char* f : {"relaxed", "vapic", "spinlocks", "vpindex", "runtime", "synic", "stimer",
                          "reset", "frequencies"}) {
      auto e = hv.append_child(f);
      set_attr(e, "state", "on");
      if (std::string(f) == "spinlocks") set_attr(e, "retries", "8191");
    }
  }
  auto clock = ensure_child(domain, "clock");
  if (!clock.attribute("offset")) set_attr(clock, "offset", "localtime");
  auto has_timer = [&](const char* name) {
    for (auto t : clock.children("timer")) {
      if (std::string(t.attribute("name").as_string()) == name) return true;
    }
    return false;
  };
  if (!has_timer("hpet")) {
    auto t = clock.append_child("timer");
    set_attr(t, "name", "hpet");
    set_attr(t, "present", "no");
  }
  if (!has_timer("hypervclock")) {
    auto t = clock.append_child("timer");
    set_attr(t, "name", "hypervclock");
    set_attr(t, "present", "yes");
  }
}

namespace {

// A PCI address "dddd:bb:ss.f" as libvirt's <address> attributes.
void append_hostdev(pugi::xml_node devices, const HostDevice& dev) {
  const std::string& a = dev.pci_address;
  auto h = devices.append_child("hostdev");
  set_attr(h, "mode", "subsystem");
  set_attr(h, "type", "pci");
  set_attr(h, "managed", dev.managed ? "yes" : "no");
  auto addr = h.append_child("source").append_child("address");
  set_attr(addr, "domain", "0x" + a.substr(0, 4));
  set_attr(addr, "bus", "0x" + a.substr(5, 2));
  set_attr(addr, "slot", "0x" + a.substr(8, 2));
  set_attr(addr, "function", "0x" + a.substr(11, 1));
}

// "0x0000", "0x0b", "0x00", "0x1" of a <source><address> as one comparable "0000:0b:00.1".
std::string hostdev_address_of(pugi::xml_node hostdev) {
  auto a = hostdev.child("source").child("address");
  auto num = [&](const char* name) { return std::strtoul(a.attribute(name).value(), nullptr, 16); };
  char text[32];
  std::snprintf(text, sizeof text, "%04lx:%02lx:%02lx.%lx", num("domain"), num("bus"), num("slot"),
                num("function"));
  return text;
}

// The one rule for PCI host devices (issue 32): a layout without [[hostdev]] keeps the base's
// unchanged (a --domain template's GPU is the user's); a layout with [[hostdev]] entries
// replaces the base's PCI hostdevs by its own (a shipped template's placeholder). Other
// hostdev types (USB, SCSI, mdev) are always kept. What was kept or replaced goes to `notes`.
void write_hostdevs(pugi::xml_node devices, const Layout& l, std::vector<std::string>* notes) {
  std::vector<pugi::xml_node> old;
  std::string names;
  for (auto h : devices.children("hostdev")) {
    if (std::string(h.attribute("type").as_string()) != "pci") continue;
    old.push_back(h);
    names += (names.empty() ? "" : ", ") + hostdev_address_of(h);
  }
  if (l.hostdevs.empty()) {
    if (notes && !old.empty())
      notes->push_back("kept the base's " + std::to_string(old.size()) +
                       " PCI host device(s) unchanged: " + names);
    return;
  }
  for (auto h : old) devices.remove_child(h);
  std::string added;
  for (const auto& dev : l.hostdevs) {
    added += (added.empty() ? "" : ", ") + dev.pci_address;
    append_hostdev(devices, dev);
  }
  if (notes)
    notes->push_back("PCI host devices from the layout's [[hostdev]]: " + added +
                     (old.empty() ? "" : " (replacing the base's " + names + ")"));
}

}  // namespace

std::vector<std::string> add_missing_hostdevs(pugi::xml_node devices, const Layout& l) {
  std::vector<std::string> added;
  for (const auto& dev : l.hostdevs) {
    bool present = false;
    for (auto h : devices.children("hostdev")) {
      present = present || (std::string(h.attribute("type").value()) == "pci" &&
                            hostdev_address_of(h) == dev.pci_address);
    }
    if (present) continue;
    append_hostdev(devices, dev);
    added.push_back(dev.pci_address);
  }
  return added;
}

namespace {

void write_serial_log(pugi::xml_node devices, const std::filesystem::path& log) {
  auto serial = devices.child("serial");
  if (!serial) {
    serial = devices.append_child("serial");
    set_attr(serial, "type", "pty");
    set_attr(serial.append_child("target"), "port", "0");
  }
  if (std::string(serial.attribute("type").as_string()) == "file") {
    auto src = serial.child("source");
    if (!src) src = serial.prepend_child("source");
    set_attr(src, "path", log.string());
    return;
  }
  auto l = serial.child("log");
  if (!l) l = serial.append_child("log");
  set_attr(l, "file", log.string());
  set_attr(l, "append", "off");
}

// The console read through libvirt's stream: a pty, with no file path of this machine.
void write_serial_pty(pugi::xml_node devices) {
  auto serial = devices.child("serial");
  if (!serial) {
    serial = devices.append_child("serial");
    set_attr(serial.append_child("target"), "port", "0");
  }
  set_attr(serial, "type", "pty");
  for (const char* child : {"source", "log"}) {
    while (auto c = serial.child(child)) serial.remove_child(c);
  }
}

// The agent's channel is found by its name, never by its kind: a template domain's other unix
// virtio channel (qemu-guest-agent's) is left alone, and a channel already named like ours but
// of another type or on another virtio-serial bus (redteam wave 2) becomes exactly ours, the
// only one of that name (a second port of the same name is ambiguous to the guest).
void write_channel(pugi::xml_node devices, const ChannelSpec& ch) {
  pugi::xml_node channel;
  for (auto c = devices.child("channel"); c;) {
    auto next = c.next_sibling("channel");
    if (std::string_view(c.child("target").attribute("name").as_string()) == ch.name) {
      if (channel) {
        devices.remove_child(c);
      } else {
        channel = c;
      }
    }
    c = next;
  }
  if (!channel) channel = devices.append_child("channel");
  // Rebuilt from scratch: no other type, source, address or bus of the old one survives.
  while (channel.first_child()) channel.remove_child(channel.first_child());
  while (channel.first_attribute()) channel.remove_attribute(channel.first_attribute());
  set_attr(channel, "type", "unix");
  auto src = channel.append_child("source");
  set_attr(channel.append_child("target"), "type", "virtio");
  set_attr(src, "mode", "bind");
  if (!ch.socket_path.empty()) {
    set_attr(src, "path", ch.socket_path.string());
  } else {
    src.remove_attribute("path");
  }
  set_attr(channel.child("target"), "name", ch.name);
}

bool has_controller(pugi::xml_node devices, std::string_view type) {
  for (auto c : devices.children("controller")) {
    if (c.attribute("type").value() == type) return true;
  }
  return false;
}

bool uses_pci_slot(pugi::xml_node devices, std::string_view slot) {
  for (auto dev : devices.children()) {
    auto a = dev.child("address");  // the guest address (a hostdev's host one is under source)
    if (std::string_view(a.attribute("type").value()) == "pci" &&
        a.attribute("bus").as_uint(1) == 0 && a.attribute("slot").value() == slot) {
      return true;
    }
  }
  return false;
}

// The built-in direct-boot guest (issue 17): no USB controller (libvirt adds a qemu-xhci by
// default, the guest has no USB device), and the agent's virtio-serial controller as an
// integrated device on pcie.0 so libvirt adds no PCIe root ports (it added three: xhci,
// virtio-serial and a spare). Fewer devices for firmware and kernel to probe under TCG.
// A template that already has these controllers keeps its own.
void write_minimal_devices(pugi::xml_node devices) {
  if (!has_controller(devices, "usb")) {
    auto emulator = devices.child("emulator");
    auto usb = emulator ? devices.insert_child_after("controller", emulator)
                        : devices.prepend_child("controller");
    set_attr(usb, "type", "usb");
    set_attr(usb, "model", "none");
  }
  constexpr const char* kSlot = "0x02";
  if (has_controller(devices, "virtio-serial") || uses_pci_slot(devices, kSlot)) return;
  auto vs = devices.insert_child_after(
      "controller", devices.find_child_by_attribute("controller", "type", "usb"));
  set_attr(vs, "type", "virtio-serial");
  set_attr(vs, "index", "0");
  auto addr = vs.append_child("address");
  set_attr(addr, "type", "pci");
  set_attr(addr, "domain", "0x0000");
  set_attr(addr, "bus", "0x00");
  set_attr(addr, "slot", kSlot);
  set_attr(addr, "function", "0x0");
}

}  // namespace

std::filesystem::path templates_dir() { return install_paths().templates; }

std::filesystem::path default_base_template() {
  return templates_dir() / "domains" / "linux-direct-boot.xml";
}

Result<AnnouncedTopology> announced_for(const DomainSpec& spec, Accelerator accel) {
  if (spec.announced) return *spec.announced;
  return announce_topology(*spec.layout, *spec.plan, accel, spec.host_vendor);
}

Result<std::string> DomainXmlWriter::write(const DomainSpec& spec) const {
  if (!spec.layout || (!spec.plan && !spec.announced)) {
    return make_error(ErrorKind::internal, "domain XML: layout and plan are required");
  }
  if (spec.name.empty())
    return make_error(ErrorKind::internal, "domain XML: a domain name is required");
  const auto base = spec.base_template.empty() ? default_base_template() : spec.base_template;
  TL_ASSIGN(auto text, read_file(base, 4u << 20));
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(text.data(), text.size());
  if (!parsed) {
    return make_error(ErrorKind::input, base.string() + ": offset " +
                                            std::to_string(parsed.offset) +
                                            ": invalid XML: " + parsed.description());
  }
  if (domain::xml_depth(doc) > domain::kMaxXmlDepth)
    return make_error(ErrorKind::input, base.string() + ": XML nested deeper than " +
                                            std::to_string(domain::kMaxXmlDepth) +
                                            " elements; refusing it");
  auto domain = doc.child("domain");
  if (!domain)
    return make_error(ErrorKind::input, base.string() + ": expected a <domain> root element");
  TL_ASSIGN(auto announced, announced_for(spec, spec.accel));
  set_attr(domain, "type", libvirt_domain_type(announced.accel));
  set_child_text(domain, "name", spec.name);
  if (auto uuid = domain.child("uuid")) domain.remove_child(uuid);
  domain::write_memory_kib(domain, spec.layout->memory_mib * 1024);
  TL_TRY(domain::write_cpu_sections(domain, *spec.layout, announced,
                                    domain::sections_asked_by(*spec.layout)));
  write_boot(domain, spec);
  if (announced.memoryless_cells()) write_machine(domain, announced.machine);
  if (spec.layout->hyperv) write_hyperv_features(domain);
  auto devices = ensure_child(domain, "devices");
  write_hostdevs(devices, *spec.layout, spec.notes);
  if (spec.console_stream) {
    write_serial_pty(devices);
  } else if (!spec.serial_log.empty()) {
    write_serial_log(devices, spec.serial_log);
  }
  if (spec.agent_channel) write_channel(devices, *spec.agent_channel);
  if (spec.minimal_devices) write_minimal_devices(devices);
  std::ostringstream out;
  doc.save(out, "  ",
           pugi::format_indent | pugi::format_no_declaration | pugi::format_attribute_single_quote);
  return domain::libvirt_style(out.str());
}

}  // namespace topolab
