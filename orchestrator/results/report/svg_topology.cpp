#include "orchestrator/results/report/svg_topology.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "orchestrator/results/report/svg_boxes.hpp"
#include "orchestrator/results/report/svg_util.hpp"

namespace topolab::report::svg {
namespace {

constexpr double kMaxWidth = 1000, kMargin = 8, kLineH = 16;

// What runs on one host CPU.
struct Use {
  std::vector<const StoredVcpu*> vcpus;  // pinned here
  bool emulator = false, floating = false;
};

Box frame(std::string label, std::string cls) {
  Box b;
  b.label = std::move(label);
  b.cls = std::move(cls);
  return b;
}

std::string domain_caption(const HostTopology& host, int l3) {
  if (l3 < 0 || static_cast<std::size_t>(l3) >= host.l3_domains.size()) return "no L3";
  std::string s = "L3 #" + std::to_string(l3);
  const auto kib = host.l3_domains[static_cast<std::size_t>(l3)].size_kib;
  if (kib >= 1024 && kib % 1024 == 0)
    s += " (" + std::to_string(kib / 1024) + " MiB)";
  else if (kib > 0)
    s += " (" + std::to_string(kib) + " KiB)";
  return s;
}

Box host_leaf(const CpuInfo& c, const Use* use) {
  Box b;
  b.leaf = true;
  b.line1 = std::to_string(c.id);
  b.cls = c.online ? "tidle" : "toffl";
  b.title = "host CPU " + std::to_string(c.id) + (c.online ? "" : " (offline)");
  if (!use) return b;
  if (!use->vcpus.empty()) {
    const auto* v = use->vcpus.front();
    b.cls = "tcpu";
    b.fill = palette(v->group);
    b.line2 = "v" + std::to_string(v->vcpu) + (use->vcpus.size() > 1 ? "+" : "");
    for (const auto* p : use->vcpus)
      b.title += "; vCPU " + std::to_string(p->vcpu) + " (group " + std::to_string(p->group) +
                 ", core " + std::to_string(p->core) + ", thread " + std::to_string(p->thread) +
                 ")";
  } else if (use->floating) {
    b.cls = "tfloat";
    b.line2 = "float";
    b.title += "; unpinned vCPUs may run here";
  }
  if (use->emulator) {
    b.cls += " temu";
    if (b.line2.empty()) b.line2 = "emu";
    b.title += "; emulator threads";
  }
  return b;
}

// Host CPUs by package, then L3 domain (-1: CPUs without an L3).
using DomainMap = std::map<int, std::map<int, std::vector<const CpuInfo*>>>;

struct Drawn {
  Box root;
  std::size_t domains_left_out = 0, cpus_left_out = 0;
};

// Domains holding a used CPU are drawn first; the rest as long as the cap allows.
Drawn host_boxes(const HostTopology& host, const std::map<int, Use>& uses) {
  DomainMap by_domain;
  for (const auto& c : host.cpus) by_domain[c.package][c.l3].push_back(&c);
  std::set<std::pair<int, int>> chosen;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& [pkg, domains] : by_domain)
      for (const auto& [l3, cpus] : domains) {
        const bool used = std::any_of(cpus.begin(), cpus.end(),
                                      [&](const CpuInfo* c) { return uses.count(c->id) > 0; });
        if ((pass == 0) == used && chosen.size() < kMaxDrawnDomains) chosen.insert({pkg, l3});
      }
  Drawn d;
  d.root.cls = "thost";
  for (const auto& [pkg, domains] : by_domain) {
    Box p;
    p.cls = "tpkg";
    p.label = "package " + std::to_string(pkg);
    for (const auto& [l3, cpus] : domains) {
      if (!chosen.count({pkg, l3})) {
        ++d.domains_left_out;
        d.cpus_left_out += cpus.size();
        continue;
      }
      Box dom;
      dom.cls = "tl3";
      dom.label = domain_caption(host, l3);
      // SMT siblings side by side in one core frame, as lstopo draws PUs in a core.
      std::map<int, std::vector<const CpuInfo*>> by_core;
      for (std::size_t i = 0; i < cpus.size(); ++i) {
        if (i == kMaxDrawnCpusPerDomain) {
          d.cpus_left_out += cpus.size() - i;
          break;
        }
        by_core[cpus[i]->core < 0 ? -1 - cpus[i]->id : cpus[i]->core].push_back(cpus[i]);
      }
      for (const auto& [core, siblings] : by_core) {
        Box k = frame("", "tcore");
        for (const auto* c : siblings) {
          auto u = uses.find(c->id);
          k.children.push_back(host_leaf(*c, u == uses.end() ? nullptr : &u->second));
        }
        dom.children.push_back(k.children.size() == 1 ? std::move(k.children.front())
                                                      : std::move(k));
      }
      p.children.push_back(std::move(dom));
    }
    if (!p.children.empty()) d.root.children.push_back(std::move(p));
  }
  return d;
}

std::map<int, Use> host_uses(const StoredPlacement& plan) {
  std::map<int, Use> uses;
  const CpuList* marked = nullptr;  // unpinned vCPUs share one float set: marked once
  for (const auto& v : plan.vcpus) {
    if (plan.pinned && v.host_cpus.size() == 1) {
      uses[v.host_cpus.first()].vcpus.push_back(&v);
    } else if (!marked || *marked != v.host_cpus) {
      for (int c : v.host_cpus) uses[c].floating = true;
      marked = &v.host_cpus;
    }
  }
  for (int c : plan.emulator_cpus) uses[c].emulator = true;
  return uses;
}

void text_line(std::ostream& o, double y, const std::string& text, const char* cls = "val") {
  o << "<text x=\"" << num(kMargin) << "\" y=\"" << num(y) << "\" class=\"" << cls << "\">"
    << esc(text, 300) << "</text>\n";
}

// Legend: one swatch per guest group (capped), emulator, float.
double legend(std::ostream& o, const StoredPlacement& plan, double y, double& right) {
  std::map<int, CpuList> groups;
  for (const auto& v : plan.vcpus) groups[v.group].insert(v.vcpu);
  double x = kMargin;
  std::size_t shown = 0;
  auto swatch = [&](const std::string& cls, const std::string& fill, const std::string& text) {
    o << "<rect x=\"" << num(x) << "\" y=\"" << num(y - 10) << "\" width=\"12\" height=\"12\" "
      << "class=\"" << cls << "\"" << (fill.empty() ? "" : " style=\"fill:" + fill + "\"")
      << "/><text x=\"" << num(x + 16) << "\" y=\"" << num(y) << "\" class=\"val\">" << esc(text)
      << "</text>";
    x += 26 + 6.2 * static_cast<double>(std::min(text.size(), kMaxLabelBytes));
    right = std::max(right, x);
    if (x > kMaxWidth - 150) {
      x = kMargin;
      y += kLineH;
    }
  };
  for (const auto& [g, vcpus] : groups) {
    if (shown++ == kMaxDrawnGroups) break;
    swatch("tcpu", palette(g), "group " + std::to_string(g) + ": vCPU " + vcpus.to_string());
  }
  if (groups.size() > kMaxDrawnGroups)
    swatch("tidle", "", more_note(groups.size() - kMaxDrawnGroups, "groups"));
  if (!plan.emulator_cpus.empty()) swatch("tidle temu", "", "emulator threads");
  if (!plan.pinned) swatch("tfloat", "", "unpinned vCPUs float here");
  o << "\n";
  return y + kLineH;
}

void open_svg(std::ostream& o, const char* cls, double w, double h) {
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"" << cls << "\" width=\"" << num(w, 0)
    << "\" height=\"" << num(h, 0) << "\" role=\"img\">\n";
}

}  // namespace

void placement_svg(std::ostream& o, const HostTopology& host, const StoredPlacement& plan) {
  const auto uses = host_uses(plan);
  Drawn d = host_boxes(host, uses);
  layout_boxes(d.root, kMaxWidth - 2 * kMargin);
  std::vector<std::string> notes;
  if (!plan.pinned)
    notes.push_back("unpinned: " + std::to_string(plan.vcpus.size()) +
                    " vCPUs float over the shaded host CPUs");
  if (d.domains_left_out > 0) notes.push_back(more_note(d.domains_left_out, "L3 domains"));
  if (d.cpus_left_out > 0) notes.push_back(more_note(d.cpus_left_out, "host CPUs"));
  // The body first: the legend's height is known only once it is written.
  std::ostringstream body;
  double right = 0;
  double y = legend(body, plan, kMargin + 12, right);
  render_boxes(body, d.root, kMargin, y);
  y += d.root.h + kLineH;
  for (const auto& n : notes) text_line(body, y, n), y += kLineH;
  open_svg(o, "pic-placement", std::max({d.root.w + 2 * kMargin, right, 380.0}),
           y - kLineH + kMargin);
  o << body.str() << "</svg>\n";
}

void seen_topology_svg(std::ostream& o, const HostTopology& seen) {
  // package -> die -> L3 -> core -> CPUs, as the guest reported them.
  std::map<int, std::map<int, std::map<int, std::map<int, std::vector<const CpuInfo*>>>>> tree;
  for (const auto& c : seen.cpus) tree[c.package][c.die][c.l3][c.core].push_back(&c);
  std::size_t dies = 0, l3s = 0, cores = 0, drawn = 0, left_out = 0;
  Box root;
  root.cls = "thost";
  for (const auto& [pkg, die_map] : tree) {
    Box p = frame("package " + std::to_string(pkg), "tpkg");
    for (const auto& [die, l3_map] : die_map) {
      ++dies;
      Box d = frame("die " + std::to_string(die), "tdie");
      for (const auto& [l3, core_map] : l3_map) {
        ++l3s;
        Box l = frame(domain_caption(seen, l3), "tl3");
        for (const auto& [core, cpus] : core_map) {
          ++cores;
          Box k = frame("", "tcore");
          for (const auto* c : cpus) {
            if (drawn == kMaxDrawnDomains * kMaxDrawnCpusPerDomain) {
              ++left_out;
              continue;
            }
            ++drawn;
            Box leaf = frame("", "tcpu");
            leaf.leaf = true;
            leaf.line1 = "cpu " + std::to_string(c->id);
            leaf.line2 = cpus.size() > 1 ? "smt" : "";
            leaf.fill = palette(std::max(l3, 0));
            leaf.title = "guest CPU " + std::to_string(c->id) + ": package " + std::to_string(pkg) +
                         ", die " + std::to_string(die) + ", " + domain_caption(seen, l3) +
                         ", core " + std::to_string(core);
            k.children.push_back(std::move(leaf));
          }
          if (k.children.size() == 1) {
            l.children.push_back(std::move(k.children.front()));  // no SMT: no core frame
          } else if (!k.children.empty()) {
            l.children.push_back(std::move(k));
          }
        }
        if (!l.children.empty()) d.children.push_back(std::move(l));
      }
      if (!d.children.empty()) p.children.push_back(std::move(d));
    }
    if (!p.children.empty()) root.children.push_back(std::move(p));
  }
  layout_boxes(root, kMaxWidth - 2 * kMargin);
  const std::string summary = std::to_string(tree.size()) + " package(s), " + std::to_string(dies) +
                              " die(s), " + std::to_string(l3s) + " L3 domain(s), " +
                              std::to_string(cores) + " core(s), " +
                              std::to_string(seen.cpus.size()) + " CPU(s)" +
                              (seen.model.empty() ? "" : "; model: " + seen.model);
  const double h = kMargin + 2 * kLineH + root.h + (left_out ? kLineH : 0) + kMargin;
  const double text_w = 6.2 * static_cast<double>(std::min<std::size_t>(summary.size(), 300));
  open_svg(o, "pic-seen", std::max({root.w + 2 * kMargin, text_w + 2 * kMargin, 200.0}), h);
  text_line(o, kMargin + 12, summary);  // esc() in text_line caps it at 300 bytes
  double y = kMargin + kLineH + 4;
  render_boxes(o, root, kMargin, y);
  if (left_out) text_line(o, y + root.h + kLineH, more_note(left_out, "guest CPUs"));
  o << "</svg>\n";
}

}  // namespace topolab::report::svg
