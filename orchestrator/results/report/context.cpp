#include "orchestrator/results/report/context.hpp"

#include <algorithm>

#include "common/json_text.hpp"
#include "common/uri_text.hpp"
#include "host/topology_json.hpp"
#include "orchestrator/results/store/result_store.hpp"

namespace topolab::report {
namespace {

// A context value is one line of a report: a longer stored string is cut, not trusted.
constexpr std::size_t kMaxContextText = 200;
constexpr std::size_t kMaxDistinct = 4;  // "kvm, tcg": more would be noise, not context

std::string bounded(std::string s) {
  if (s.size() > kMaxContextText) s = s.substr(0, kMaxContextText) + "...";
  return s;
}

// A stored string field; "" when absent, empty or not a string.
std::string text_of(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  return bounded(it->get<std::string>());
}

// Distinct non-empty values in first-seen order, joined by ", "; "unknown" when none.
class Distinct {
 public:
  void add(const std::string& s) {
    if (!s.empty() && values_.size() < kMaxDistinct &&
        std::find(values_.begin(), values_.end(), s) == values_.end())
      values_.push_back(s);
  }
  bool empty() const { return values_.empty(); }
  bool contains(const std::string& s) const {
    return std::find(values_.begin(), values_.end(), s) != values_.end();
  }
  std::string text() const {
    std::string out;
    for (const auto& v : values_) out += (out.empty() ? "" : ", ") + v;
    return out.empty() ? kUnknown : out;
  }

 private:
  std::vector<std::string> values_;
};

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// kvm | tcg | host from the boot's context (schema 3), else from versions.kvm (schema 2 guest
// boots recorded it there); "" when neither says.
std::string boot_accelerator(const store::BootRecord& b) {
  const std::string a = text_of(b.context, "accelerator");
  if (a == "kvm" || a == "tcg" || a == "host") return a;
  if (b.versions.is_object() && b.versions.contains("kvm") && b.versions["kvm"].is_boolean())
    return b.versions["kvm"].get<bool>() ? "kvm" : "tcg";
  return "";
}

// "EPYC-Rome (custom)" or "host-passthrough" from the boot's context.cpu_model.
std::string boot_cpu_model(const store::BootRecord& b) {
  if (!b.context.is_object() || !b.context.contains("cpu_model")) return "";
  const auto& m = b.context["cpu_model"];
  const std::string mode = text_of(m, "mode"), model = text_of(m, "model");
  if (model.empty()) return mode;
  return mode.empty() ? model : model + " (" + mode + ")";
}

std::string boot_retries(const store::BootRecord& b, const std::string& accelerator) {
  const auto& t = b.timings;
  if (t.is_object() && t.contains("boot_attempts") && t["boot_attempts"].is_number_integer()) {
    const auto attempts = t["boot_attempts"].get<std::int64_t>();
    if (attempts >= 1 && attempts <= 1000) return std::to_string(attempts - 1);
  }
  if (t.is_object() && t.contains("boot_retries") && t["boot_retries"].is_array())
    return std::to_string(t["boot_retries"].size());
  if (accelerator == "host") return "0";  // no guest boots, so nothing to retry
  return kUnknown;
}

// "node1" or "node1, slurm job 12 (array 10_3)" from the boot's context.machine (issue 30);
// "unknown" for boots recorded before it.
std::string boot_machine(const store::BootRecord& b) {
  if (!b.context.is_object() || !b.context.contains("machine")) return kUnknown;
  const auto& m = b.context["machine"];
  std::string out = text_of(m, "hostname");
  if (out.empty()) out = kUnknown;
  if (!m.is_object() || !m.contains("slurm")) return out;
  const auto& s = m["slurm"];
  if (auto node = text_of(s, "node"); !node.empty() && node != out) out += " (node " + node + ")";
  if (auto job = text_of(s, "job_id"); !job.empty()) out += ", slurm job " + job;
  auto array = text_of(s, "array_job_id"), task = text_of(s, "array_task_id");
  if (!array.empty() && !task.empty()) out += " (array " + array + "_" + task + ")";
  return out;
}

// " [model view: l3_domains]" when the boot's context says a level was verified
// against the model's expectation, not the layout's (context.adjusted_levels, issue 33); ""
// for none and for stores from before it.
std::string adjusted_note(const store::BootRecord& b) {
  if (!b.context.is_object() || !b.context.contains("adjusted_levels")) return "";
  const auto& levels = b.context["adjusted_levels"];
  if (!levels.is_array()) return " [adjusted levels: unreadable]";
  std::string names;
  std::size_t shown = 0;
  for (const auto& a : levels) {
    if (++shown > 8) break;
    const std::string level = text_of(a, "level");
    // A level name is [a-z0-9_] (topology_compare's names); anything else is not shown.
    const bool plain = !level.empty() && level.find_first_not_of(
                                             "abcdefghijklmnopqrstuvwxyz"
                                             "0123456789_") == std::string::npos;
    if (plain) names += (names.empty() ? "" : ", ") + level;
  }
  return names.empty() ? "" : " [model view: " + names + "]";
}

// "packages: intended 2, seen 1; ..." from a stored mismatch list.
std::string mismatch_text(const nlohmann::json& mismatches) {
  if (mismatches.is_null()) return "";
  if (!mismatches.is_array()) return "unreadable";
  std::string out;
  std::size_t shown = 0;
  for (const auto& m : mismatches) {
    if (++shown > 8) return out + "; ...";
    auto field = [&](const char* k) {
      if (!m.is_object() || !m.contains(k)) return std::string("?");
      const auto& v = m[k];
      return bounded(v.is_string() ? v.get<std::string>() : json_line(v));
    };
    out += (out.empty() ? "" : "; ") + field("level") + ": intended " + field("intended") +
           ", seen " + field("seen");
  }
  return out;
}

std::string date_text(const store::StoredExperiment& e) {
  const std::string c = bounded(e.created), u = bounded(e.updated);
  if (c.empty()) return kUnknown;
  return u.empty() || u == c ? c : c + " .. " + u;
}

}  // namespace

std::string experiment_backend(const store::StoredExperiment& e) {
  std::string backend = text_of(e.context, "backend");
  if (backend.empty()) backend = text_of(e.versions, "backend");
  if (backend.empty()) backend = text_of(e.spec, "backend");
  return backend;
}

namespace {

// Experiment-level fields read from the experiment row alone.
ExperimentContext experiment_context(const store::StoredExperiment& e) {
  ExperimentContext x;
  const std::string backend = experiment_backend(e);
  if (!backend.empty()) x.backend = backend;
  if (auto m = text_of(e.host_topology, "model"); !m.empty()) x.host_cpu_model = m;
  x.host_topology = topology_summary(e.host_topology);
  if (auto uri = text_of(e.context, "connect_uri"); !uri.empty())
    x.connect_uri = bounded(redacted_uri(uri));  // a store may hold a password (redteam 3)
  else if (backend == "host")
    x.connect_uri = "none (host backend)";
  if (auto v = text_of(e.versions, "topolab"); !v.empty()) x.topolab_version = v;
  x.date = date_text(e);
  return x;
}

// Several hosts: every host's URI, and each host's topology as its own connection read it
// (context.hosts, written by the runner); "differs" is said, never hidden behind the first's.
void multi_host_context(const store::StoredExperiment& e, const std::vector<std::string>& hosts,
                        ExperimentContext& x) {
  std::string uris;
  for (const auto& h : hosts) uris += (uris.empty() ? "" : ", ") + h;
  x.connect_uri = bounded(uris);
  if (!e.context.is_object() || !e.context.contains("hosts") || !e.context["hosts"].is_array())
    return;
  std::string topo;
  std::size_t n = 0;
  for (const auto& h : e.context["hosts"]) {
    if (++n > kMaxDistinct) return void(x.host_topology = bounded(topo + "; ..."));
    const std::string name = redacted_uri(text_of(h, "host"));
    const nlohmann::json t =
        h.is_object() && h.contains("host_topology") ? h["host_topology"] : nlohmann::json();
    topo += (topo.empty() ? "" : "; ") + name + ": " + topology_summary(t);
  }
  if (!topo.empty()) x.host_topology = bounded(topo);
}

}  // namespace

std::string topology_summary(const nlohmann::json& topology) {
  if (topology.is_null()) return kUnknown;
  auto t = topology_from_json(topology);
  if (!t) return bounded("unreadable: " + t.error().message);
  return plural(t->packages.size(), "package", "packages") + ", " +
         plural(t->dies.size(), "die", "dies") + ", " + std::to_string(t->l3_domains.size()) +
         " L3, " + plural(t->cores().size(), "core", "cores") + ", " +
         plural(t->online_cpus().size(), "CPU", "CPUs");
}

std::vector<std::pair<std::string, std::string>> experiment_fields(const ExperimentContext& x) {
  return {{"backend", x.backend},
          {"host_cpu_model", x.host_cpu_model},
          {"host_topology", x.host_topology},
          {"connect_uri", x.connect_uri},
          {"accelerator", x.accelerator},
          {"guest_cpu_model", x.guest_cpu_model},
          {"topolab_version", x.topolab_version},
          {"agent_version", x.agent_version},
          {"kernel", x.kernel},
          {"date", x.date}};
}

std::vector<std::pair<std::string, std::string>> cell_fields(const CellContext& c) {
  return {{"intended_topology", c.intended},
          {"seen_topology", c.seen},
          {"mismatches", c.mismatches},
          {"boot_retries", c.boot_retries},
          {"ran_on", c.ran_on}};
}

namespace {

// Whether the design has guest OS settings: only then are the cells' runs read for them.
bool has_conditions(const store::StoredExperiment& exp) {
  if (!exp.spec.is_object()) return false;
  if (exp.spec.contains("os")) return true;
  if (!exp.spec.contains("factors") || !exp.spec["factors"].is_array()) return false;
  for (const auto& f : exp.spec["factors"])
    if (f.is_object() && f.value("key", "").rfind("os.", 0) == 0) return true;
  return false;
}

// {NAME: {"requested": V, "seen": [distinct V ...]}} over the cell's runs.
nlohmann::json cell_conditions(store::ResultStore& store, std::int64_t cell_id) {
  nlohmann::json out = nlohmann::json::object();
  auto runs = store.runs(cell_id);
  if (!runs) return out;
  for (const auto& r : *runs) {
    if (!r.result.is_object() || !r.result.contains("environment")) continue;
    const auto& env = r.result["environment"];
    if (!env.is_object() || !env.contains("conditions") || !env["conditions"].is_object()) continue;
    for (const auto& [name, c] : env["conditions"].items()) {
      if (!c.is_object() || out.size() >= kMaxDistinct * 8) continue;
      auto& entry = out[name];
      if (!entry.contains("requested")) {
        entry["requested"] = c.value("requested", nlohmann::json());
        entry["seen"] = nlohmann::json::array();
      }
      const auto seen = c.value("seen", nlohmann::json());
      auto& list = entry["seen"];
      if (list.size() < kMaxDistinct && std::find(list.begin(), list.end(), seen) == list.end())
        list.push_back(seen);
    }
  }
  return out;
}

}  // namespace

namespace {

std::string condition_value(const nlohmann::json& v) {
  return v.is_string() ? bounded(v.get<std::string>()) : v.is_null() ? "none" : bounded(v.dump());
}

}  // namespace

std::vector<std::pair<std::string, std::string>> condition_fields(const ExperimentContext& x,
                                                                  const CellContext& c) {
  if (!x.has_conditions) return {};
  std::string text;
  for (const auto& [name, entry] : c.conditions.items()) {
    if (!entry.is_object()) continue;
    std::string seen;
    const auto list = entry.value("seen", nlohmann::json::array());
    for (const auto& v : list) seen += (seen.empty() ? "" : " | ") + condition_value(v);
    text += (text.empty() ? "" : "; ") + bounded(name) + ": requested " +
            condition_value(entry.value("requested", nlohmann::json())) + ", seen " +
            (seen.empty() ? "none" : seen);
  }
  return {{"conditions", text}};
}

const CellContext& cell_context(const ReportContext& ctx, const std::string& cell) {
  static const CellContext kNone;
  auto it = ctx.cells.find(cell);
  return it == ctx.cells.end() ? kNone : it->second;
}

ReportContext load_context(store::ResultStore& store, const store::StoredExperiment& exp,
                           const std::vector<store::StoredCell>& cells,
                           const std::vector<std::string>& hosts) {
  ReportContext ctx;
  ctx.experiment = experiment_context(exp);
  if (!hosts.empty()) multi_host_context(exp, hosts, ctx.experiment);
  Distinct accel, model, agent, kernel;
  std::map<std::int64_t, std::optional<store::StoredBoot>> boots;  // each boot read once
  const bool conditions = has_conditions(exp);
  ctx.experiment.has_conditions = conditions;
  for (const auto& c : cells) {
    CellContext cc;
    cc.mismatches = mismatch_text(c.mismatches);
    if (conditions) cc.conditions = cell_conditions(store, c.id);
    if (c.boot_id) {
      if (!boots.count(c.boot_id)) {
        auto b = store.boot(c.boot_id);  // a missing or unreadable boot leaves it "unknown"
        boots[c.boot_id] = b ? std::optional<store::StoredBoot>(*b) : std::nullopt;
      }
      if (const auto& b = boots[c.boot_id]) {
        std::string a = boot_accelerator(b->boot);
        if (a.empty() && ctx.experiment.backend == "host") a = "host";  // schema 2 host boots
        accel.add(a);
        model.add(a == "host" ? "none (no guest)" : boot_cpu_model(b->boot));
        agent.add(text_of(b->boot.versions, "agent"));
        std::string k = text_of(b->boot.versions, "guest_kernel");
        kernel.add(k.empty() ? text_of(b->boot.versions, "kernel") : k);
        cc.intended = a == "host" ? "none (no guest)"
                                  : topology_summary(b->boot.intended) + adjusted_note(b->boot);
        cc.seen = topology_summary(b->boot.seen);
        cc.boot_retries = boot_retries(b->boot, a);
        cc.ran_on = boot_machine(b->boot);
      }
    }
    ctx.cells[hosts.empty() ? c.cell.label : c.cell.label + " @ " + c.cell.host] = std::move(cc);
  }
  if (accel.empty() && ctx.experiment.backend == "host") accel.add("host");
  if (kernel.empty()) kernel.add(text_of(exp.versions, "guest_kernel"));
  ctx.experiment.accelerator = accel.text();
  ctx.experiment.emulated = accel.contains("tcg");
  ctx.experiment.guest_cpu_model = model.text();
  ctx.experiment.agent_version = agent.text();
  ctx.experiment.kernel = kernel.text();
  return ctx;
}

}  // namespace topolab::report
