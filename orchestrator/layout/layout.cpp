#include "orchestrator/layout/layout.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "common/file_io.hpp"
#include "common/safe_name.hpp"

namespace topolab {
namespace {

constexpr int kMaxCount = 4096;
constexpr int kMaxThreads = 8;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

Result<std::int64_t> parse_int(std::string_view text, std::string_view key) {
  std::int64_t v = 0;
  auto t = trim(text);
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size()) {
    return make_error(std::string(key) + ": expected an integer, got '" + std::string(text) + "'");
  }
  return v;
}

Result<bool> parse_bool(std::string_view text, std::string_view key) {
  auto t = lower(trim(text));
  if (t == "true" || t == "yes" || t == "1" || t == "on") return true;
  if (t == "false" || t == "no" || t == "0" || t == "off") return false;
  return make_error(std::string(key) + ": expected true or false, got '" + std::string(text) + "'");
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

Result<void> check_count(std::int64_t v, std::string_view key, int max) {
  if (v < 1 || v > max) {
    return make_error(std::string(key) + ": expected an integer from 1 to " + std::to_string(max) +
                      ", got " + std::to_string(v));
  }
  return {};
}

Result<void> check_feature_name(const std::string& f, std::string_view key) {
  bool ok = !f.empty() && f.size() <= 64 && std::all_of(f.begin(), f.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  if (!ok) {
    return make_error(std::string(key) +
                      ": expected CPU feature names (letters, digits, - _ .), "
                      "got '" +
                      f + "'");
  }
  return {};
}

// The short names CLI options and experiment factors use, mapped to file keys.
std::string canonical_key(std::string_view key) {
  static const std::pair<const char*, const char*> kAliases[] = {
      {"expose", "expose.as"},
      {"exposure", "expose.as"},
      {"policy", "placement.policy"},
      {"host_cpus", "placement.host_cpus"},
      {"housekeeping_cpus", "placement.housekeeping_cpus"},
      {"explicit", "placement.explicit"},
      {"groups", "guest.l3_groups"},
      {"l3_groups", "guest.l3_groups"},
      {"cores", "guest.cores_per_group"},
      {"cores_per_group", "guest.cores_per_group"},
      {"threads", "guest.threads_per_core"},
      {"threads_per_core", "guest.threads_per_core"},
      {"memory", "guest.memory_mib"},
      {"memory_mib", "guest.memory_mib"},
      {"iothreads", "guest.iothreads"},
      {"hyperv", "guest.hyperv"},
      {"kernel_cmdline_extra", "guest.kernel_cmdline_extra"},
      {"guest_os", "guest.os"},
      {"cpu_model", "cpu.model"},
      {"model", "cpu.model"},
      {"hugepages", "memory.hugepages"},
      {"locked", "memory.locked"},
  };
  std::string k = lower(trim(key));
  std::replace(k.begin(), k.end(), '-', '_');
  for (auto& [alias, full] : kAliases) {
    if (k == alias) return full;
  }
  return k;
}

}  // namespace

int Layout::vcpu_count() const { return l3_groups * cores_per_group * threads_per_core; }

std::string to_string(Exposure e) {
  switch (e) {
    case Exposure::kFlat:
      return "flat";
    case Exposure::kSockets:
      return "sockets";
    case Exposure::kDies:
      return "dies";
    case Exposure::kNuma:
      return "numa";
  }
  return "?";
}

Result<Exposure> parse_exposure(std::string_view text) {
  auto t = lower(trim(text));
  if (t == "flat") return Exposure::kFlat;
  if (t == "sockets") return Exposure::kSockets;
  if (t == "dies") return Exposure::kDies;
  if (t == "numa") return Exposure::kNuma;
  return make_error("expected one of flat, sockets, dies, numa, got '" + std::string(text) + "'");
}

std::string to_string(PlacementPolicy p) {
  switch (p) {
    case PlacementPolicy::kL3Aligned:
      return "l3-aligned";
    case PlacementPolicy::kCompact:
      return "compact";
    case PlacementPolicy::kScatter:
      return "scatter";
    case PlacementPolicy::kUnpinned:
      return "unpinned";
    case PlacementPolicy::kExplicit:
      return "explicit";
  }
  return "?";
}

Result<PlacementPolicy> parse_policy(std::string_view text) {
  auto t = lower(trim(text));
  std::replace(t.begin(), t.end(), '_', '-');
  if (t == "l3-aligned") return PlacementPolicy::kL3Aligned;
  if (t == "compact") return PlacementPolicy::kCompact;
  if (t == "scatter") return PlacementPolicy::kScatter;
  if (t == "unpinned") return PlacementPolicy::kUnpinned;
  if (t == "explicit") return PlacementPolicy::kExplicit;
  return make_error("expected one of l3-aligned, compact, scatter, unpinned, explicit, got '" +
                    std::string(text) + "'");
}

Result<std::uint64_t> parse_hugepage_size(std::string_view text) {
  auto t = lower(trim(text));
  if (t.empty() || t == "none" || t == "no" || t == "off") return std::uint64_t{0};
  if (t == "1g" || t == "1gib" || t == "1048576k") return std::uint64_t{1048576};
  if (t == "2m" || t == "2mib" || t == "2048k") return std::uint64_t{2048};
  return make_error("expected a hugepage size \"1G\" or \"2M\", got '" + std::string(text) + "'");
}

std::string hugepage_size_to_string(std::uint64_t kib) {
  if (kib == 0) return "none";
  if (kib == 1048576) return "1G";
  if (kib == 2048) return "2M";
  return std::to_string(kib) + "K";
}

Result<std::string> parse_pci_address(std::string_view text) {
  std::string t = lower(trim(text));
  if (std::count(t.begin(), t.end(), ':') == 1) t = "0000:" + t;
  // dddd:bb:ss.f
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  bool ok = t.size() == 12 && t[4] == ':' && t[7] == ':' && t[10] == '.';
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) ok = ok && hex(t[i]);
  ok = ok && t[11] >= '0' && t[11] <= '7';
  if (ok) {
    int slot = std::stoi(t.substr(8, 2), nullptr, 16);
    ok = slot <= 0x1f;
  }
  if (!ok) {
    return make_error(
        "expected a PCI address like \"0000:01:00.0\" (domain:bus:slot.function), "
        "got '" +
        std::string(text) + "'");
  }
  return t;
}

Result<void> validate_layout(const Layout& l) {
  TL_TRY(check_count(l.l3_groups, "guest.l3_groups", kMaxCount));
  TL_TRY(check_count(l.cores_per_group, "guest.cores_per_group", kMaxCount));
  TL_TRY(check_count(l.threads_per_core, "guest.threads_per_core", kMaxThreads));
  if (static_cast<long long>(l.l3_groups) * l.cores_per_group * l.threads_per_core > 16384) {
    return make_error("guest: " + std::to_string(l.l3_groups) + " groups x " +
                      std::to_string(l.cores_per_group) + " cores x " +
                      std::to_string(l.threads_per_core) +
                      " threads exceeds 16384 vCPUs (expected a smaller product)");
  }
  if (l.memory_mib < 1 || l.memory_mib > (std::uint64_t{1} << 32)) {
    return make_error("guest.memory_mib: expected a size from 1 to 4294967296 MiB, got " +
                      std::to_string(l.memory_mib));
  }
  if (l.iothreads < 0 || l.iothreads > 64) {
    return make_error("guest.iothreads: expected 0 to 64, got " + std::to_string(l.iothreads));
  }
  if (l.host_cpus && l.host_cpus->empty()) {
    return make_error("placement.host_cpus: expected a non-empty CPU list");
  }
  if (l.host_cpus && l.housekeeping_cpus && l.host_cpus->intersects(*l.housekeeping_cpus)) {
    return make_error("placement: host_cpus " + l.host_cpus->to_string() +
                      " and housekeeping_cpus " + l.housekeeping_cpus->to_string() +
                      " overlap on " + l.host_cpus->intersected(*l.housekeeping_cpus).to_string() +
                      " (expected disjoint CPU sets)");
  }
  if (l.policy == PlacementPolicy::kExplicit) {
    if (static_cast<int>(l.explicit_cpus.size()) != l.vcpu_count()) {
      return make_error("placement.explicit: expected one CPU list per vCPU (" +
                        std::to_string(l.vcpu_count()) + "), got " +
                        std::to_string(l.explicit_cpus.size()));
    }
    for (std::size_t i = 0; i < l.explicit_cpus.size(); ++i) {
      if (l.explicit_cpus[i].empty()) {
        return make_error("placement.explicit[" + std::to_string(i) +
                          "]: expected a non-empty CPU list");
      }
    }
  }
  if (l.hugepage_kib == 0 && l.hugepages_locked) {
    // locked without hugepages is valid libvirt (<locked/>); nothing to check
  }
  if (l.hugepage_kib != 0 && l.memory_mib * 1024 % l.hugepage_kib != 0) {
    return make_error("guest.memory_mib: " + std::to_string(l.memory_mib) +
                      " MiB is not a multiple of the hugepage size " +
                      hugepage_size_to_string(l.hugepage_kib));
  }
  for (std::size_t i = 0; i < l.hostdevs.size(); ++i) {
    for (std::size_t j = i + 1; j < l.hostdevs.size(); ++j) {
      if (l.hostdevs[i].pci_address == l.hostdevs[j].pci_address) {
        return make_error("hostdev: " + l.hostdevs[i].pci_address + " listed twice");
      }
    }
  }
  return {};
}

Result<void> set_layout_field(Layout& l, std::string_view raw_key, std::string_view value) {
  const std::string key = canonical_key(raw_key);
  auto with_key = [&](const Error& e) { return Error{e.message}.context(key); };
  auto set_count = [&](int& field, int max) -> Result<void> {
    auto v = parse_int(value, key);
    if (!v) return v.error();
    TL_TRY(check_count(*v, key, max));
    field = static_cast<int>(*v);
    return {};
  };
  auto set_cpus = [&](std::optional<CpuList>& field) -> Result<void> {
    // An empty value (`--host-cpus ''`, a shell variable that expanded to nothing) used to lift
    // the layout's restriction silently; lifting it must be said: "none".
    if (trim(value).empty()) {
      return make_error(key +
                        ": empty CPU list (expected a list such as 2-7, or 'none' to lift the "
                        "restriction)");
    }
    if (lower(trim(value)) == "none") {
      field.reset();
      return {};
    }
    auto v = CpuList::parse(value);
    if (!v) return with_key(v.error());
    field = *v;
    return {};
  };
  if (key == "name") {
    if (auto problem = name_problem(value); !problem.empty())
      return make_error(key + ": " + problem);
    l.name = std::string(value);
  } else if (key == "description") {
    l.description = std::string(value);
  } else if (key == "guest.l3_groups") {
    return set_count(l.l3_groups, kMaxCount);
  } else if (key == "guest.cores_per_group") {
    return set_count(l.cores_per_group, kMaxCount);
  } else if (key == "guest.threads_per_core") {
    return set_count(l.threads_per_core, kMaxThreads);
  } else if (key == "guest.memory_mib") {
    auto v = parse_int(value, key);
    if (!v) return v.error();
    if (*v < 1) {
      return make_error(key + ": expected a positive size in MiB, got " + std::to_string(*v));
    }
    l.memory_mib = static_cast<std::uint64_t>(*v);
  } else if (key == "guest.iothreads") {
    auto v = parse_int(value, key);
    if (!v) return v.error();
    if (*v < 0 || *v > 64) {
      return make_error(key + ": expected 0 to 64, got " + std::to_string(*v));
    }
    l.iothreads = static_cast<int>(*v);
  } else if (key == "guest.hyperv") {
    auto v = parse_bool(value, key);
    if (!v) return v.error();
    l.hyperv = *v;
  } else if (key == "guest.kernel_cmdline_extra") {
    // A newline or other control character ended up raw inside <cmdline> (redteam).
    if (has_control_chars(value))
      return make_error(key + ": expected one line of kernel parameters, got a control character");
    l.kernel_cmdline_extra = std::string(value);
  } else if (key == "guest.os") {
    l.guest_os = std::string(value);
  } else if (key == "expose.as") {
    auto v = parse_exposure(value);
    if (!v) return with_key(v.error());
    l.expose = *v;
  } else if (key == "placement.policy") {
    auto v = parse_policy(value);
    if (!v) return with_key(v.error());
    l.policy = *v;
  } else if (key == "placement.host_cpus") {
    return set_cpus(l.host_cpus);
  } else if (key == "placement.housekeeping_cpus") {
    return set_cpus(l.housekeeping_cpus);
  } else if (key == "placement.explicit") {
    // One list per vCPU, separated by ';' or '/': "8;9;10;11". One budget for all of them:
    // 16 000 copies of "0-8191" must not expand into 500 MB (issue 12).
    std::vector<CpuList> lists;
    CpuIdBudget budget;
    std::string_view rest = value;
    while (!rest.empty()) {
      auto cut = rest.find_first_of(";/");
      auto item = rest.substr(0, cut);
      rest = cut == std::string_view::npos ? std::string_view{} : rest.substr(cut + 1);
      if (lists.size() == static_cast<std::size_t>(kMaxCpuIds)) {
        return make_error(key + ": more than " + std::to_string(kMaxCpuIds) + " lists");
      }
      auto v = CpuList::parse(item, &budget);
      if (!v) return with_key(v.error());
      lists.push_back(std::move(*v));
    }
    l.explicit_cpus = std::move(lists);
  } else if (key == "cpu.model") {
    std::string m(trim(value));
    if (!m.empty() && m != "auto") TL_TRY(check_feature_name(m, key));
    l.cpu_model = m == "auto" ? "" : m;
  } else if (key == "cpu.features_disable" || key == "cpu.features_require") {
    auto words = split_words(value);
    for (auto& w : words) TL_TRY(check_feature_name(w, key));
    (key == "cpu.features_disable" ? l.cpu_features_disable : l.cpu_features_require) = words;
  } else if (key == "memory.hugepages") {
    auto v = parse_hugepage_size(value);
    if (!v) return with_key(v.error());
    l.hugepage_kib = *v;
  } else if (key == "memory.locked") {
    auto v = parse_bool(value, key);
    if (!v) return v.error();
    l.hugepages_locked = *v;
  } else {
    std::string known;
    for (auto& k : layout_field_keys()) known += (known.empty() ? "" : ", ") + k;
    return make_error("unknown layout field '" + std::string(raw_key) + "' (expected one of " +
                      known + ")");
  }
  return {};
}

const std::vector<std::string>& layout_field_keys() {
  static const std::vector<std::string> keys = {"name",
                                                "description",
                                                "guest.l3_groups",
                                                "guest.cores_per_group",
                                                "guest.threads_per_core",
                                                "guest.memory_mib",
                                                "guest.iothreads",
                                                "guest.hyperv",
                                                "guest.kernel_cmdline_extra",
                                                "guest.os",
                                                "expose.as",
                                                "placement.policy",
                                                "placement.host_cpus",
                                                "placement.housekeeping_cpus",
                                                "placement.explicit",
                                                "cpu.model",
                                                "cpu.features_disable",
                                                "cpu.features_require",
                                                "memory.hugepages",
                                                "memory.locked"};
  return keys;
}

std::optional<std::string> layout_field_key(std::string_view key) {
  std::string k = canonical_key(key);
  const auto& keys = layout_field_keys();
  if (std::find(keys.begin(), keys.end(), k) == keys.end()) return std::nullopt;
  return k;
}

Result<Layout> load_layout_file(const std::filesystem::path& path) {
  auto text = read_file(path, 1u << 20);
  if (!text) return text.error();
  auto layout = parse_layout(*text, path.string());
  if (!layout) return layout.error();
  layout->source_file = path;
  if (layout->name.empty()) layout->name = path.stem().string();
  return layout;
}

}  // namespace topolab
