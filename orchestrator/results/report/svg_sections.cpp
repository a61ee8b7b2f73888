#include "orchestrator/results/report/svg_sections.hpp"

#include <map>
#include <string>
#include <vector>

#include "host/topology_json.hpp"
#include "orchestrator/results/report/svg_charts.hpp"
#include "orchestrator/results/report/svg_topology.hpp"
#include "orchestrator/results/report/svg_util.hpp"

namespace topolab::report::svg {

const char* const kPictureStyle = R"CSS(
.pics{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
.note{font-size:13px;color:#555}
.thost{fill:none;stroke:none}.tpkg{fill:#f4f4f4;stroke:#333;stroke-width:1.5}
.tdie{fill:#ececec;stroke:#666;stroke-dasharray:4 2}.tl3{fill:#fff;stroke:#1f5fbf;stroke-width:1.2}
.tcore{fill:#f8f8f8;stroke:#999}.tcpu{stroke:#333;fill:#4e79a7}
.tidle{fill:#fafafa;stroke:#bbb}.toffl{fill:#ddd;stroke:#bbb;stroke-dasharray:2 2}
.tfloat{fill:#dbe7f3;stroke:#4e79a7;stroke-dasharray:3 2}
.temu{stroke:#d62728;stroke-width:3}
.bx1{font-size:10px;fill:#111}.bx2{font-size:10px;font-weight:bold;fill:#111}
.bxl{font-size:11px;fill:#333}
.band{fill-opacity:.18;stroke:none}.line{fill:none;stroke-width:2}.grid{stroke:#eee}.chax{fill:none;stroke:#888}
)CSS";

void write_scaling_section(std::ostream& o, const ReportData& data) {
  std::size_t left_out = 0;
  const auto charts = scaling_charts(data, &left_out);
  if (charts.empty()) return;
  o << "<h2>Scaling</h2>\n<p class=\"note\">Median of the repetitions against each numeric "
       "factor, one line per level of the other factors; the shaded band spans min..max.</p>\n";
  for (const auto& c : charts) {
    o << "<h3>" << esc(c.benchmark) << " by " << esc(c.factor) << "</h3>\n";
    scaling_svg(o, c);
  }
  if (left_out) o << "<p class=\"note\">" << more_note(left_out, "charts") << "</p>\n";
}

namespace {

std::string host_summary(const HostTopology& h) {
  std::size_t online = 0;
  for (const auto& c : h.cpus) online += c.online ? 1 : 0;
  return (h.model.empty() ? std::string("host") : h.model) + ": " +
         std::to_string(h.packages.size()) + " package(s), " + std::to_string(h.l3_domains.size()) +
         " L3 domain(s), " + std::to_string(online) + " online CPU(s)" +
         (h.source.empty() ? "" : " (" + h.source + ")");
}

// " on qemu+ssh://box/system" in a section title of a store of several hosts, else "".
std::string on_host(const PictureData& p) {
  return p.host_uri.empty() ? "" : " on " + esc(p.host_uri, 300);
}

void write_placements(std::ostream& o, const PictureData& p) {
  o << "<h2>Placement on " << (p.host_uri.empty() ? "the host" : esc(p.host_uri, 300))
    << "</h2>\n<p class=\"note\">";
  if (p.host)
    o << esc(host_summary(*p.host), 300)
      << ". Each square is a host CPU in its package and L3 domain (what lstopo shows); a "
         "coloured square holds the vCPU pinned there (colour: guest L3 group), a red frame "
         "marks the emulator threads' CPUs. The placement each boot stored (what its guest "
         "was booted with), drawn on the stored host topology.";
  else
    o << "No host picture: " << esc(p.host_note, 300) << ".";
  o << "</p>\n<div class=\"pics\">\n";
  for (const auto& c : p.configs) {
    o << "<div><h3>" << esc(c.label) << "</h3>\n";
    if (c.plan && p.host)
      placement_svg(o, *p.host, *c.plan);
    else
      o << "<p class=\"note\">" << esc(c.plan_note, 300) << "</p>\n";
    o << "</div>\n";
  }
  o << "</div>\n";
}

// One picture per distinct seen topology, titled with every configuration that saw it.
void write_seen(std::ostream& o, const PictureData& p) {
  struct Seen {
    const HostTopology* topo;
    std::vector<std::string> labels;
    bool mismatch = false;
  };
  std::vector<Seen> distinct;
  std::map<std::string, std::size_t> index;
  std::vector<std::string> notes;
  for (const auto& c : p.configs) {
    if (!c.seen) {
      notes.push_back(c.label + ": " + c.seen_note);
      continue;
    }
    auto [it, fresh] = index.emplace(topology_to_json(*c.seen).dump(), distinct.size());
    if (fresh) distinct.push_back({&*c.seen, {}, false});
    distinct[it->second].labels.push_back(c.label);
    distinct[it->second].mismatch = distinct[it->second].mismatch || c.mismatch;
  }
  o << "<h2>Topology the guest saw" << on_host(p)
    << "</h2>\n<p class=\"note\">Packages, dies, L3 domains and cores "
       "as the guest agent read them from the guest's sysfs, one picture per distinct "
       "topology.</p>\n<div class=\"pics\">\n";
  for (const auto& s : distinct) {
    std::string title;
    for (std::size_t i = 0; i < s.labels.size() && i < 6; ++i)
      title += (i ? ", " : "") + s.labels[i];
    if (s.labels.size() > 6) title += " and " + std::to_string(s.labels.size() - 6) + " more";
    o << "<div><h3>" << esc(title, 300)
      << (s.mismatch ? " <span class=\"note\">(differs from the intended topology)</span>" : "")
      << "</h3>\n";
    seen_topology_svg(o, *s.topo);
    o << "</div>\n";
  }
  o << "</div>\n";
  for (const auto& n : notes) o << "<p class=\"note\">" << esc(n, 300) << "</p>\n";
}

}  // namespace

namespace {

void write_host_sections(std::ostream& o, const PictureData& p) {
  if (p.configs.empty()) return;
  write_placements(o, p);
  write_seen(o, p);
  if (p.configs_left_out)
    o << "<p class=\"note\">" << more_note(p.configs_left_out, "configurations") << "</p>\n";
}

}  // namespace

// Several hosts (issue 16): each host's placement and seen topology, planned on that host's own
// topology, one pair of sections per host; one host: the sections as they always were.
void write_topology_sections(std::ostream& o, const ReportData& data) {
  if (data.pictures.per_host.empty()) return write_host_sections(o, data.pictures);
  for (const auto& host : data.pictures.per_host) write_host_sections(o, host);
}

void write_c2c_with_classes(std::ostream& o, const LatencyMatrix& m,
                            void (*heat_map)(std::ostream&, const LatencyMatrix&)) {
  o << "<div class=\"pics\"><div>\n";
  heat_map(o, m);
  o << "</div><div><h3>By pair class</h3>\n";
  c2c_classes_svg(o, c2c_classes(m));
  o << "</div></div>\n";
}

}  // namespace topolab::report::svg
