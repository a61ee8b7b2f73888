#pragma once
// `topolab doctor`: runs every check against a root folder ("/" = this machine) and, when a
// layout is given, against what that guest needs.
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/hostprep/doctor/guest_requirements.hpp"
#include "orchestrator/hostprep/hostcheck/check.hpp"

namespace topolab::doctor {

struct DoctorOptions {
  std::filesystem::path root = "/";
  std::string connect_uri;  // libvirt; checked only when root is the live "/"
  bool check_libvirt = true;
  std::optional<GuestRequirements> guest;
};

std::vector<CheckResult> run_doctor(const DoctorOptions&);

// A --root must be an existing folder: a mistyped one would otherwise read as an empty host
// (every file missing) and report plausible-looking findings about nothing.
Result<void> check_root_folder(const std::filesystem::path& root);

// Table: status, check, reason, and the fix on its own indented line.
void print_check_table(std::ostream&, const std::vector<CheckResult>&);

}  // namespace topolab::doctor
