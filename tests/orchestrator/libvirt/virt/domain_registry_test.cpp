#include "orchestrator/libvirt/virt/domain_registry.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/process.hpp"
#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "tests/orchestrator/libvirt/virt/test_domain.hpp"

namespace topolab::virt {
namespace {

using testing::domain_exists;
using testing::test_domain_xml;

class Registry : public testing::TestDriver {
 protected:
  DomainRegistry registry_;  // a private registry: the process-wide one stays untouched
};

TEST_F(Registry, OwnedDomainIsDestroyedAndUndefinedWhenItGoesAway) {
  {
    auto dom = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-1"), registry_);
    ASSERT_TRUE(dom.ok()) << dom.error().message;
    ASSERT_TRUE(start_domain(dom->get()).ok());
    EXPECT_EQ(registry_.names(), std::vector<std::string>{"topolab-reg-1"});
  }
  EXPECT_FALSE(domain_exists(conn(), "topolab-reg-1"));
  EXPECT_TRUE(registry_.names().empty());
  EXPECT_TRUE(domain_exists(conn(), "test")) << "a domain we did not create must survive";
}

TEST_F(Registry, ErrorPathInTheMiddleOfABootStillCleansUp) {
  auto boot = [&]() -> Result<void> {
    auto dom = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-2"), registry_);
    if (!dom) return dom.error();
    TL_TRY(start_domain(dom->get()));
    TL_TRY(start_domain(dom->get()));  // fails: already running
    return {};
  };
  ASSERT_FALSE(boot().ok());
  EXPECT_FALSE(domain_exists(conn(), "topolab-reg-2"));
}

TEST_F(Registry, FailedDefineRecordsNothing) {
  auto dom = OwnedDomain::define(conn(), "<domain type='test'><name>topolab-reg-x</name></domain>",
                                 registry_);
  ASSERT_FALSE(dom.ok());
  EXPECT_TRUE(registry_.names().empty());
}

TEST_F(Registry, ReleasedDomainIsKept) {
  {
    auto dom = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-3"), registry_);
    ASSERT_TRUE(dom.ok());
    dom->release();
  }
  EXPECT_TRUE(domain_exists(conn(), "topolab-reg-3"));
  EXPECT_TRUE(registry_.names().empty());
  ASSERT_TRUE(destroy_and_undefine(lookup_domain(conn(), "topolab-reg-3")->get()).ok());
}

TEST_F(Registry, CleanupAllRemovesEveryRecordedDomainAndOnlyThose) {
  auto a = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-4a"), registry_);
  auto b = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-4b"), registry_);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(start_domain(a->get()).ok());
  auto unrelated = define_domain(conn(), test_domain_xml("topolab-reg-4c"));
  ASSERT_TRUE(unrelated.ok());

  EXPECT_TRUE(registry_.cleanup_all().empty());
  EXPECT_FALSE(domain_exists(conn(), "topolab-reg-4a"));
  EXPECT_FALSE(domain_exists(conn(), "topolab-reg-4b"));
  EXPECT_TRUE(domain_exists(conn(), "topolab-reg-4c"));
  // The owners going away afterwards must not fail or touch anything else.
  EXPECT_TRUE(a->remove().ok());
  EXPECT_TRUE(b->remove().ok());
  EXPECT_TRUE(domain_exists(conn(), "topolab-reg-4c"));
}

TEST_F(Registry, InterruptCleansUpAndRefusesLaterDefines) {
  auto a = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-5a"), registry_);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(start_domain(a->get()).ok());
  EXPECT_TRUE(registry_.interrupt_cleanup(SIGINT).empty());
  EXPECT_TRUE(registry_.interrupted());
  EXPECT_FALSE(domain_exists(conn(), "topolab-reg-5a"));

  auto late = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-5b"), registry_);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("interrupted"), std::string::npos);
  EXPECT_FALSE(domain_exists(conn(), "topolab-reg-5b"));
}

// Own guests' overlays (issue 14): the interrupt path unlinks recorded files after the domains,
// leaves files it was told to forget, and refuses new ones.
TEST_F(Registry, InterruptRemovesRecordedFilesAndRefusesNewOnes) {
  char tmpl[] = "/tmp/topolab-registry-files-XXXXXX";
  const std::filesystem::path dir = ::mkdtemp(tmpl);
  const auto a = dir / "ov-a.qcow2", b = dir / "ov-b.qcow2", gone = dir / "ov-gone.qcow2";
  for (const auto& p : {a, b}) std::ofstream(p) << "x";
  ASSERT_TRUE(registry_.add_file(a).ok());
  ASSERT_TRUE(registry_.add_file(b).ok());
  ASSERT_TRUE(registry_.add_file(gone).ok());  // never created: not a failure
  registry_.forget_file(b);
  EXPECT_EQ(registry_.files(), (std::vector<std::filesystem::path>{a, gone}));
  auto dom = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-7"), registry_);
  ASSERT_TRUE(dom.ok());

  EXPECT_TRUE(registry_.interrupt_cleanup(SIGTERM).empty());
  EXPECT_FALSE(std::filesystem::exists(a));
  EXPECT_TRUE(std::filesystem::exists(b)) << "a forgotten file is its owner's";
  EXPECT_FALSE(domain_exists(conn(), "topolab-reg-7"));
  EXPECT_TRUE(registry_.files().empty());
  auto late = registry_.add_file(dir / "ov-late.qcow2");
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("interrupted by signal 15"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// Children holding host settings (the host backend's agent): the interrupt sends each recorded
// one SIGTERM and returns only once it has ended; a forgotten one is its owner's.
TEST_F(Registry, InterruptStopsRecordedProcessesAndWaitsForThem) {
  ProcessSpec spec({"/bin/sleep", "60"});
  auto held = Process::spawn(spec), forgotten = Process::spawn(spec);
  ASSERT_TRUE(held.ok() && forgotten.ok());
  ASSERT_TRUE(registry_.add_process(held->pid()).ok());
  ASSERT_TRUE(registry_.add_process(forgotten->pid()).ok());
  registry_.forget_process(forgotten->pid());
  EXPECT_EQ(registry_.process_count(), 1u);
  EXPECT_TRUE(registry_.interrupt_cleanup(SIGINT).empty());
  auto ended = held->wait_for(std::chrono::milliseconds(0));  // ended already: no wait
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->signal, SIGTERM);
  EXPECT_FALSE(forgotten->wait_for(std::chrono::milliseconds(200)).has_value());
  EXPECT_EQ(registry_.process_count(), 0u);
  EXPECT_FALSE(registry_.add_process(forgotten->pid()).ok()) << "refused after the interrupt";
}

TEST_F(Registry, MovedOwnerCleansUpOnce) {
  std::optional<OwnedDomain> holder;
  {
    auto dom = OwnedDomain::define(conn(), test_domain_xml("topolab-reg-6"), registry_);
    ASSERT_TRUE(dom.ok());
    holder.emplace(std::move(dom).value());
  }
  EXPECT_TRUE(domain_exists(conn(), "topolab-reg-6")) << "moved-from owner must not clean up";
  holder.reset();
  EXPECT_FALSE(domain_exists(conn(), "topolab-reg-6"));
}

}  // namespace
}  // namespace topolab::virt
