#pragma once
// One doctor check's verdict: a status, a one-line reason and the command that fixes it.
// Shared by doctor, hostdev validation and the isolation plan's pre-flight.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace topolab::doctor {

enum class CheckStatus { kOk, kWarn, kFail, kSkip };

struct CheckResult {
  std::string name;  // short id such as "kvm", "iommu", "hugepages"
  CheckStatus status = CheckStatus::kSkip;
  std::string reason;  // one line: what was found and why it matters
  std::string fix;     // a command (or file edit) that fixes it; empty when nothing to do
};

std::string to_string(CheckStatus);
nlohmann::json to_json(const CheckResult&);
nlohmann::json to_json(const std::vector<CheckResult>&);

// The worst status of a set: fail > warn > ok > skip (skip only when all are skipped).
CheckStatus worst_status(const std::vector<CheckResult>&);
bool any_failed(const std::vector<CheckResult>&);

CheckResult ok(std::string name, std::string reason);
CheckResult warn(std::string name, std::string reason, std::string fix);
CheckResult fail(std::string name, std::string reason, std::string fix);
CheckResult skip(std::string name, std::string reason);

}  // namespace topolab::doctor
