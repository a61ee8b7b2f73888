// The real `topolab hook` binary, dry-run on a fixture tree (which it must not change).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/exit_code.hpp"
#include "orchestrator/libvirt/virt/run_identity.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using topolab::ExitCode;
using topolab::to_int;
using topolab::testing::run_cli;
namespace fs = std::filesystem;

const std::string kRoot =
    std::string(TOPOLAB_TESTS_DIR) + "/orchestrator/hostprep/isolation/data/cgroup2-host";

TEST(HookCli, DryRunJsonPrintsThePlan) {
  auto run =
      run_cli({"hook", "win10", "prepare", "-", "-", "--root", kRoot, "--dry-run", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.out;
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << run.out;
  EXPECT_EQ(j["action"], "apply");
  EXPECT_EQ(j["plan"]["guest_cpus"], "4-7");
  EXPECT_EQ(j["plan"]["actions"].size(), 10u);
  EXPECT_FALSE(j.contains("report"));
}

TEST(HookCli, TextDryRunAndOtherDomainsAndOperations) {
  auto text = run_cli({"hook", "win10", "prepare", "--root", kRoot, "--dry-run"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("irq-affinity  /proc/irq/24/smp_affinity_list: '0-7' -> '0-3'"),
            std::string::npos)
      << text.out;
  auto other = run_cli({"hook", "someone-else", "prepare", "--root", kRoot, "--dry-run"});
  EXPECT_EQ(other.exit_code, 0);
  EXPECT_NE(other.out.find("none (dry run): no layout registered"), std::string::npos) << other.out;
  auto started = run_cli({"hook", "win10", "started", "--root", kRoot});
  EXPECT_EQ(started.exit_code, 0);
  EXPECT_NE(started.out.find("needs nothing"), std::string::npos) << started.out;
}

// Issue 34: release --dry-run shows what release writes back (reverse order, recorded value
// last), and -q keeps a release that worked silent.
TEST(HookCli, ReleaseDryRunShowsTheRestorePlanAndQuietReleaseIsSilent) {
  topolab::testing::TempDir dir("topolab-hook-release");
  const auto root = dir.path() / "root";
  std::filesystem::copy(kRoot, root, std::filesystem::copy_options::recursive);
  auto prepare = run_cli({"hook", "win10", "prepare", "--root", root.string()});
  ASSERT_EQ(prepare.exit_code, 0) << prepare.out << prepare.err;
  auto dry = run_cli({"hook", "win10", "release", "--root", root.string(), "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("restore plan for win10"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("/proc/irq/24/smp_affinity_list: '0-3' -> '0-7'"), std::string::npos)
      << dry.out;
  EXPECT_EQ(dry.out.find("isolation plan"), std::string::npos) << dry.out;
  auto dry_json =
      run_cli({"hook", "win10", "release", "--root", root.string(), "--dry-run", "--json"});
  auto j = nlohmann::json::parse(dry_json.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << dry_json.out;
  ASSERT_FALSE(j["restoring"].empty());
  EXPECT_EQ(j["restoring"].size(), j["plan"]["actions"].size());
  auto quiet = run_cli({"-q", "hook", "win10", "release", "--root", root.string()});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "");
  std::ifstream irq(root / "proc/irq/24/smp_affinity_list");
  std::string value;
  irq >> value;
  EXPECT_EQ(value, "0-7");  // released for real
}

// Issue 34: the snippet from a build-tree binary needs --force (the hook would break with the
// build folder), and --uninstall-snippet removes exactly what --install-snippet wrote.
TEST(HookCli, SnippetFromABuildTreeNeedsForceAndUninstallRemovesOnlyOurs) {
  auto refused = run_cli({"hook", "--install-snippet"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("refusing --install-snippet from a build tree"), std::string::npos)
      << refused.err;
  EXPECT_EQ(refused.out, "");
  auto forced = run_cli({"hook", "--install-snippet", "--force"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  ASSERT_NE(forced.out.find(" hook \"$1\" \"$2\""), std::string::npos) << forced.out;

  topolab::testing::TempDir dir("topolab-hook-snippet");
  const auto hooks = dir.path() / "etc/libvirt/hooks";
  std::filesystem::create_directories(hooks);
  const std::string root = dir.path().string();
  EXPECT_NE(run_cli({"hook", "--uninstall-snippet", "--root", root}).out.find("nothing to remove"),
            std::string::npos);
  std::ofstream(hooks / "qemu") << forced.out;
  auto dry = run_cli({"hook", "--uninstall-snippet", "--root", root, "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would remove (dry run)"), std::string::npos) << dry.out;
  EXPECT_TRUE(std::filesystem::exists(hooks / "qemu"));
  auto removed = run_cli({"hook", "--uninstall-snippet", "--root", root, "--json"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  auto j = nlohmann::json::parse(removed.out, nullptr, false);
  EXPECT_EQ(j["removed"], true) << removed.out;
  EXPECT_EQ(j["binary"], std::string(TOPOLAB_CLI));
  EXPECT_FALSE(std::filesystem::exists(hooks / "qemu"));

  // Merged with another tool's lines: the user's file, left alone.
  std::ofstream(hooks / "qemu") << forced.out << "# vfio-isolate lines below\n";
  auto merged = run_cli({"hook", "--uninstall-snippet", "--root", root});
  EXPECT_EQ(merged.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(merged.err.find("edited or merged since topolab wrote it"), std::string::npos)
      << merged.err;
  EXPECT_TRUE(std::filesystem::exists(hooks / "qemu"));
}

// Issue 34: an experiment's copy of win10 (`run --domain win10`) is named topolab-LAYOUT-RUNID
// and has no layout of its own; libvirt gives the hook its XML on stdin, whose <topolab:run>
// names the template (written by the session's add_run_metadata, as here). The copy is isolated
// like win10 (the same CPUs) while it runs, and release restores everything.
const std::string kCopy = "topolab-win10-20261202T063900-3fa2c1";

std::string copy_xml(const std::string& name, const std::string& template_domain) {
  topolab::virt::RunOwner owner{"20261202T063900-3fa2c1", 4242, 1};
  owner.template_domain = template_domain;
  auto xml = topolab::virt::add_run_metadata("<domain type='qemu'><name>" + name +
                                                 "</name><memory unit='KiB'>262144</memory>"
                                                 "<vcpu>4</vcpu></domain>",
                                             owner);
  EXPECT_TRUE(xml) << xml.error().message;
  return xml ? *xml : std::string();
}

topolab::testing::CliRun hook_with_xml(const std::vector<std::string>& args,
                                       const fs::path& xml_file) {
  topolab::testing::ChildOptions o;
  o.stdin_file = xml_file;
  std::vector<std::string> argv = args;
  argv.insert(argv.end(), {"--domain-xml", "-"});
  return run_cli(argv, o);
}

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string value;
  in >> value;
  return value;
}

TEST(HookCli, ACopyOfARegisteredTemplateIsIsolatedLikeItAndReleased) {
  topolab::testing::TempDir dir("topolab-hook-copy");
  const auto root = dir.path() / "root";
  fs::copy(kRoot, root, fs::copy_options::recursive);
  const auto xml = dir.path() / "copy.xml";
  std::ofstream(xml) << copy_xml(kCopy, "win10");

  auto dry = hook_with_xml(
      {"hook", kCopy, "prepare", "begin", "-", "--root", root.string(), "--dry-run", "--json"},
      xml);
  ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  auto j = nlohmann::json::parse(dry.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << dry.out;
  auto template_plan =
      run_cli({"hook", "win10", "prepare", "--root", root.string(), "--dry-run", "--json"});
  auto t = nlohmann::json::parse(template_plan.out, nullptr, false);
  ASSERT_TRUE(t.is_object()) << template_plan.out;
  EXPECT_EQ(j["action"], "apply");
  EXPECT_EQ(j["template"], "win10");
  EXPECT_EQ(j["plan"]["guest_cpus"], "4-7");
  EXPECT_EQ(j["plan"]["actions"], t["plan"]["actions"]) << "the copy is isolated like win10";
  EXPECT_NE(j["reason"].get<std::string>().find("(a copy of win10)"), std::string::npos)
      << j["reason"];

  auto prepare =
      hook_with_xml({"hook", kCopy, "prepare", "begin", "-", "--root", root.string()}, xml);
  ASSERT_EQ(prepare.exit_code, 0) << prepare.out << prepare.err;
  EXPECT_EQ(first_line(root / "proc/irq/24/smp_affinity_list"), "0-3") << "isolated";
  EXPECT_TRUE(fs::exists(root / "var/lib/topolab/isolation" / (kCopy + ".json")))
      << "the record is the copy's";
  EXPECT_FALSE(fs::exists(root / "var/lib/topolab/isolation/win10.json"));
  // start after prepare: nothing more; release (libvirt's XML on stdin too) restores.
  auto start = hook_with_xml({"hook", kCopy, "start", "begin", "-", "--root", root.string()}, xml);
  EXPECT_EQ(start.exit_code, 0) << start.err;
  EXPECT_NE(start.out.find("already isolated at prepare"), std::string::npos) << start.out;
  auto release =
      hook_with_xml({"hook", kCopy, "release", "end", "-", "--root", root.string()}, xml);
  ASSERT_EQ(release.exit_code, 0) << release.out << release.err;
  EXPECT_EQ(first_line(root / "proc/irq/24/smp_affinity_list"), "0-7") << "released";
  EXPECT_FALSE(fs::exists(root / "var/lib/topolab/isolation" / (kCopy + ".json")));
}

// The XML is untrusted: a copy whose XML does not check out is refused (the snippet then fails
// closed); a copy of an unregistered template, a topolab domain that is no copy, and any other
// domain (whose stdin is never read) are left alone.
TEST(HookCli, WhatTheHookReadsOfACopysXmlIsChecked) {
  topolab::testing::TempDir dir("topolab-hook-copy-bad");
  const auto xml = dir.path() / "copy.xml";
  auto prepare = [&](const std::string& domain, const std::string& text) {
    std::ofstream(xml, std::ios::trunc) << text;
    return hook_with_xml({"hook", domain, "prepare", "--root", kRoot, "--dry-run"}, xml);
  };
  auto other_name = prepare(kCopy, copy_xml("topolab-win10-other", "win10"));
  EXPECT_EQ(other_name.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(other_name.err.find("domain XML names 'topolab-win10-other', expected '" + kCopy),
            std::string::npos)
      << other_name.err;
  auto bad_template = prepare(kCopy, copy_xml(kCopy, "../win10"));
  EXPECT_EQ(bad_template.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(bad_template.err.find("<topolab:run template>"), std::string::npos) << bad_template.err;
  std::string deep = "<domain><name>" + kCopy + "</name>";
  for (int i = 0; i < 100; ++i) deep += "<a>";
  for (int i = 0; i < 100; ++i) deep += "</a>";
  auto too_deep = prepare(kCopy, deep + "</domain>");
  EXPECT_EQ(too_deep.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(too_deep.err.find("nested deeper than 64"), std::string::npos) << too_deep.err;
  auto huge = prepare(kCopy, "<domain><name>" + kCopy + "</name><!--" +
                                 std::string(std::size_t{5} << 20, 'x') + "--></domain>");
  EXPECT_EQ(huge.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(huge.err.find("larger than 4194304 bytes"), std::string::npos) << huge.err;
  auto broken = prepare(kCopy, "<domain><name>");
  EXPECT_EQ(broken.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(broken.err.find("domain XML: offset"), std::string::npos) << broken.err;

  auto unregistered = prepare(kCopy, copy_xml(kCopy, "win11"));
  EXPECT_EQ(unregistered.exit_code, 0) << unregistered.err;
  EXPECT_NE(unregistered.out.find("nor for win11, the template it is a copy of"), std::string::npos)
      << unregistered.out;
  auto no_copy = prepare(kCopy, copy_xml(kCopy, ""));
  EXPECT_EQ(no_copy.exit_code, 0) << no_copy.err;
  EXPECT_NE(no_copy.out.find("none (dry run): no layout registered for " + kCopy),
            std::string::npos)
      << no_copy.out;
  auto someone_else = prepare("someone-else", "not XML at all");
  EXPECT_EQ(someone_else.exit_code, 0) << someone_else.err;
  EXPECT_NE(someone_else.out.find("no layout registered"), std::string::npos) << someone_else.out;
}

// The snippet passes libvirt's stdin (the domain XML) on; one written before that (stdin from
// /dev/null) is still recognised as topolab's by --uninstall-snippet.
TEST(HookCli, TheSnippetPassesTheDomainXmlAndTheOldOneStillUninstalls) {
  auto forced = run_cli({"hook", "--install-snippet", "--force"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.out.find(" hook \"$1\" \"$2\" --domain-xml - \\\n"), std::string::npos)
      << forced.out;
  EXPECT_EQ(forced.out.find("</dev/null"), std::string::npos) << forced.out;
  topolab::testing::TempDir dir("topolab-hook-old-snippet");
  const auto hooks = dir.path() / "etc/libvirt/hooks";
  fs::create_directories(hooks);
  std::string old = forced.out;
  old.replace(old.find("--domain-xml -"), std::string("--domain-xml -").size(), "</dev/null");
  old.replace(old.find("--domain-xml -"), std::string("--domain-xml -").size(), "</dev/null");
  std::ofstream(hooks / "qemu") << old;
  auto removed = run_cli({"hook", "--uninstall-snippet", "--root", dir.path().string()});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_FALSE(fs::exists(hooks / "qemu"));
}

TEST(HookCli, MissingArgumentsAndBadNamesFail) {
  EXPECT_EQ(run_cli({"hook"}).exit_code, 2);
  EXPECT_EQ(run_cli({"hook", "../x", "prepare", "--root", kRoot, "--dry-run"}).exit_code,
            to_int(ExitCode::data_error));
}

}  // namespace
