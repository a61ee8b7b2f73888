#pragma once
// An experiment over the test disk for `topolab run` (issue 14): the two-groups example layout
// under a name of the test's own (so its topolab- domains are told from other tests'), 2
// exposures x 1 sqrt benchmark x 2 repetitions, [guest] disk = the image (what a test reads
// back from the store: tests/support/store_view.hpp).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/store_view.hpp"

namespace topolab::testing {

// Writes dir/layout.toml (named `layout_name`) and dir/exp.toml; returns exp.toml's path.
inline std::filesystem::path write_disk_experiment(const std::filesystem::path& dir,
                                                   const std::string& layout_name,
                                                   const std::filesystem::path& image,
                                                   const std::string& sqrt_params) {
  std::ifstream in(std::string(TOPOLAB_SOURCE_DIR) + "/examples/layouts/two-groups.toml");
  std::stringstream layout;
  layout << in.rdbuf();
  std::string text = layout.str();
  const std::string from = "name = \"two-groups\"";
  text.replace(text.find(from), from.size(), "name = \"" + layout_name + "\"");
  std::ofstream(dir / "layout.toml") << text;
  std::ofstream(dir / "exp.toml")
      << "name = \"it-owndisk\"\nlayout = \"layout.toml\"\nrepetitions = 2\nseed = 3\n"
         "timeout_s = 300\n[guest]\ndisk = \""
      << image.string()
      << "\"\nos = \"linux\"\n[factors]\nexpose = [\"flat\", \"sockets\"]\n[[benchmark]]\n"
         "name = \"sqrt\"\nparams = "
      << sqrt_params << "\n";
  return dir / "exp.toml";
}

}  // namespace topolab::testing
