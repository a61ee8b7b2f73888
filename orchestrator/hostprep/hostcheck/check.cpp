#include "orchestrator/hostprep/hostcheck/check.hpp"

#include <algorithm>

namespace topolab::doctor {

std::string to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::kOk:
      return "ok";
    case CheckStatus::kWarn:
      return "warn";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kSkip:
      return "skip";
  }
  return "?";
}

nlohmann::json to_json(const CheckResult& r) {
  return {{"name", r.name}, {"status", to_string(r.status)}, {"reason", r.reason}, {"fix", r.fix}};
}

nlohmann::json to_json(const std::vector<CheckResult>& results) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& r : results) checks.push_back(to_json(r));
  return checks;
}

namespace {
int severity(CheckStatus s) {
  switch (s) {
    case CheckStatus::kSkip:
      return 0;
    case CheckStatus::kOk:
      return 1;
    case CheckStatus::kWarn:
      return 2;
    case CheckStatus::kFail:
      return 3;
  }
  return 0;
}
}  // namespace

CheckStatus worst_status(const std::vector<CheckResult>& results) {
  CheckStatus worst = CheckStatus::kSkip;
  for (const auto& r : results) {
    if (severity(r.status) > severity(worst)) worst = r.status;
  }
  return worst;
}

bool any_failed(const std::vector<CheckResult>& results) {
  return std::any_of(results.begin(), results.end(),
                     [](const CheckResult& r) { return r.status == CheckStatus::kFail; });
}

CheckResult ok(std::string name, std::string reason) {
  return {std::move(name), CheckStatus::kOk, std::move(reason), ""};
}
CheckResult warn(std::string name, std::string reason, std::string fix) {
  return {std::move(name), CheckStatus::kWarn, std::move(reason), std::move(fix)};
}
CheckResult fail(std::string name, std::string reason, std::string fix) {
  return {std::move(name), CheckStatus::kFail, std::move(reason), std::move(fix)};
}
CheckResult skip(std::string name, std::string reason) {
  return {std::move(name), CheckStatus::kSkip, std::move(reason), ""};
}

}  // namespace topolab::doctor
