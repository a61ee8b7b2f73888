// Issue 25: the one table of guest settings and the configure/configured messages.
#include "protocol/guest_settings.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "protocol/protocol.hpp"

namespace topolab::protocol {
namespace {

using nlohmann::json;

TEST(GuestSettings, TheTableHasTheIssuesRowsOnceEachWithAWayToReachThem) {
  std::set<std::string> names;
  for (const auto& r : setting_rows()) {
    EXPECT_TRUE(names.insert(std::string(r.name)).second) << r.name;
    EXPECT_EQ(r.name.rfind("os.", 0), 0u) << r.name;
    EXPECT_FALSE(r.apply.empty() || r.read_back.empty() || r.restore.empty()) << r.name;
    if (r.os == GuestOs::kLinux) {
      EXPECT_FALSE(r.linux_file.empty()) << r.name;
    } else {
      EXPECT_NE(r.windows_call, WindowsCall::kNone) << r.name;
    }
  }
  for (const char* n : {"os.timer_resolution_ms", "os.power_plan", "os.core_parking_min_cores_pct",
                        "os.smt", "os.sched_autogroup", "os.timer_migration",
                        "os.sched_migration_cost_ns", "os.sched_nr_migrate"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_EQ(setting_names(GuestOs::kWindows),
            "os.timer_resolution_ms, os.power_plan, os.core_parking_min_cores_pct");
}

TEST(GuestSettings, ValuesAreCheckedByTypeRangeAndEnum) {
  const auto& timer = *find_setting("os.timer_resolution_ms");
  EXPECT_TRUE(check_setting_value(timer, json(0.5)).ok());
  EXPECT_TRUE(check_setting_value(timer, json(15.625)).ok());
  EXPECT_TRUE(check_setting_value(timer, json(1)).ok()) << "an integer is a number";
  auto low = check_setting_value(timer, json(0.4));
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.error().message, "os.timer_resolution_ms: expected a number 0.5..15.625, got 0.4");
  EXPECT_FALSE(check_setting_value(timer, json(std::numeric_limits<double>::infinity())).ok());
  auto text = check_setting_value(timer, json("0.5"));
  ASSERT_FALSE(text.ok());
  // Quoted: a string is never shown as if it were the number (redteam 2026-12-02).
  EXPECT_NE(text.error().message.find("got \"0.5\" (not a number)"), std::string::npos)
      << text.error().message;
  auto zero = check_setting_value(*find_setting("os.timer_migration"), json("0"));
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("got \"0\" (not an integer)"), std::string::npos)
      << zero.error().message;
  const auto& smt = *find_setting("os.smt");
  EXPECT_TRUE(check_setting_value(smt, json("off")).ok());
  EXPECT_FALSE(check_setting_value(smt, json("forceoff")).ok());
  EXPECT_FALSE(check_setting_value(smt, json(true)).ok());
  const auto& autogroup = *find_setting("os.sched_autogroup");
  EXPECT_EQ(*check_setting_value(autogroup, json(1.0)), json(1)) << "1.0 is the integer 1";
  EXPECT_FALSE(check_setting_value(autogroup, json(0.5)).ok());
  EXPECT_FALSE(check_setting_value(autogroup, json(-1)).ok());
  EXPECT_FALSE(check_setting_value(autogroup, json(std::uint64_t{1} << 63)).ok());
}

TEST(GuestSettings, ReadBackMatchesWithinTheRowsTolerance) {
  const auto& timer = *find_setting("os.timer_resolution_ms");
  EXPECT_TRUE(setting_matches(timer, json(0.5), json(0.5001)));
  EXPECT_FALSE(setting_matches(timer, json(0.5), json(1.0)));
  const auto& smt = *find_setting("os.smt");
  EXPECT_TRUE(setting_matches(smt, json("off"), json("off")));
  EXPECT_FALSE(setting_matches(smt, json("off"), json("on")));
  const auto& cost = *find_setting("os.sched_migration_cost_ns");
  EXPECT_FALSE(setting_matches(cost, json(500000), json(500001))) << "integers are exact";
  EXPECT_FALSE(setting_matches(cost, json(500000), json("500000")));
}

TEST(GuestSettings, ConfigureAndConfiguredRoundTrip) {
  auto line = encode(configure_message(7, {{"os.smt", "off"}, {"os.sched_autogroup", 0}}));
  line.pop_back();
  auto msg = decode(line);
  ASSERT_TRUE(msg.ok());
  EXPECT_TRUE(is_host_request(msg->type));
  auto req = parse_configure(*msg);
  ASSERT_TRUE(req.ok()) << req.error().message;
  EXPECT_EQ(req->id, 7u);
  EXPECT_EQ(req->settings.at("os.smt"), "off");
  SettingStates states;
  states["os.smt"].value = json("off");
  states["os.sched_autogroup"].error = "EPERM";
  auto reply_line = encode(configured_message(7, states));
  reply_line.pop_back();
  auto reply = parse_configured(*decode(reply_line));
  ASSERT_TRUE(reply.ok()) << reply.error().message;
  EXPECT_EQ(*reply->settings.at("os.smt").value, "off");
  EXPECT_EQ(reply->settings.at("os.sched_autogroup").error, "EPERM");
}

TEST(GuestSettings, HelloCarriesTheSettingsAndAnOldHelloWithoutThemReadsAsNone) {
  Hello h;
  h.agent_version = "t";
  h.topology = nullptr;
  h.settings["os.timer_migration"].value = json(1);
  auto line = encode(hello_message(h));
  line.pop_back();
  auto back = parse_hello(*decode(line));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back->settings.at("os.timer_migration").value, 1);
  auto bare =
      decode(R"({"type":"hello","protocol":2,"agent_version":"a","uptime_ms":1,"kernel":"k",)"
             R"("cpu_model":"m","topology":null})");
  auto none = parse_hello(*bare);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->settings.empty());
}

TEST(GuestSettings, ARequestWithTooManySettingsIsRefused) {
  json many = json::object();
  for (int i = 0; i < 65; ++i) many["os.x" + std::to_string(i)] = 1;
  auto r = parse_setting_request(many, "'configure' message");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("65 settings, more than 64"), std::string::npos);
}

}  // namespace
}  // namespace topolab::protocol
