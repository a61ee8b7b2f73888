#pragma once
// Guest OS settings (issue 25) on the agent's side. The rows are protocol/guest_settings.hpp's;
// settings_linux.cpp / settings_windows.cpp read and write them on this OS (CMake compiles one),
// and GuestSettings (settings.cpp) keeps what the agent changed so that it can put it back.
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "common/result.hpp"
#include "protocol/guest_settings.hpp"

namespace topolab::agent {

namespace os {
GuestOs this_os();
// The row's current value, or why this guest cannot have it (file missing, call stubbed).
Result<nlohmann::json> read_setting(const protocol::SettingRow&);
// Applies an already validated value.
Result<void> write_setting(const protocol::SettingRow&, const nlohmann::json& value);
// Puts back the value read before the first change (Windows timer resolution: releases the
// agent's request instead, which is how Windows restores it).
Result<void> restore_setting(const protocol::SettingRow&, const nlohmann::json& original);
// Test-only (`serve --settings-root DIR`): the Linux rows' files under DIR instead of "/", so
// tests exercise the agent on a fake tree and never change the machine they run on. Windows
// ignores it.
void set_settings_root(const std::string& root);
}  // namespace os

class GuestSettings {
 public:
  explicit GuestSettings(std::ostream& log) : log_(log) {}
  ~GuestSettings() { restore_all(); }
  GuestSettings(const GuestSettings&) = delete;
  GuestSettings& operator=(const GuestSettings&) = delete;

  // Every row of this OS with its current value or the reason it is unavailable (hello).
  protocol::SettingStates list() const;
  // Applies each value (rows of another OS are refused by name), reads it back and answers
  // per setting; the first change of a setting remembers its original value. `changed` is set
  // when anything was written (the caller re-reads the topology: os.smt changes it).
  protocol::SettingStates configure(const std::map<std::string, nlohmann::json>& request,
                                    bool& changed);
  // Writes every remembered original back (shutdown, end of session, destructor).
  void restore_all();

 private:
  std::ostream& log_;
  // configure and restore_all may run on two threads: the request loop and the agent's
  // termination hook (os::set_termination_hook), which restores on SIGTERM/SIGINT/SIGHUP.
  std::mutex mu_;
  std::map<std::string, nlohmann::json> originals_;
};

}  // namespace topolab::agent
