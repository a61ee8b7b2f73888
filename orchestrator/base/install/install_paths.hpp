#pragma once
// Where topolab finds its shipped files (templates, the guest agents) at run time: the one
// place that decides it, so an installed binary never depends on the tree it was built from.
//
// Order, first that applies:
//   1. the environment: TOPOLAB_TEMPLATES_DIR, TOPOLAB_AGENT_BINARY;
//   2. installed: the executable sits in BINDIR and DATADIR/topolab/templates exists relative
//      to it (/usr/bin/topolab -> /usr/share/topolab/templates; a relocated prefix works);
//   3. build tree: a marker file (topolab-build-tree.txt, written by CMake into the build
//      directory and never installed) in the executable's directory or up to 3 parents names
//      the source tree and the built agent; it must belong to us or root and not be writable
//      by others, so a file planted in /tmp cannot redirect a copied binary;
//   4. the configured install prefix (CMAKE_INSTALL_PREFIX), for a binary copied elsewhere.
#include <filesystem>
#include <string>
#include <string_view>

namespace topolab {

enum class PathOrigin { kEnvironment, kInstalled, kBuildTree, kPrefix };
std::string_view to_string(PathOrigin o);

struct InstallPaths {
  std::filesystem::path templates;  // holds domains/ and topologies/
  PathOrigin templates_origin = PathOrigin::kPrefix;
  std::filesystem::path agent;  // the static Linux guest agent (an image's /init)
  PathOrigin agent_origin = PathOrigin::kPrefix;
  std::filesystem::path windows_agent;  // topolab-agent.exe; may not exist (not built)
  std::filesystem::path examples;
  std::filesystem::path docs;
  std::filesystem::path build_marker;  // the marker used (origin build tree), else empty
};

// What the resolution depends on, so tests can give their own.
struct PathInputs {
  std::filesystem::path exe;                  // absolute path of the running executable
  std::string env_templates;                  // TOPOLAB_TEMPLATES_DIR, empty: unset
  std::string env_agent;                      // TOPOLAB_AGENT_BINARY, empty: unset
  std::filesystem::path prefix_bindir;        // configured, absolute
  std::filesystem::path prefix_datadir;       // configured, absolute
  std::filesystem::path prefix_docdir;        // configured, absolute
  std::filesystem::path datadir_from_bindir;  // e.g. ../share
  std::filesystem::path docdir_from_bindir;   // e.g. ../share/doc/topolab
};

InstallPaths resolve_install_paths(const PathInputs& in);

// The inputs of this process: /proc/self/exe, the environment, the configured prefix.
PathInputs current_path_inputs();
// resolve_install_paths(current_path_inputs()); cheap (a few stat calls), not cached, so a
// test's setenv takes effect.
InstallPaths install_paths();

inline constexpr const char* kBuildTreeMarker = "topolab-build-tree.txt";

}  // namespace topolab
