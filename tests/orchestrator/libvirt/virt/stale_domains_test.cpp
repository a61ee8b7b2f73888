#include "orchestrator/libvirt/virt/stale_domains.hpp"

#include <gtest/gtest.h>

#include "orchestrator/libvirt/virt/domain_lifecycle.hpp"
#include "tests/orchestrator/libvirt/virt/test_domain.hpp"
#include "tests/support/child_process.hpp"

namespace topolab::virt {
namespace {

using testing::domain_exists;
using testing::owned_test_domain_xml;
using testing::test_domain_xml;

// The PID of a process that has exited (and been reaped), so it is certainly dead.
long dead_pid() {
  topolab::testing::ChildProcess child({"/bin/true"});
  child.wait(std::chrono::seconds(30));
  return child.pid();
}

class Stale : public testing::TestDriver {
 protected:
  void define(const std::string& xml, bool start) {
    auto dom = define_domain(conn(), xml);
    ASSERT_TRUE(dom.ok()) << dom.error().message;
    if (start) {
      ASSERT_TRUE(start_domain(dom->get()).ok());
    }
  }
};

TEST_F(Stale, RemovesOnlyDeadRunsTopolabDomains) {
  RunOwner dead{"run-dead", dead_pid(), 0};
  RunOwner live = current_run_owner("run-live");
  RunOwner recycled = live;  // our PID, but another process's start time: a recycled PID
  recycled.run_id = "run-recycled";
  recycled.start_time = live.start_time + 12345;

  define(owned_test_domain_xml("topolab-stale-dead-running", dead), true);
  define(owned_test_domain_xml("topolab-stale-dead-off", dead), false);
  define(owned_test_domain_xml("topolab-stale-recycled", recycled), false);
  define(owned_test_domain_xml("topolab-stale-live", live), true);
  define(test_domain_xml("topolab-stale-nometadata"), false);
  define(owned_test_domain_xml("other-stale-dead", dead), false);

  auto removed = cleanup_stale_domains(conn());
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  std::sort(removed->begin(), removed->end());
  EXPECT_EQ(*removed,
            (std::vector<std::string>{"topolab-stale-dead-off", "topolab-stale-dead-running",
                                      "topolab-stale-recycled"}));
  EXPECT_FALSE(domain_exists(conn(), "topolab-stale-dead-running"));
  EXPECT_TRUE(domain_exists(conn(), "topolab-stale-live"));
  EXPECT_TRUE(domain_exists(conn(), "topolab-stale-nometadata"));
  EXPECT_TRUE(domain_exists(conn(), "other-stale-dead")) << "outside the prefix: never touched";
  EXPECT_TRUE(domain_exists(conn(), "test"));
}

// A remote host shared by several orchestrator machines (issue 16): a dead-looking PID of
// another machine says nothing about that run; only this machine's leftovers are removed.
TEST_F(Stale, AnotherMachinesDomainsAreNeverJudged) {
  ASSERT_FALSE(this_machine_id().empty()) << "this test machine has no /etc/machine-id";
  RunOwner other{"run-other", dead_pid(), 0};
  other.machine =
      this_machine_id() == std::string(32, 'a') ? std::string(32, 'b') : std::string(32, 'a');
  RunOwner mine{"run-mine", dead_pid(), 0};
  mine.machine = this_machine_id();
  define(owned_test_domain_xml("topolab-stale-other-machine", other), false);
  define(owned_test_domain_xml("topolab-stale-this-machine", mine), false);
  auto removed = cleanup_stale_domains(conn());
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_EQ(*removed, std::vector<std::string>{"topolab-stale-this-machine"});
  EXPECT_TRUE(domain_exists(conn(), "topolab-stale-other-machine"));
}

TEST_F(Stale, RunIdNarrowsTheCleanup) {
  long pid = dead_pid();
  define(owned_test_domain_xml("topolab-stale-a", RunOwner{"run-a", pid, 0}), false);
  define(owned_test_domain_xml("topolab-stale-b", RunOwner{"run-b", pid, 0}), false);
  auto removed = cleanup_stale_domains(conn(), kDomainPrefix, "run-b");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, std::vector<std::string>{"topolab-stale-b"});
  EXPECT_TRUE(domain_exists(conn(), "topolab-stale-a"));
}

TEST(RunIdentity, MetadataRoundTripsThroughTheDomainXml) {
  RunOwner owner{"20261129T210000-abc", 4242, 987654};
  auto xml = add_run_metadata(test_domain_xml("topolab-x"), owner);
  ASSERT_TRUE(xml.ok()) << xml.error().message;
  EXPECT_NE(xml->find("xmlns:topolab=\"https://topolab.dev/xmlns/1\""), std::string::npos);
  auto back = parse_run_metadata(*xml);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->run_id, owner.run_id);
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->start_time, 987654u);
  EXPECT_FALSE(add_run_metadata(*xml, owner).ok()) << "a second run element is refused";
}

// Issue 34: a copy of a template domain names it in the same element; others name none.
TEST(RunIdentity, ACopyNamesItsTemplate) {
  RunOwner owner{"rid", 5, 6};
  auto plain = add_run_metadata(test_domain_xml("topolab-x"), owner);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->find("template="), std::string::npos) << *plain;
  EXPECT_EQ(parse_run_metadata(*plain)->template_domain, "");
  owner.template_domain = "win10";
  auto copy = add_run_metadata(test_domain_xml("topolab-x"), owner);
  ASSERT_TRUE(copy.ok());
  auto back = parse_run_metadata(*copy);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->template_domain, "win10");
}

TEST(RunIdentity, TheMachineIdTravelsWithTheOwner) {
  RunOwner owner = current_run_owner("rid");
  EXPECT_EQ(owner.machine, this_machine_id());
  auto xml = add_run_metadata("<domain><name>n</name></domain>", owner);
  ASSERT_TRUE(xml.ok());
  auto back = parse_run_metadata(*xml);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->machine, owner.machine);
  EXPECT_TRUE(owner_on_this_machine(*back));
  RunOwner legacy{"rid", 1, 0};  // metadata written before the attribute existed
  EXPECT_TRUE(owner_on_this_machine(legacy));
  auto odd = parse_run_metadata(
      "<run id='r' pid='5' start='1' machine='../../etc'/>");  // not 32 hex digits: unknown
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->machine, "");
}

TEST(RunIdentity, MetadataIsReadBackFromLibvirtsOwnXml) {
  auto c = open_connection("test:///default");
  ASSERT_TRUE(c.ok());
  RunOwner owner{"rid", 77, 5};
  auto dom = define_domain(c->get(), owned_test_domain_xml("topolab-meta", owner));
  ASSERT_TRUE(dom.ok());
  auto back = parse_run_metadata(*domain_xml(dom->get(), false));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->run_id, "rid");
  EXPECT_EQ(back->pid, 77);
  ASSERT_TRUE(destroy_and_undefine(dom->get()).ok());
}

TEST(RunIdentity, ForeignOrMalformedMetadataIsNotOurs) {
  EXPECT_FALSE(
      parse_run_metadata("<domain><metadata><x:run xmlns:x='https://other/' id='a' "
                         "pid='1'/></metadata></domain>"));
  EXPECT_FALSE(
      parse_run_metadata("<domain><metadata><topolab:run "
                         "xmlns:topolab='https://topolab.dev/xmlns/1' id='a' "
                         "pid='abc'/></metadata></domain>"));
  EXPECT_FALSE(parse_run_metadata("<domain/>"));
}

TEST(RunIdentity, NamesAndLiveness) {
  std::string id = make_run_id();
  EXPECT_EQ(id.size(), std::string("20261129T210000-").size() + 6) << id;
  EXPECT_NE(make_run_id(), make_run_id());
  EXPECT_EQ(domain_name_for("ryzen 1700x/a", "r1"), "topolab-ryzen_1700x_a-r1");
  EXPECT_TRUE(run_owner_alive(current_run_owner("x")));
  EXPECT_FALSE(run_owner_alive(RunOwner{"x", dead_pid(), 0}));
}

}  // namespace
}  // namespace topolab::virt
