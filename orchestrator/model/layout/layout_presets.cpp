#include <algorithm>
#include <cstdlib>

#include "orchestrator/base/install/install_paths.hpp"
#include "orchestrator/model/layout/layout.hpp"

namespace topolab {

std::filesystem::path presets_dir() { return install_paths().templates / "topologies"; }

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(presets_dir(), ec)) {
    if (e.path().extension() == ".toml") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<Layout> load_layout_or_preset(std::string_view name_or_path) {
  std::filesystem::path p(name_or_path);
  std::error_code ec;
  if (std::filesystem::exists(p, ec)) return load_layout_file(p);
  // A symlink loop or an unreadable directory on the way is that, not "no such file".
  if (ec && ec != std::errc::no_such_file_or_directory)
    return make_error(ErrorKind::input,
                      "layout '" + std::string(name_or_path) + "': " + ec.message());
  const bool plain_name = p.filename() == p && p.extension().empty() && !p.empty();
  if (plain_name) {
    auto preset = presets_dir() / (p.string() + ".toml");
    if (std::filesystem::exists(preset, ec)) {
      auto l = load_layout_file(preset);
      // A preset's memory is an experiment's default, not a request to resize someone's VM:
      // `apply win10 ryzen-5950x` keeps the VM's memory; a layout file or --memory sets it.
      if (l) l->memory_given = false;
      return l;
    }
  }
  std::string names;
  for (const auto& n : preset_names()) names += (names.empty() ? "" : ", ") + n;
  // Name the folder: an installed topolab with a wrong TOPOLAB_TEMPLATES_DIR (or a broken
  // install) otherwise says "one of )" and leaves the user guessing where it looked.
  const std::string dir = presets_dir().string();
  return make_error(ErrorKind::not_found,
                    "layout '" + std::string(name_or_path) +
                        "': no such file, and not a preset in " + dir +
                        (names.empty() ? " (it holds no presets; `topolab paths` shows where "
                                         "templates are taken from)"
                                       : " (expected a .toml path or one of " + names + ")"));
}

}  // namespace topolab
