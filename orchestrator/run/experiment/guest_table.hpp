#pragma once
// An experiment file's [guest] table (issue 14): the guest the cells boot.
//   [guest]
//   disk = "images/debian.qcow2"   # relative to the experiment file's folder
//   os = "linux"                    # linux (default) | windows
// or
//   domain = "win10"                # a shut-off libvirt domain used as the template
// Without it the built-in image is booted.
#include <toml++/toml.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "common/result.hpp"
#include "orchestrator/model/layout/guest_source.hpp"

namespace topolab::experiment {

// `origin` names the file in errors ("FILE:LINE: [guest] ...").
Result<GuestSource> parse_guest_table(const toml::node& node,
                                                   const std::filesystem::path& base_dir,
                                                   const std::string& origin);

nlohmann::json guest_source_to_json(const GuestSource&);

}  // namespace topolab::experiment
