// Several hosts in one run (issue 16), against the real agent on the bare host: every host is a
// HostBackend (each starts its own agent process), so two worker threads really run at the same
// time and write one store (this file is in the TSan stage's set: tests/tsan/CMakeLists.txt).
// FaultyHost wraps a real HostBackend to inject what a real remote host does and this machine
// cannot (a connection that is closed, a planner that refuses a configuration); the integration
// test tests/integration/remote/multihost_run_test.cpp does it with real guests and libvirt.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "orchestrator/run/experiment/host_backend.hpp"
#include "orchestrator/run/experiment/runner.hpp"
#include "tests/orchestrator/run/experiment/store_run.hpp"

namespace topolab::experiment {
namespace {

class FaultyHost : public Backend {
 public:
  std::string name() const override { return "host"; }
  Result<void> prepare(const Experiment& e, const std::vector<Configuration>& c) override {
    return inner_.prepare(e, c);
  }
  Result<std::unique_ptr<Target>> start(const Experiment& e, const Configuration& c) override {
    if (closed)
      return make_error(ErrorKind::failed, "libvirt: the connection was closed (cannot recv data)");
    return inner_.start(e, c);
  }
  nlohmann::json host_topology() const override { return inner_.host_topology(); }
  nlohmann::json versions() const override { return inner_.versions(); }
  std::string host() const override { return "local"; }
  std::string does_not_fit(const Configuration&) const override { return unfit; }
  Result<void> check_reachable() override {
    if (closed) return make_error(ErrorKind::failed, "cannot connect: Connection refused");
    return {};
  }
  bool closed = false;
  std::string unfit;

 private:
  HostBackend inner_{TOPOLAB_AGENT};
};

const std::string kDesign = two_cell_design("two-hosts");

class MultiHostRunner : public StoreRunTest {
 protected:
  void SetUp() override { e_ = parse(kDesign, "hosts.toml"); }

  Result<RunSummary> run(std::string* log = nullptr) {
    return run_with(e_, {{"hostA", &a_}, {"hostB", &b_}}, log);
  }

  std::vector<store::StoredCell> cells() {
    auto s = store::ResultStore::open_read_only(store_path());
    return *(*s)->cells((*(*s)->experiments())[0].id);
  }

  Experiment e_;
  FaultyHost a_, b_;
};

TEST_F(MultiHostRunner, EveryCellRunsOncePerHostIntoOneStoreAndResumesPerHost) {
  std::string log;
  auto s = run(&log);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells, 4);
  EXPECT_EQ(s->cells_done, 4);
  EXPECT_EQ(s->boots, 2) << "one agent start per host";
  EXPECT_EQ(s->runs_executed, 8);
  ASSERT_EQ(s->hosts.size(), 2u);
  EXPECT_EQ(s->hosts[0].host, "hostA");
  EXPECT_EQ(s->hosts[1].runs_executed, 4);
  EXPECT_EQ(s->to_json()["hosts"][1]["host"], "hostB");
  // Plain lines (no TTY) name their host.
  EXPECT_NE(log.find("hostA: cell param.sqrt.threads=1: done"), std::string::npos) << log;
  EXPECT_NE(log.find("hostB: cell param.sqrt.threads=2: done"), std::string::npos) << log;
  auto stored = cells();
  ASSERT_EQ(stored.size(), 4u);
  EXPECT_EQ(stored[0].cell.host, "hostA");
  EXPECT_EQ(stored[3].cell.host, "hostB");
  EXPECT_EQ(stored[0].cell.key, stored[2].cell.key) << "the same levels, two cells";
  auto st = store::ResultStore::open_read_only(store_path());
  auto boots = (*st)->boots(1);
  ASSERT_EQ(boots->size(), 2u);
  EXPECT_NE((*boots)[0].boot.host, (*boots)[1].boot.host);
  for (const auto& b : *boots) EXPECT_FALSE(b.finished.empty()) << "the boot's end is recorded";

  auto again = run();  // per host, nothing is missing
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->boots, 0);
  EXPECT_EQ(again->runs_executed, 0);
  EXPECT_EQ(again->runs_skipped, 8);
}

TEST_F(MultiHostRunner, ACellThatDoesNotFitAHostIsRecordedAsSuchNotFailed) {
  b_.unfit = "host CPU 7 is not online on this host (online: 0-1)";
  auto s = run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_done, 2);
  EXPECT_EQ(s->cells_failed, 0);
  EXPECT_EQ(s->cells_does_not_fit, 2);
  EXPECT_EQ(s->hosts[1].boots, 0) << "never started";
  for (const auto& c : cells()) {
    if (c.cell.host != "hostB") continue;
    EXPECT_EQ(c.status, "does-not-fit");
    EXPECT_EQ(c.error, b_.unfit);
  }
  auto again = run();  // planned again: still does-not-fit, nothing to run
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->runs_executed, 0);
  EXPECT_EQ(again->cells_does_not_fit, 2);

  a_.unfit = b_.unfit;  // fits nowhere: a design error, refused before anything runs
  auto none = run();
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no configuration fits any host; on hostA: host CPU 7"),
            std::string::npos)
      << none.error().message;
}

TEST_F(MultiHostRunner, AHostThatClosesItsConnectionFailsItsCellsAndTheOthersCarryOn) {
  b_.closed = true;
  auto s = run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->hosts[0].cells_done, 2);
  EXPECT_EQ(s->hosts[1].cells_failed, 2);
  EXPECT_EQ(s->hosts[1].unreachable, "cannot connect: Connection refused");
  for (const auto& c : cells())
    if (c.cell.host == "hostB") {
      EXPECT_EQ(c.status, "failed");
      EXPECT_NE(c.error.find("connection was closed"), std::string::npos) << c.error;
    }
  b_.closed = false;  // the listener is back: only hostB's runs are missing
  auto again = run();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->runs_executed, 4);
  EXPECT_EQ(again->hosts[0].boots, 0);
  EXPECT_EQ(again->cells_done, 4);
}

}  // namespace
}  // namespace topolab::experiment
