#include "guest-agent/settings.hpp"

namespace topolab::agent {

namespace proto = protocol;
using nlohmann::json;

proto::SettingStates GuestSettings::list() const {
  proto::SettingStates out;
  for (const auto& row : proto::setting_rows()) {
    if (row.os != os::this_os()) continue;
    auto v = os::read_setting(row);
    proto::SettingState s;
    if (v) {
      s.value = *v;
    } else {
      s.error = v.error().message;
    }
    out[std::string(row.name)] = std::move(s);
  }
  return out;
}

proto::SettingStates GuestSettings::configure(const std::map<std::string, json>& request,
                                              bool& changed) {
  std::lock_guard lock(mu_);
  proto::SettingStates out;
  for (const auto& [name, value] : request) {
    const proto::SettingRow* row = proto::find_setting(name);
    proto::SettingState& s = out[name];
    if (!row) {
      s.error = "unknown setting";
      continue;
    }
    if (row->os != os::this_os()) {
      s.error = name + " is a " + std::string(display_name(row->os)) +
                " setting; this guest runs " + std::string(display_name(os::this_os()));
      continue;
    }
    auto before = os::read_setting(*row);
    if (!before) {
      s.error = before.error().message;
      continue;
    }
    if (!originals_.count(name)) originals_[name] = *before;
    if (auto written = os::write_setting(*row, value); !written) {
      s.error = written.error().message;
      continue;
    }
    changed = changed || *before != value;
    auto seen = os::read_setting(*row);
    if (seen) {
      s.value = *seen;
    } else {
      s.error = "applied, but reading it back failed: " + seen.error().message;
    }
  }
  return out;
}

void GuestSettings::restore_all() {
  std::lock_guard lock(mu_);
  for (const auto& [name, original] : originals_) {
    const proto::SettingRow* row = proto::find_setting(name);
    if (!row) continue;
    if (auto r = os::restore_setting(*row, original); !r) {
      log_ << "topolab-agent: restoring " << name << ": " << r.error().message << "\n";
    }
  }
  originals_.clear();
}

}  // namespace topolab::agent
