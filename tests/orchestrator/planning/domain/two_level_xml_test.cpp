// Golden domain XML of the two-level presets, placed on the hosts they were made for: the
// 2990WX family on a 2990WX (hand-written sysfs tree), epyc-7451 on the real 2x EPYC 7451
// capture. Goldens are committed files; a difference is a failure.
#include <gtest/gtest.h>

#include "common/file_io.hpp"
#include "host/sysfs_reader.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"
#include "orchestrator/planning/placement/placement_plan.hpp"
#include "tests/orchestrator/planning/domain/xml_test_hosts.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tr2990wx_sysfs.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

std::string two_level_xml(const Layout& l, const PlacementPlan& p) {
  DomainSpec spec;
  spec.name = "topolab-test-" + l.name;
  spec.layout = &l;
  spec.plan = &p;
  spec.accel = Accelerator::kTcg;
  spec.host_vendor = "AuthenticAMD";
  spec.boot = BootSpec{"/var/cache/topolab/image/vmlinuz", "/var/cache/topolab/image/initrd.img",
                       "console=ttyS0 quiet"};
  spec.agent_channel = ChannelSpec{};
  spec.agent_channel->socket_path = "/run/topolab/test.sock";
  spec.serial_log = "/var/log/topolab/test-console.log";
  auto xml = DomainXmlWriter{}.write(spec);
  EXPECT_TRUE(xml) << xml.error().message;
  return xml ? *xml : "";
}

TEST(TwoLevelXml, GoldenFiles) {
  testing::TempDir dir("topolab-2990wx-golden");
  auto tr = read_sysfs_topology(testing::write_tr2990wx_sysfs(dir.path()));
  ASSERT_TRUE(tr) << tr.error().message;
  const HostTopology* epyc = nullptr;
  for (const auto& h : testing::fixture_hosts())
    if (h.name == "x86_64-epyc_7451") epyc = &h.host;
  ASSERT_NE(epyc, nullptr);
  const fs::path data = fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/planning/domain/data";
  struct Case {
    const char* preset;
    const HostTopology* host;
  };
  for (auto c : {Case{"threadripper-2990wx", &*tr}, Case{"threadripper-2990wx-half", &*tr},
                 Case{"threadripper-1950x-local", &*tr}, Case{"epyc-7451", epyc}}) {
    SCOPED_TRACE(c.preset);
    auto l = *load_layout_or_preset(c.preset);
    auto plan = plan_placement(l, *c.host);
    ASSERT_TRUE(plan) << plan.error().message;
    const std::string xml = two_level_xml(l, *plan);
    const auto file = data / (std::string(c.preset) + "-tcg.xml");
    auto want = read_file(file);
    if (!want || *want != xml) {
      // What was written, for review (a golden is replaced by hand, never by the test).
      const auto actual = fs::temp_directory_path() / (std::string(c.preset) + "-tcg.xml.actual");
      (void)write_file_atomic(actual, xml);
      ADD_FAILURE() << "golden " << file << " differs or is missing; this run wrote " << actual;
    }
  }
}

}  // namespace
}  // namespace topolab
