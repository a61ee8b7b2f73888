// Issue 18, item 1: every report format says where its numbers came from (host, accelerator,
// CPU model given to the guest, versions, date; per cell intended vs seen topology, mismatches,
// boot retries), and a TCG store carries the emulation warning in all four formats while a
// KVM-marked store carries it in none. Stores are built from data/context_store.sql (schema 3)
// and data/two_cells_store.sql (schema 2, host backend); golden files pin the TCG output.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_io.hpp"
#include "orchestrator/results/report/reporter.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "tests/orchestrator/results/report/fixture_store_test.hpp"
#include "tests/support/golden.hpp"

namespace topolab::report {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/results/report/data";
const char* const kFormats[] = {"table", "csv", "json", "html"};

class ContextStore : public FixtureStoreTest {
 protected:
  void build(const std::string& sql_file, const std::string& tamper = "") {
    build_from(kData / sql_file, tamper);
  }
  static std::string render(const ReportData& d, const std::string& format) {
    std::ostringstream out;
    auto r = make_reporter(format, out);
    if (!r) return "error: " + r.error().message;
    (*r)->report(d);
    return out.str();
  }
};

// data/golden_context_tcg.<ext> (tests/support/golden.hpp: scripts/update-goldens.sh).
void expect_golden(const std::string& got, const std::string& ext) {
  ::topolab::testing::expect_golden_file(kData / ("golden_context_tcg." + ext), got);
}

TEST_F(ContextStore, TcgStoreMatchesGoldenInEveryFormat) {
  build("context_store.sql");
  const auto d = load();
  expect_golden(render(d, "table"), "txt");
  expect_golden(render(d, "csv"), "csv");
  expect_golden(render(d, "json"), "json");
  expect_golden(render(d, "html"), "html");
}

TEST_F(ContextStore, ContextIsReadFromTheStore) {
  build("context_store.sql");
  const auto d = load();
  ASSERT_TRUE(d.context.has_value());
  const auto& x = d.context->experiment;
  EXPECT_EQ(x.backend, "guest");
  EXPECT_EQ(x.host_cpu_model, "AMD EPYC 7451 24-Core Processor");
  EXPECT_EQ(x.host_topology, "1 package, 1 die, 1 L3, 2 cores, 2 CPUs");
  EXPECT_EQ(x.connect_uri, "qemu:///system");
  EXPECT_EQ(x.accelerator, "tcg");
  EXPECT_TRUE(x.emulated);
  EXPECT_EQ(x.guest_cpu_model, "EPYC-Rome (custom)");
  EXPECT_EQ(x.topolab_version, "0.1.0");
  EXPECT_EQ(x.agent_version, "0.1.0");
  EXPECT_EQ(x.kernel, "Linux 6.1.0-guest");
  EXPECT_EQ(x.date, "2026-11-30T14:00:00Z .. 2026-11-30T14:05:00Z");
  const auto& flat = cell_context(*d.context, "expose=flat");
  EXPECT_EQ(flat.boot_retries, "1");
  EXPECT_EQ(flat.mismatches, "");
  EXPECT_EQ(flat.intended, flat.seen);
  const auto& sockets = cell_context(*d.context, "expose=sockets");
  EXPECT_EQ(sockets.intended, "2 packages, 2 dies, 2 L3, 2 cores, 2 CPUs");
  EXPECT_EQ(sockets.seen, "1 package, 1 die, 1 L3, 2 cores, 2 CPUs");
  EXPECT_EQ(sockets.mismatches, "packages: intended 2, seen 1");
  EXPECT_EQ(sockets.boot_retries, "0");
}

// Issue 30: a cell says which machine and Slurm job ran it (boot context.machine), in every
// format; a boot recorded before that says "unknown".
TEST_F(ContextStore, EachCellSaysTheMachineAndSlurmJobThatRanIt) {
  build("context_store.sql",
        "UPDATE boots SET context = json_set(context, '$.machine', json('{\"hostname\":\"n07\","
        "\"slurm\":{\"job_id\":\"41\",\"array_job_id\":\"40\",\"array_task_id\":\"2\","
        "\"node\":\"n07\"}}')) WHERE id = 2;");
  const auto d = load();
  ASSERT_TRUE(d.context.has_value());
  EXPECT_EQ(cell_context(*d.context, "expose=flat").ran_on, "unknown");
  const std::string where = "n07, slurm job 41 (array 40_2)";
  EXPECT_EQ(cell_context(*d.context, "expose=sockets").ran_on, where);
  for (const char* f : kFormats) EXPECT_NE(render(d, f).find(where), std::string::npos) << f;
  const auto json = nlohmann::json::parse(render(d, "json"));
  bool found = false;
  for (const auto& r : json["rows"])
    if (r["cell_context"].value("ran_on", "") == where) found = true;
  EXPECT_TRUE(found) << json["rows"].dump();
}

// A level verified against the CPU model's view (boot context.adjusted_levels, issue 33) is
// marked on the cell's intended topology in every format; a hostile level name is not shown.
TEST_F(ContextStore, ModelAdjustedLevelsAreMarkedOnTheIntendedTopology) {
  build("context_store.sql",
        R"(UPDATE boots SET context = json_set(context, '$.adjusted_levels',
             json('[{"level":"l3_domains","why":"w"},{"level":"<b>x</b>","why":"w"}]'));)");
  const auto d = load();
  ASSERT_TRUE(d.context.has_value());
  const auto& sockets = cell_context(*d.context, "expose=sockets");
  EXPECT_EQ(sockets.intended, "2 packages, 2 dies, 2 L3, 2 cores, 2 CPUs [model view: l3_domains]");
  for (const char* f : kFormats) {
    const std::string out = render(d, f);
    EXPECT_NE(out.find("[model view: l3_domains]"), std::string::npos) << f;
    EXPECT_EQ(out.find("<b>x"), std::string::npos) << f;
  }
}

TEST_F(ContextStore, StoresWithoutAdjustedLevelsAreUnmarked) {
  build("context_store.sql");
  const auto d = load();
  for (const char* f : kFormats) {
    EXPECT_EQ(render(d, f).find("[model view:"), std::string::npos) << f;
  }
}

// Redteam wave 3: a store written before passwords in URIs were refused (or crafted) shows
// none in any format.
TEST_F(ContextStore, APasswordInAStoredUriIsShownNowhere) {
  build("context_store.sql",
        "UPDATE experiments SET context = json_set(context, '$.connect_uri', "
        "'qemu+tcp://u:s3cret@box/system');");
  const auto d = load();
  ASSERT_TRUE(d.context.has_value());
  EXPECT_EQ(d.context->experiment.connect_uri, "qemu+tcp://u:***@box/system");
  for (const char* f : kFormats) {
    const std::string out = render(d, f);
    EXPECT_EQ(out.find("s3cret"), std::string::npos) << f;
    EXPECT_NE(out.find("u:***@box"), std::string::npos) << f;
  }
}

TEST_F(ContextStore, TcgWarningInAllFourFormats) {
  build("context_store.sql");
  const auto d = load();
  for (const char* f : kFormats) EXPECT_NE(render(d, f).find(kTcgWarning), std::string::npos) << f;
}

TEST_F(ContextStore, KvmStoreHasNoWarningInAnyFormat) {
  build("context_store.sql", R"(UPDATE boots SET context=replace(context, '"tcg"', '"kvm"'),
                                 versions=replace(versions, '"kvm":false', '"kvm":true');)");
  const auto d = load();
  EXPECT_EQ(d.context->experiment.accelerator, "kvm");
  for (const char* f : kFormats) {
    const std::string text = render(d, f);
    EXPECT_EQ(text.find(kTcgWarning), std::string::npos) << f;
    EXPECT_EQ(text.find("emulated ("), std::string::npos) << f;
    EXPECT_NE(text.find("kvm"), std::string::npos) << f << ": the accelerator is still said";
  }
  auto json = nlohmann::json::parse(render(d, "json"));
  EXPECT_EQ(json["context"]["emulated"], false);
  EXPECT_TRUE(json["context"]["warning"].is_null());
}

// A schema-2 host-backend store (before issue 18): no context columns, yet the report says what
// it can (backend host: nothing emulated) and "unknown" for the rest.
TEST_F(ContextStore, SchemaTwoHostStoreReportsWhatItKnows) {
  build("two_cells_store.sql");
  const auto d = load();
  ASSERT_TRUE(d.context.has_value());
  const auto& x = d.context->experiment;
  EXPECT_EQ(x.backend, "host");
  EXPECT_EQ(x.accelerator, "host");
  EXPECT_FALSE(x.emulated);
  EXPECT_EQ(x.connect_uri, "none (host backend)");
  EXPECT_EQ(x.host_cpu_model, "AMD EPYC");
  EXPECT_EQ(x.kernel, "Linux 6.18.44-fc-v857");
  const auto& c = cell_context(*d.context, "param.sqrt.threads=1");
  EXPECT_EQ(c.intended, "none (no guest)");
  EXPECT_EQ(c.boot_retries, "0");
  for (const char* f : kFormats) EXPECT_EQ(render(d, f).find(kTcgWarning), std::string::npos);
}

// Stored context of the wrong kinds (an older or hostile build) reads as "unknown" or
// "unreadable: ...", never thrown on; the accelerator falls back to versions.kvm.
TEST_F(ContextStore, HostileContextReadsAsUnknownNotThrown) {
  build("context_store.sql", R"(
    UPDATE experiments SET context='[1,2]', host_topology='{"cpus":5}', versions='"x"';
    UPDATE boots SET context='{"accelerator":5,"cpu_model":"EPYC"}', intended_topology='7',
                     timings='{"boot_attempts":"two"}', versions='{"kvm":false,"agent":[1]}';
    UPDATE cells SET mismatches='{"level":1}' WHERE id=2;)");
  const auto d = load();
  const auto& x = d.context->experiment;
  EXPECT_EQ(x.connect_uri, "unknown");
  EXPECT_EQ(x.host_cpu_model, "unknown");
  EXPECT_EQ(x.host_topology.rfind("unreadable: ", 0), 0u) << x.host_topology;
  EXPECT_EQ(x.accelerator, "tcg") << "from versions.kvm";
  EXPECT_TRUE(x.emulated);
  EXPECT_EQ(x.guest_cpu_model, "unknown");
  EXPECT_EQ(x.agent_version, "unknown");
  EXPECT_EQ(x.topolab_version, "unknown");
  const auto& c = cell_context(*d.context, "expose=sockets");
  EXPECT_EQ(c.intended.rfind("unreadable: ", 0), 0u) << c.intended;
  EXPECT_EQ(c.boot_retries, "unknown");
  EXPECT_EQ(c.mismatches, "unreadable");
  for (const char* f : kFormats) EXPECT_FALSE(render(d, f).empty()) << f;
  EXPECT_FALSE(nlohmann::json::parse(render(d, "json"), nullptr, false).is_discarded());
}

// Context text from the store is escaped per format like every other stored text.
TEST_F(ContextStore, StoredContextTextIsEscapedPerFormat) {
  build("context_store.sql", R"(
    UPDATE experiments SET context='{"connect_uri":"=HYPERLINK(\"x\")<b>\u001b[2J"}';)");
  const auto d = load();
  const std::string csv = render(d, "csv"), table = render(d, "table"), html = render(d, "html");
  EXPECT_NE(csv.find("'=HYPERLINK"), std::string::npos) << csv;
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
  EXPECT_EQ(html.find("<b>\\x1b"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;"), std::string::npos);
}

// A comparison of a hostile store (issue 12's, rows of every wrong kind) with a sound one is
// rendered in every format: nothing thrown, JSON valid, the invalid runs said as a warning.
TEST_F(ContextStore, HostileStoreIsComparedNotThrownOn) {
  build("context_store.sql");
  const auto sound = load();
  fs::remove(db_);
  build_from(fs::path(TOPOLAB_TESTS_DIR) / "badinput/cases/guest_data/hostile_store.sql");
  const auto hostile = load();
  const auto d = compare_reports(sound, hostile, "sound", "hostile");
  EXPECT_EQ(d.emulated_sides(), "A");
  bool said = false;
  for (const auto& w : d.warnings) said = said || w.find("B: 7 stored run(s)") == 0;
  EXPECT_TRUE(said);
  for (const char* f : kFormats) {
    std::ostringstream out;
    EXPECT_TRUE((*make_reporter(f, out))->compare(d).ok());
    EXPECT_NE(out.str().find(kTcgWarning), std::string::npos) << f << ": side A is TCG";
    if (std::string(f) == "json") {
      EXPECT_FALSE(nlohmann::json::parse(out.str(), nullptr, false).is_discarded());
    }
    if (std::string(f) != "html") {
      EXPECT_EQ(out.str().find('\x1b'), std::string::npos) << f;
    }
  }
}

}  // namespace
}  // namespace topolab::report
