#include "orchestrator/base/install/install_paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <sstream>

#include "common/file_io.hpp"

// Set by CMake (cmake/TopolabInstall.cmake) on this file only; the defaults are GNUInstallDirs'
// for a build that does not set them (the fuzz and tsan trees).
#ifndef TOPOLAB_INSTALL_BINDIR
#define TOPOLAB_INSTALL_BINDIR "/usr/local/bin"
#endif
#ifndef TOPOLAB_INSTALL_DATADIR
#define TOPOLAB_INSTALL_DATADIR "/usr/local/share"
#endif
#ifndef TOPOLAB_INSTALL_DOCDIR
#define TOPOLAB_INSTALL_DOCDIR "/usr/local/share/doc/topolab"
#endif
#ifndef TOPOLAB_DATADIR_FROM_BINDIR
#define TOPOLAB_DATADIR_FROM_BINDIR "../share"
#endif
#ifndef TOPOLAB_DOCDIR_FROM_BINDIR
#define TOPOLAB_DOCDIR_FROM_BINDIR "../share/doc/topolab"
#endif

namespace topolab {

namespace fs = std::filesystem;

namespace {

constexpr int kMarkerLevels = 3;  // build/tests/x, build/orchestrator/topolab: 1 level suffices
constexpr std::size_t kMarkerMaxBytes = 4096;

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Ours or root's, a regular file, writable by nobody else: only then may it redirect us.
bool trusted_marker(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (st.st_uid != ::geteuid() && st.st_uid != 0) return false;
  return (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

struct BuildTree {
  fs::path marker, source, agent;
};

std::optional<BuildTree> parse_marker(const fs::path& marker) {
  auto text = read_file(marker, kMarkerMaxBytes);
  if (!text) return std::nullopt;
  BuildTree bt{marker, {}, {}};
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("source=", 0) == 0) bt.source = line.substr(7);
    if (line.rfind("agent=", 0) == 0) bt.agent = line.substr(6);
  }
  // Absolute paths only: a relative one would depend on the caller's working directory.
  if (!bt.source.is_absolute() || !bt.agent.is_absolute()) return std::nullopt;
  return bt;
}

std::optional<BuildTree> find_build_tree(const fs::path& exe_dir) {
  fs::path dir = exe_dir;
  for (int level = 0; level <= kMarkerLevels && !dir.empty(); ++level) {
    const fs::path m = dir / kBuildTreeMarker;
    if (trusted_marker(m)) return parse_marker(m);
    if (dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

void set_from_share(InstallPaths& p, const fs::path& datadir, const fs::path& docdir,
                    const fs::path& bindir, PathOrigin origin) {
  p.templates = datadir / "topolab" / "templates";
  p.examples = datadir / "topolab" / "examples";
  p.docs = docdir;
  p.agent = bindir / "topolab-agent";
  p.templates_origin = p.agent_origin = origin;
}

}  // namespace

std::string_view to_string(PathOrigin o) {
  switch (o) {
    case PathOrigin::kEnvironment:
      return "environment";
    case PathOrigin::kInstalled:
      return "installed";
    case PathOrigin::kBuildTree:
      return "build-tree";
    case PathOrigin::kPrefix:
      return "prefix";
  }
  return "?";
}

InstallPaths resolve_install_paths(const PathInputs& in) {
  InstallPaths p;
  const fs::path exe_dir = in.exe.parent_path();
  const fs::path rel_share = (exe_dir / in.datadir_from_bindir).lexically_normal();
  if (!in.exe.empty() && is_dir(rel_share / "topolab" / "templates")) {
    set_from_share(p, rel_share, (exe_dir / in.docdir_from_bindir).lexically_normal(), exe_dir,
                   PathOrigin::kInstalled);
  } else if (auto bt = in.exe.empty() ? std::nullopt : find_build_tree(exe_dir)) {
    p.templates = bt->source / "templates";
    p.examples = bt->source / "examples";
    p.docs = bt->source / "docs";
    p.agent = bt->agent;
    p.build_marker = bt->marker;
    p.templates_origin = p.agent_origin = PathOrigin::kBuildTree;
  } else {
    set_from_share(p, in.prefix_datadir, in.prefix_docdir, in.prefix_bindir, PathOrigin::kPrefix);
  }
  if (!in.env_templates.empty()) {
    p.templates = in.env_templates;
    p.templates_origin = PathOrigin::kEnvironment;
  }
  if (!in.env_agent.empty()) {
    p.agent = in.env_agent;
    p.agent_origin = PathOrigin::kEnvironment;
  }
  // The Windows build puts topolab-agent.exe beside topolab-agent, in the build and installed.
  p.windows_agent = p.agent.parent_path() / "topolab-agent.exe";
  return p;
}

PathInputs current_path_inputs() {
  PathInputs in;
  std::error_code ec;
  in.exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) in.exe.clear();
  if (const char* e = std::getenv("TOPOLAB_TEMPLATES_DIR")) in.env_templates = e;
  if (const char* e = std::getenv("TOPOLAB_AGENT_BINARY")) in.env_agent = e;
  in.prefix_bindir = TOPOLAB_INSTALL_BINDIR;
  in.prefix_datadir = TOPOLAB_INSTALL_DATADIR;
  in.prefix_docdir = TOPOLAB_INSTALL_DOCDIR;
  in.datadir_from_bindir = TOPOLAB_DATADIR_FROM_BINDIR;
  in.docdir_from_bindir = TOPOLAB_DOCDIR_FROM_BINDIR;
  return in;
}

InstallPaths install_paths() { return resolve_install_paths(current_path_inputs()); }

}  // namespace topolab
