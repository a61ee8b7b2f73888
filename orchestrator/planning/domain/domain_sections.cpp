#include "orchestrator/planning/domain/domain_sections.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <vector>

namespace topolab::domain {
namespace {

const std::vector<std::string>& canonical_order() {
  static const std::vector<std::string> order = {"name",
                                                 "uuid",
                                                 "genid",
                                                 "title",
                                                 "description",
                                                 "metadata",
                                                 "maxMemory",
                                                 "memory",
                                                 "currentMemory",
                                                 "blkiotune",
                                                 "memtune",
                                                 "memoryBacking",
                                                 "vcpu",
                                                 "vcpus",
                                                 "iothreads",
                                                 "iothreadids",
                                                 "defaultiothread",
                                                 "cputune",
                                                 "numatune",
                                                 "resource",
                                                 "sysinfo",
                                                 "bootloader",
                                                 "bootloader_args",
                                                 "os",
                                                 "idmap",
                                                 "features",
                                                 "cpu",
                                                 "clock",
                                                 "on_poweroff",
                                                 "on_reboot",
                                                 "on_crash",
                                                 "on_lockfailure",
                                                 "pm",
                                                 "perf",
                                                 "devices",
                                                 "seclabel",
                                                 "keywrap",
                                                 "launchSecurity"};
  return order;
}

int rank(const char* name) {
  const auto& o = canonical_order();
  for (std::size_t i = 0; i < o.size(); ++i) {
    if (o[i] == name) return static_cast<int>(i);
  }
  return static_cast<int>(o.size());
}

void set_text(pugi::xml_node n, const std::string& text) {
  n.remove_children();
  n.append_child(pugi::node_pcdata).set_value(text.c_str());
}

void set_attr(pugi::xml_node n, const char* name, const std::string& value) {
  auto a = n.attribute(name);
  if (!a) a = n.append_attribute(name);
  a.set_value(value.c_str());
}

int existing_iothreads(pugi::xml_node domain) {
  auto n = domain.child("iothreads");
  return n ? n.text().as_int(0) : 0;
}

void write_cputune(pugi::xml_node domain, const Layout& l, const PlacementPlan& plan) {
  auto tune = domain.child("cputune");
  if (tune) {
    // Keep the user's shares/period/quota/scheduler settings; replace only the pins.
    for (const char* pin : {"vcpupin", "emulatorpin", "iothreadpin"}) {
      while (auto old = tune.child(pin)) tune.remove_child(old);
    }
  } else {
    tune = ensure_child(domain, "cputune");
  }
  if (plan.pinned) {
    for (const auto& v : plan.vcpus) {
      auto pin = tune.append_child("vcpupin");
      set_attr(pin, "vcpu", std::to_string(v.vcpu));
      set_attr(pin, "cpuset", v.host_cpus.to_string());
    }
  }
  if (!plan.emulator_cpus.empty()) {
    set_attr(tune.append_child("emulatorpin"), "cpuset", plan.emulator_cpus.to_string());
  }
  const int iothreads = l.iothreads > 0 ? l.iothreads : existing_iothreads(domain);
  const CpuList io = plan.iothread_cpus.empty() ? plan.emulator_cpus : plan.iothread_cpus;
  if (!io.empty()) {
    for (int i = 1; i <= iothreads; ++i) {
      auto pin = tune.append_child("iothreadpin");
      set_attr(pin, "iothread", std::to_string(i));
      set_attr(pin, "cpuset", io.to_string());
    }
  }
  if (!tune.first_child()) domain.remove_child(tune);
}

void write_cpu(pugi::xml_node domain, const AnnouncedTopology& a) {
  const CpuModelChoice& choice = a.cpu_model;
  auto cpu = replace_child(domain, "cpu");
  set_attr(cpu, "mode", choice.mode);
  if (choice.mode == "custom") {
    set_attr(cpu, "match", "exact");
    auto model = cpu.append_child("model");
    set_attr(model, "fallback", "forbid");
    set_text(model, choice.model);
  } else {
    set_attr(cpu, "check", "none");
  }
  const auto& t = a.topology();
  auto topo = cpu.append_child("topology");
  set_attr(topo, "sockets", std::to_string(t.sockets));
  set_attr(topo, "dies", std::to_string(t.dies));
  set_attr(topo, "cores", std::to_string(t.cores));
  set_attr(topo, "threads", std::to_string(t.threads));
  if (!choice.cache_mode.empty()) {
    auto cache = cpu.append_child("cache");
    if (choice.cache_mode == "emulate" || choice.cache_mode == "disable") {
      set_attr(cache, "level", "3");
    }
    set_attr(cache, "mode", choice.cache_mode);
  }
  for (const auto& f : choice.require) {
    auto feat = cpu.append_child("feature");
    set_attr(feat, "policy", "require");
    set_attr(feat, "name", f);
  }
  for (const auto& f : choice.disable) {
    auto feat = cpu.append_child("feature");
    set_attr(feat, "policy", "disable");
    set_attr(feat, "name", f);
  }
  if (a.cells.empty()) return;
  auto numa = cpu.append_child("numa");
  for (const auto& c : a.cells) {
    auto cell = numa.append_child("cell");
    set_attr(cell, "id", std::to_string(c.id));
    set_attr(cell, "cpus", c.cpus.to_string());
    set_attr(cell, "memory", std::to_string(c.memory_kib));
    set_attr(cell, "unit", "KiB");
    if (c.distances.empty()) continue;
    auto distances = cell.append_child("distances");
    for (std::size_t k = 0; k < c.distances.size(); ++k) {
      auto sibling = distances.append_child("sibling");
      set_attr(sibling, "id", std::to_string(k));
      set_attr(sibling, "value", std::to_string(c.distances[k]));
    }
  }
}

void write_numatune(pugi::xml_node domain, const AnnouncedTopology& a) {
  const PlacementPlan& plan = a.placement;
  if (plan.memory_nodes.empty()) {
    if (auto old = domain.child("numatune")) domain.remove_child(old);
    return;
  }
  auto tune = replace_child(domain, "numatune");
  auto mem = tune.append_child("memory");
  set_attr(mem, "mode", plan.memory_strict ? "strict" : "preferred");
  set_attr(mem, "nodeset", plan.memory_nodes.to_string());
  for (const auto& c : a.cells) {
    // A memnode makes libvirt give every cell a memory backend, which QEMU refuses at size 0.
    if (c.host_node < 0 || a.memoryless_cells()) continue;
    auto node = tune.append_child("memnode");
    set_attr(node, "cellid", std::to_string(c.id));
    set_attr(node, "mode", plan.memory_strict ? "strict" : "preferred");
    set_attr(node, "nodeset", std::to_string(c.host_node));
  }
}

void write_memory_backing(pugi::xml_node domain, const Layout& l) {
  auto mb = replace_child(domain, "memoryBacking");
  if (l.hugepage_kib) {
    auto page = mb.append_child("hugepages").append_child("page");
    set_attr(page, "size", std::to_string(l.hugepage_kib));
    set_attr(page, "unit", "KiB");
  }
  if (l.hugepages_locked) mb.append_child("locked");
}

}  // namespace

pugi::xml_node ensure_child(pugi::xml_node domain, const char* name) {
  if (auto n = domain.child(name)) return n;
  const int r = rank(name);
  for (auto c = domain.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_element && rank(c.name()) > r) {
      return domain.insert_child_before(name, c);
    }
  }
  return domain.append_child(name);
}

pugi::xml_node replace_child(pugi::xml_node domain, const char* name) {
  auto old = domain.child(name);
  if (!old) return ensure_child(domain, name);
  auto fresh = domain.insert_child_before(name, old);
  domain.remove_child(old);
  return fresh;
}

std::string libvirt_style(std::string xml) {
  std::string out;
  out.reserve(xml.size());
  for (std::size_t i = 0; i < xml.size(); ++i) {
    if (xml[i] == ' ' && xml.compare(i, 3, " />") == 0) continue;
    out += xml[i];
  }
  return out;
}

Result<std::uint64_t> libvirt_size_kib(const std::string& text, const std::string& unit,
                                       const std::string& tag) {
  struct Unit {
    const char* name;
    std::uint64_t bytes;
  };
  static const Unit units[] = {{"b", 1},          {"bytes", 1},       {"KB", 1000},
                               {"k", 1024},       {"KiB", 1024},      {"MB", 1000000},
                               {"M", 1u << 20},   {"MiB", 1u << 20},  {"GB", 1000000000},
                               {"G", 1u << 30},   {"GiB", 1u << 30},  {"TB", 1000000000000},
                               {"T", 1ull << 40}, {"TiB", 1ull << 40}};
  const auto* u = std::find_if(std::begin(units), std::end(units),
                               [&](const Unit& x) { return unit == x.name; });
  if (u == std::end(units))
    return make_error(ErrorKind::input, "<" + tag + " unit='" + unit + "'>: unknown unit");
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v > UINT64_MAX / u->bytes) {
    return make_error(ErrorKind::input, "<" + tag + ">: expected a size, got '" + text + "'");
  }
  return v * u->bytes / 1024;
}

Result<std::uint64_t> domain_memory_kib(pugi::xml_node domain) {
  auto mem = domain.child("memory");
  if (!mem) return make_error(ErrorKind::input, "domain XML has no <memory>");
  const std::string unit = mem.attribute("unit") ? mem.attribute("unit").value() : "KiB";
  return libvirt_size_kib(mem.text().get(), unit, "memory");
}

SectionOptions sections_asked_by(const Layout& l) {
  SectionOptions o;
  o.memory_backing = l.hugepage_kib != 0 || l.hugepages_locked;
  o.iothreads = l.iothreads > 0;
  return o;
}

Result<void> write_cpu_sections(pugi::xml_node domain, const Layout& l, const AnnouncedTopology& a,
                                const SectionOptions& opts) {
  const PlacementPlan& plan = a.placement;
  if (static_cast<int>(a.vcpus.size()) != l.vcpu_count()) {
    return make_error(ErrorKind::internal, "announced topology of layout '" + a.layout_name +
                                               "' has " + std::to_string(a.vcpus.size()) +
                                               " vCPUs, layout '" + l.name + "' has " +
                                               std::to_string(l.vcpu_count()) +
                                               " (expected one announced for this layout)");
  }
  // A <vcpus> hot-plug list (and <vcpu current=...>) describes the old vCPU count; libvirt
  // refuses it against the new one. The layout's vCPUs are all online: the list goes.
  if (auto hotplug = domain.child("vcpus")) domain.remove_child(hotplug);
  auto vcpu = replace_child(domain, "vcpu");
  set_attr(vcpu, "placement", "static");
  if (!plan.pinned && !plan.vcpus.empty()) {
    set_attr(vcpu, "cpuset", plan.vcpus.front().host_cpus.to_string());
  }
  set_text(vcpu, std::to_string(l.vcpu_count()));
  if (opts.iothreads) {
    auto io = replace_child(domain, "iothreads");
    set_text(io, std::to_string(l.iothreads));
  }
  if (opts.memory_backing) write_memory_backing(domain, l);
  write_cputune(domain, l, plan);
  write_numatune(domain, a);
  write_cpu(domain, a);
  return {};
}

}  // namespace topolab::domain
