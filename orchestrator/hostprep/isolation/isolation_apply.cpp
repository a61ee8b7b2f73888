#include "orchestrator/hostprep/isolation/isolation_apply.hpp"

#include <algorithm>

#include "common/file_io.hpp"
#include "common/json_text.hpp"

namespace topolab::isolation {
namespace {

Result<void> write_record(const SysRoot& root, const IsolationPlan& plan) {
  auto path = root.at(undo_record_path(plan.domain));
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return make_error(ErrorKind::io, path.parent_path().string() + ": " + ec.message());
  // Paths under --root need not be UTF-8: replaced rather than thrown (redteam wave 4).
  return write_file_atomic(path, json_document(plan_to_json(plan)), 0600);
}

std::string failure_line(const IsolationAction& a, const std::string& value, const Error& e) {
  return to_string(a.kind) + " " + a.path + " <- '" + value + "': " + e.message;
}

}  // namespace

std::string undo_record_path(const std::string& domain) {
  return "/var/lib/topolab/isolation/" + domain + ".json";
}

bool has_undo_record(const SysRoot& root, const std::string& domain) {
  return check_domain_name(domain) && root.exists(undo_record_path(domain));
}

Result<IsolationPlan> read_undo_record(const SysRoot& root, const std::string& domain) {
  TL_TRY(check_domain_name(domain));
  auto path = root.at(undo_record_path(domain));
  TL_ASSIGN(auto text, read_file(path, 16u << 20));
  auto j = nlohmann::json::parse(text, nullptr, false);
  TL_ASSIGN_CTX(auto plan, plan_from_json(j), path.string());
  if (plan.domain != domain) {
    return make_error(ErrorKind::input, path.string() + ": record names domain '" + plan.domain +
                                            "', expected '" + domain + "'");
  }
  return plan;
}

Result<ApplyReport> apply_isolation(const SysRoot& root, const IsolationPlan& plan) {
  TL_TRY(check_domain_name(plan.domain));
  ApplyReport report;
  if (has_undo_record(root, plan.domain)) {
    TL_ASSIGN_CTX(auto stale, release_isolation(root, plan.domain),
                  "releasing the leftover record first");
    report.notes.push_back("released a leftover record of " + plan.domain + " first (" +
                           std::to_string(stale.done.size()) + " values restored)");
    for (const auto& f : stale.failures) report.failures.push_back("leftover: " + f);
    if (has_undo_record(root, plan.domain)) {
      return make_error(ErrorKind::failed, "leftover isolation record of " + plan.domain +
                                               " could not be fully "
                                               "restored; fix it by hand and remove " +
                                               undo_record_path(plan.domain));
    }
  }
  // The values to restore are read now, not at planning time: the leftover release above (or
  // anything else) may have changed them since.
  IsolationPlan current = plan;
  for (auto& a : current.actions) {
    if (a.kind == ActionKind::kCgroupController) continue;  // before is the inverse write
    if (auto now = root.attr_or_none(a.path)) a.before = *now;
  }
  TL_TRY(write_record(root, current));
  for (const auto& a : current.actions) {
    auto written = root.write_attr(a.path, a.after);
    if (written) {
      report.done.push_back(a);
    } else {
      report.failures.push_back(failure_line(a, a.after, written.error()));
    }
  }
  IsolationPlan record = current;
  record.actions = report.done;
  TL_TRY(write_record(root, record));
  return report;
}

Result<ApplyReport> release_isolation(const SysRoot& root, const std::string& domain) {
  ApplyReport report;
  if (!has_undo_record(root, domain)) {
    TL_TRY(check_domain_name(domain));
    report.notes.push_back("no isolation record for " + domain + ": nothing to restore");
    return report;
  }
  TL_ASSIGN(auto plan, read_undo_record(root, domain));
  std::vector<IsolationAction> remaining;
  for (auto it = plan.actions.rbegin(); it != plan.actions.rend(); ++it) {
    auto restored = root.write_attr(it->path, it->before);
    if (restored) {
      report.done.push_back(*it);
    } else if (root.exists(it->path)) {
      report.failures.push_back(failure_line(*it, it->before, restored.error()));
      remaining.insert(remaining.begin(), *it);
    } else {
      report.notes.push_back(it->path + " is gone (IRQ freed or CPU offline): nothing to restore");
    }
  }
  if (remaining.empty()) {
    std::error_code ec;
    std::filesystem::remove(root.at(undo_record_path(domain)), ec);
    if (ec)
      return make_error(ErrorKind::io,
                        root.at(undo_record_path(domain)).string() + ": " + ec.message());
  } else {
    IsolationPlan rest = plan;
    rest.actions = remaining;
    TL_TRY(write_record(root, rest));
  }
  return report;
}

nlohmann::json report_to_json(const ApplyReport& report) {
  IsolationPlan tmp;
  tmp.actions = report.done;
  return {{"done", plan_to_json(tmp)["actions"]},
          {"failures", report.failures},
          {"notes", report.notes}};
}

}  // namespace topolab::isolation
