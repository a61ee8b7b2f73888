// Every program the scripts and the tests run comes from a package the test command installs
// (scripts/packages/*.txt, read by scripts/setup.sh) or from Debian 12's minbase set
// (scripts/provenance/minbase-bookworm.txt): issue 31 found `cpack -G DEB` needing `file`,
// which only the developers' machines happened to have. The scanner's own tests come first.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/process.hpp"
#include "tests/scripts/shell_commands.hpp"

namespace topolab::test {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = TOPOLAB_SOURCE_DIR;

std::vector<std::string> names(const std::vector<CommandWord>& words) {
  std::vector<std::string> out;
  for (auto& w : words) out.push_back(w.name);
  return out;
}

using V = std::vector<std::string>;

TEST(ShellCommandWords, CommandsAtEveryCommandPosition) {
  EXPECT_EQ(names(shell_command_words("a x | b y && c || d; e & f\n")),
            (V{"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(names(shell_command_words("if grep -q x f; then sed p; else awk 1; fi\n")),
            (V{"grep", "sed", "awk"}));
  EXPECT_EQ(names(shell_command_words("while read l; do wc -l; done <in\n")), (V{"wc"}));
  EXPECT_EQ(names(shell_command_words("X=1 Y=\"$z\" make all\n")), (V{"make"}));
  EXPECT_EQ(names(shell_command_words("A=(x \"y)\" z)\nB+=(w)\nsort\n")), (V{"sort"}));
  EXPECT_EQ(names(shell_command_words("f a\ng\n", {"f"})), (V{"g"}));
}

TEST(ShellCommandWords, SubstitutionsInsideQuotesRunCommands) {
  EXPECT_EQ(names(shell_command_words("echo \"n=$(wc -l <f) at $(date +%T)\"\n")),
            (V{"wc", "date"}));
  EXPECT_EQ(names(shell_command_words("cd \"$(dirname \"$0\")/..\"\n")), (V{"dirname"}));
  EXPECT_EQ(names(shell_command_words("x=`uname -r`\n")), (V{"uname"}));
}

TEST(ShellCommandWords, DataIsNotACommand) {
  EXPECT_TRUE(shell_command_words("echo 'a; rm -rf x' \"b | cat\" # ; ls\n").empty());
  EXPECT_TRUE(shell_command_words("cat <<EOF\nrm -rf /\nEOF\n").size() == 1);
  EXPECT_EQ(names(shell_command_words("cat <<'E' >f\n  ls\nE\nhead f\n")), (V{"cat", "head"}));
  EXPECT_TRUE(shell_command_words("((i = 0; i < 3; i++))\nx=$((a | b))\n").empty());
  EXPECT_EQ(names(shell_command_words("echo ${v:-$(hostname)} ${#a[@]}\n")), (V{"hostname"}));
  EXPECT_EQ(names(shell_command_words("mapfile -t A < <(sed p f)\nfor p in a; do tr; done\n")),
            (V{"sed", "tr"}));
  EXPECT_TRUE(shell_command_words("\"$CMD\" arg\n$X y\n").empty());
}

TEST(ShellCommandWords, CasePatternsAndFunctions) {
  auto w = shell_command_words(
      "f() { sort; }\ncase $1 in\n  a | b) tr x y ;;\n  --store) shift 2 ;;\n  *) f "
      ";;\nesac\nuniq\n");
  EXPECT_EQ(names(w), (V{"sort", "tr", "uniq"}));
}

TEST(ShellCommandWords, WrappersRunTheirArgumentAndPathsAreBaseNames) {
  EXPECT_EQ(names(shell_command_words("timeout -s KILL 10 qemu-img info f\n")),
            (V{"timeout", "qemu-img"}));
  EXPECT_EQ(names(shell_command_words("exec env A=1 /usr/bin/virsh list\n")),
            (V{"env", "virsh"}));  // exec and command are builtins
  EXPECT_EQ(names(shell_command_words("./build/x && scripts/y.sh && $ROOT/z\n")), V{});
  EXPECT_EQ(names(shell_command_words("setsid bash -c x 2>&1 >/dev/null &\n")),
            (V{"setsid", "bash"}));
}

TEST(ShellCommandWords, LinesAreCounted) {
  auto w = shell_command_words("a \\\n  b\n\nc\n");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].line, 1);
  EXPECT_EQ(w[1].line, 4);
}

TEST(CxxProgramLiterals, FindsArgvZeroOfSpawnedPrograms) {
  auto w = cxx_program_literals(
      "run_process({\"/usr/bin/virsh\", \"list\"});\nauto s = ProcessSpec::in_path({\"xz\", "
      "\"-d\"}, 1s);\nProcessSpec({\"./local\"});\nargv = {\"timeout\", \"60\", \"wine\"};\n"
      "if (find_program(\"wineserver\")) {}\n");
  std::multiset<std::string> got;
  for (auto& n : names(w)) got.insert(n);
  EXPECT_EQ(got, (std::multiset<std::string>{"virsh", "xz", "timeout", "wine", "wineserver"}));
  EXPECT_EQ(w.back().line, 5);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One name a line; '#' starts a comment.
std::set<std::string> read_list(const fs::path& p) {
  std::set<std::string> out;
  std::istringstream in(read_text(p));
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string w;
    if (words >> w) out.insert(w);
  }
  return out;
}

// The packages a fresh machine has after scripts/setup.sh --test: the listed ones and minbase
// with everything they depend on (Depends, Pre-Depends; the first of alternatives, which apt
// picks), read from this machine's dpkg database.
std::set<std::string> dependency_closure(std::set<std::string> roots) {
  auto r = run_process(
      ProcessSpec({"/usr/bin/dpkg-query", "-W", "-f", "${Package}\t${Pre-Depends}, ${Depends}\n"}));
  std::map<std::string, std::vector<std::string>> deps;
  if (r && r->status.success()) {
    std::istringstream in(r->out);
    for (std::string line; std::getline(in, line);) {
      auto tab = line.find('\t');
      if (tab == std::string::npos) continue;
      std::istringstream list(line.substr(tab + 1));
      for (std::string dep; std::getline(list, dep, ',');) {
        dep = dep.substr(0, dep.find('|'));
        std::istringstream words(dep);
        std::string name;
        if (words >> name) deps[line.substr(0, tab)].push_back(name.substr(0, name.find(':')));
      }
    }
  }
  std::vector<std::string> todo(roots.begin(), roots.end());
  while (!todo.empty()) {
    auto p = todo.back();
    todo.pop_back();
    for (auto& d : deps[p])
      if (roots.insert(d).second) todo.push_back(d);
  }
  return roots;
}

struct Use {
  std::string program;
  std::string where;  // FILE:LINE or the indirect list's reason
};

bool is_shell_script(const fs::path& p) {
  if (p.extension() == ".sh") return true;
  auto text = read_text(p);
  return text.rfind("#!/usr/bin/env bash", 0) == 0 || text.rfind("#!/bin/bash", 0) == 0 ||
         text.rfind("#!/bin/sh", 0) == 0;
}

std::vector<Use> collect_uses() {
  std::vector<Use> uses;
  auto add = [&](const std::vector<CommandWord>& words, const fs::path& file) {
    for (auto& w : words)
      uses.push_back({w.name, fs::relative(file, kSource).string() + ":" + std::to_string(w.line)});
  };
  // Functions of one script may be called from another that sources it (ci-accounting.sh).
  std::set<std::string> functions;
  for (auto dir : {"scripts", "tests"})
    for (auto& e : fs::recursive_directory_iterator(kSource / dir))
      if (e.is_regular_file() && e.path().extension() == ".sh")
        for (auto& f : shell_function_names(read_text(e.path()))) functions.insert(f);
  auto walk = [&](const fs::path& dir) {
    for (auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      auto p = e.path();
      if (p.parent_path() == kSource / "tests/scripts") continue;  // the scanner's own examples
      auto ext = p.extension();
      if (ext == ".cpp" || ext == ".hpp") {
        add(cxx_program_literals(read_text(p)), p);
      } else if (ext == ".py") {
        auto first = read_text(p).substr(0, 64);
        if (first.rfind("#!/usr/bin/env python3", 0) == 0) uses.push_back({"python3", p.string()});
      } else if (is_shell_script(p)) {
        add(shell_command_words(read_text(p), functions), p);
      }
    }
  };
  for (auto dir : {"scripts", "tests", "common", "host", "orchestrator", "cmake"})
    walk(kSource / dir);
  add(shell_command_words(read_text(kSource / ".ci/run"), functions), kSource / ".ci/run");
  // Programs that other programs run (not visible in our text), with who runs them.
  std::istringstream in(read_text(kSource / "scripts/provenance/indirect.txt"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.find(' ');
    uses.push_back({line.substr(0, space), "indirect: " + line.substr(space + 1)});
  }
  return uses;
}

// The system's programs first: a user's shims (pyenv, /usr/local) are not what a fresh machine has.
std::optional<fs::path> find_in_path(const std::string& name) {
  std::string path = "/usr/sbin:/usr/bin:/sbin:/bin:";
  path += getenv("PATH") ? getenv("PATH") : "";
  std::istringstream dirs(path);
  for (std::string d; std::getline(dirs, d, ':');) {
    fs::path p = fs::path(d) / name;
    if (!d.empty() && access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p)) return p;
  }
  return std::nullopt;
}

// The paths by which dpkg may know a program's file: the one found, its target (an
// alternatives link), and each with and without /usr (before and after usrmerge).
std::vector<std::string> dpkg_candidates(const fs::path& found) {
  std::vector<std::string> out = {found.string(), fs::canonical(found).string()};
  for (std::string c : std::vector<std::string>(out))
    out.push_back(c.rfind("/usr/", 0) == 0 ? c.substr(4) : "/usr" + c);
  return out;
}

// path -> package, in one dpkg-query call (each call reads the whole database).
std::map<std::string, std::string> packages_of(const std::set<std::string>& paths) {
  std::vector<std::string> argv = {"/usr/bin/dpkg-query", "-S"};
  argv.insert(argv.end(), paths.begin(), paths.end());
  auto spec = ProcessSpec(argv);
  spec.max_output = 16u << 20;
  auto r = run_process(spec);
  std::map<std::string, std::string> out;
  if (!r) return out;
  std::istringstream in(r->out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("diversion by", 0) == 0) continue;
    auto colon = line.find(": ");
    if (colon == std::string::npos || line.substr(0, colon).find(", ") != std::string::npos)
      continue;
    auto pkg = line.substr(0, colon);
    out[line.substr(colon + 2)] = pkg.substr(0, pkg.find(':'));
  }
  return out;
}

TEST(ProgramProvenance, EveryProgramComesFromAnInstalledListOrMinbase) {
  std::set<std::string> allowed = read_list(kSource / "scripts/packages/main.txt");
  for (auto& p : read_list(kSource / "scripts/packages/test.txt")) allowed.insert(p);
  auto minbase = read_list(kSource / "scripts/provenance/minbase-bookworm.txt");
  ASSERT_GT(minbase.size(), 50u) << "the minbase list is missing or truncated";
  ASSERT_TRUE(minbase.count("coreutils") && minbase.count("dpkg"));
  allowed.insert(minbase.begin(), minbase.end());
  auto listed = allowed.size();
  allowed = dependency_closure(allowed);
  ASSERT_GT(allowed.size(), listed) << "no dependencies read from dpkg";
  auto ignored = read_list(kSource / "scripts/provenance/not-programs.txt");

  auto uses = collect_uses();
  ASSERT_GT(uses.size(), 200u) << "the scan found too few programs to be working";
  std::map<std::string, std::string> first_use;
  for (auto& u : uses) first_use.emplace(u.program, u.where);
  for (auto must : {"cmake", "ctest", "virsh", "qemu-img", "debootstrap", "wine", "file"})
    EXPECT_TRUE(first_use.count(must)) << must << " is run by the scripts but the scan missed it";

  std::map<std::string, fs::path> found_at;
  std::set<std::string> paths;
  for (auto& [program, where] : first_use) {
    if (ignored.count(program)) continue;
    auto found = find_in_path(program);
    if (!found) {
      ADD_FAILURE() << program << " (" << where << ") is not installed here; add its package "
                    << "to scripts/packages/*.txt, or, when it is no program, to "
                    << "scripts/provenance/not-programs.txt";
      continue;
    }
    found_at[program] = *found;
    for (auto& c : dpkg_candidates(*found)) paths.insert(c);
  }
  auto owner = packages_of(paths);
  std::ostringstream report;
  int programs = 0;
  for (auto& [program, found] : found_at) {
    ++programs;
    std::optional<std::string> pkg;
    for (auto& c : dpkg_candidates(found))
      if (!pkg && owner.count(c)) pkg = owner[c];
    if (!pkg) {
      ADD_FAILURE() << program << " (" << first_use[program] << ") at " << found.string()
                    << " belongs to no Debian package";
      continue;
    }
    EXPECT_TRUE(allowed.count(*pkg))
        << program << " (" << first_use[program] << ") comes from package " << *pkg
        << ", which neither scripts/packages/main.txt, scripts/packages/test.txt nor Debian's "
        << "minbase lists or pulls in: on a fresh machine it would be missing";
    report << program << "=" << *pkg << " ";
  }
  EXPECT_GT(programs, 60);
  RecordProperty("programs", programs);
  std::cout << programs << " programs: " << report.str() << "\n";
}

TEST(ProgramProvenance, NotProgramsListIsShortAndUsed) {
  // A name there hides a real program from the check: each must still be found by the scan.
  auto ignored = read_list(kSource / "scripts/provenance/not-programs.txt");
  EXPECT_LE(ignored.size(), 10u);
  std::set<std::string> seen;
  for (auto& u : collect_uses()) seen.insert(u.program);
  for (auto& name : ignored) EXPECT_TRUE(seen.count(name)) << name << " is listed but never seen";
}

}  // namespace
}  // namespace topolab::test
