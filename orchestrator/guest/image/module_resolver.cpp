#include "orchestrator/guest/image/module_resolver.hpp"

#include <map>
#include <set>
#include <sstream>

#include "common/file_io.hpp"
#include "common/owned_fd.hpp"
#include "common/process.hpp"

namespace topolab::image {

namespace fs = std::filesystem;

namespace {

// Real modules.dep files are under 1 MiB; real dependency chains under 20 modules deep.
constexpr std::size_t kMaxModulesDepBytes = 16u << 20;
constexpr std::size_t kMaxModuleDepth = 256;
// A module decompresses in well under a second; a stuck decompressor must not hang the build.
constexpr std::chrono::seconds kDecompressTimeout{120};

std::string module_name(std::string_view path) {
  auto slash = path.rfind('/');
  std::string base(slash == std::string_view::npos ? path : path.substr(slash + 1));
  auto ko = base.find(".ko");
  if (ko != std::string::npos) base.resize(ko);
  for (char& c : base) {
    if (c == '-') c = '_';
  }
  return base;
}

struct DepEntry {
  std::string rel_path;
  std::vector<std::string> deps;  // names, in modules.dep order
};

Result<std::map<std::string, DepEntry>> parse_modules_dep(const fs::path& file) {
  TL_ASSIGN(auto text, read_file(file, kMaxModulesDepBytes));
  std::map<std::string, DepEntry> out;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) {
      return make_error(ErrorKind::input, file.string() + ":" + std::to_string(lineno) +
                                              ": expected 'module.ko: deps...', got '" +
                                              line.substr(0, 80) + "'");
    }
    DepEntry e;
    e.rel_path = line.substr(0, colon);
    std::istringstream deps(line.substr(colon + 1));
    std::string d;
    while (deps >> d) e.deps.push_back(module_name(d));
    out[module_name(e.rel_path)] = std::move(e);
  }
  return out;
}

std::set<std::string> parse_builtin(const fs::path& file) {
  std::set<std::string> out;
  auto text = read_file(file, kMaxModulesDepBytes);
  if (!text) return out;  // older kernels may lack it: nothing is builtin then
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.insert(module_name(line));
  }
  return out;
}

}  // namespace

namespace {

// A walk in progress: the module and how many of its dependencies were pushed.
struct Frame {
  std::string name;
  const DepEntry* entry;
  std::size_t next = 0;
};

// Depth-first with an explicit stack (issue 12, class 3): a hostile or broken modules.dep with a
// chain thousands of modules deep must give an error, not overflow the call stack. Real chains
// are under 20 deep.
Result<void> walk_module(const std::string& root, const std::map<std::string, DepEntry>& dep,
                         const std::set<std::string>& builtin, const fs::path& modules_dir,
                         std::set<std::string>& done, std::vector<ModuleFile>& order) {
  const std::string dep_file = (modules_dir / "modules.dep").string();
  std::vector<Frame> stack;
  std::set<std::string> visiting;
  auto enter = [&](const std::string& name) -> Result<void> {
    if (done.count(name) || builtin.count(name)) return {};
    if (visiting.count(name))
      return make_error(ErrorKind::input, dep_file + ": dependency cycle at " + name);
    auto it = dep.find(name);
    if (it == dep.end()) {
      return make_error(ErrorKind::not_found, "module '" + name + "' is neither in " + dep_file +
                                                  " nor in modules.builtin");
    }
    if (stack.size() >= kMaxModuleDepth) {
      return make_error(ErrorKind::input, dep_file + ": dependency chain of " + root +
                                              " deeper than " + std::to_string(kMaxModuleDepth) +
                                              " modules");
    }
    visiting.insert(name);
    stack.push_back({name, &it->second});
    return {};
  };
  TL_TRY(enter(root));
  while (!stack.empty()) {
    Frame& top = stack.back();
    const auto& deps = top.entry->deps;
    if (top.next < deps.size()) {
      // modprobe loads the last listed dependency first.
      const std::string next = deps[deps.size() - 1 - top.next++];
      TL_TRY(enter(next));
      continue;
    }
    visiting.erase(top.name);
    done.insert(top.name);
    order.push_back({top.name, modules_dir / top.entry->rel_path});
    stack.pop_back();
  }
  return {};
}

}  // namespace

Result<std::vector<ModuleFile>> resolve_modules(const fs::path& modules_dir,
                                                const std::vector<std::string>& wanted) {
  TL_ASSIGN(auto dep, parse_modules_dep(modules_dir / "modules.dep"));
  const auto builtin = parse_builtin(modules_dir / "modules.builtin");
  std::vector<ModuleFile> order;
  std::set<std::string> done;
  for (const auto& w : wanted) {
    TL_TRY(walk_module(module_name(w), dep, builtin, modules_dir, done, order));
  }
  return order;
}

Result<std::string> read_module_bytes(const fs::path& path) {
  const std::string p = path.string();
  constexpr std::size_t kMax = 64u << 20;
  auto ends_with = [&](std::string_view s) {
    return p.size() >= s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".ko")) return read_file(path, kMax);
  const char* tool = ends_with(".ko.xz")    ? "xz"
                     : ends_with(".ko.zst") ? "zstd"
                     : ends_with(".ko.gz")  ? "gzip"
                                            : nullptr;
  if (!tool) {
    return make_error(ErrorKind::input,
                      p + ": unknown module file type (expected .ko, .ko.xz, .ko.zst or .ko.gz)");
  }
  // The decompressor reads the file we opened (and checked to be regular) on its stdin: a FIFO
  // named as a module must not block it.
  TL_ASSIGN(auto fd, open_regular_file(path));
  ProcessSpec spec = ProcessSpec::in_path({tool, "-dcq"}, kDecompressTimeout);
  spec.stdin_fd = fd.get();
  spec.max_output = kMax;
  TL_ASSIGN_CTX(auto out, run_for_output(spec), p);
  return out;
}

}  // namespace topolab::image
