#include "orchestrator/run/experiment/guest_table.hpp"

namespace topolab::experiment {
namespace {

Error guest_at(const std::string& origin, const toml::node& n, const std::string& msg) {
  return make_error(ErrorKind::input,
                    origin + ":" + std::to_string(n.source().begin.line) + ": [guest] " + msg);
}

}  // namespace

Result<GuestSource> parse_guest_table(const toml::node& node,
                                                   const std::filesystem::path& base_dir,
                                                   const std::string& origin) {
  auto t = node.as_table();
  if (!t) return guest_at(origin, node, "expected a table with disk and os");
  GuestSource g;
  g.from_file = true;  // a block device is refused at the disk check (guest_source.hpp)
  for (const auto& [k, v] : *t) {
    std::string key(k.str());
    auto s = v.as_string();
    if (key != "disk" && key != "os" && key != "domain")
      return guest_at(origin, v,
                      "unknown key '" + key.substr(0, 40) + "': expected disk, os or domain");
    if (!s || s->get().empty() || s->get().size() > 4096)
      return guest_at(origin, v, "'" + key + "': expected a non-empty string (at most 4096 bytes)");
    if (key == "disk") {
      if (s->get().find('\0') != std::string::npos)
        return guest_at(origin, v, "'disk': NUL in the path");
      g.kind = GuestKind::kDisk;
      g.disk = (base_dir / s->get()).lexically_normal();
    } else if (key == "domain") {
      if (s->get().size() > 200) return guest_at(origin, v, "'domain': longer than 200 bytes");
      g.kind = GuestKind::kDomain;
      g.domain = s->get();
    } else {
      auto os = parse_guest_os(s->get());
      if (!os) return guest_at(origin, v, os.error().message);
      g.os = *os;
    }
  }
  if (!g.disk.empty() && !g.domain.empty())
    return guest_at(origin, node, "'disk' and 'domain' both given: expected one guest");
  // A template domain's OS is the agent's to report; a stated one would be ignored, so refuse it.
  if (!g.domain.empty() && t->contains("os"))
    return guest_at(origin, *t->get("os"),
                    "'os' given with 'domain': the template's OS is reported by its agent; "
                    "'os' goes only with 'disk'");
  if (g.builtin())
    return guest_at(origin, node,
                    "missing 'disk' or 'domain': expected the disk image's path or a "
                    "template domain's name");
  return g;
}

nlohmann::json guest_source_to_json(const GuestSource& g) {
  if (g.builtin()) return {{"kind", "builtin"}};
  if (g.kind == GuestKind::kDomain) return {{"kind", "domain"}, {"domain", g.domain}};
  return {{"kind", "disk"}, {"disk", g.disk.string()}, {"os", std::string(to_string(g.os))}};
}

}  // namespace topolab::experiment
