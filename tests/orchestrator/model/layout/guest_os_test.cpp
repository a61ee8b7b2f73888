// The one guest OS vocabulary (issue 28): names, the error for any other text, and the OS an
// edition name belongs to.
#include "orchestrator/model/layout/guest_os.hpp"

#include <gtest/gtest.h>

namespace topolab {
namespace {

TEST(GuestOs, EveryRowReadsBackByItsName) {
  for (const auto& row : kGuestOsNames) {
    auto os = parse_guest_os(row.name);
    ASSERT_TRUE(os) << row.name;
    EXPECT_EQ(*os, row.os);
    EXPECT_EQ(to_string(row.os), row.name);
  }
  EXPECT_EQ(guest_os_names(), (std::vector<std::string>{"linux", "windows"}));
}

TEST(GuestOs, OtherTextIsInputNamingTheChoices) {
  for (const char* text : {"Linux", "win", "", "freebsd"}) {
    auto os = parse_guest_os(text);
    ASSERT_FALSE(os) << text;
    EXPECT_TRUE(os.error().is(ErrorKind::input));
    EXPECT_EQ(os.error().message,
              "guest os '" + std::string(text) + "': expected linux or windows");
  }
}

TEST(GuestOs, AnEditionBelongsToTheOsItStartsWith) {
  EXPECT_EQ(guest_os_of_edition("windows-pro"), GuestOs::kWindows);
  EXPECT_EQ(guest_os_of_edition("windows10"), GuestOs::kWindows);
  EXPECT_EQ(guest_os_of_edition("linux"), GuestOs::kLinux);
  EXPECT_EQ(guest_os_of_edition("freebsd"), std::nullopt);
  EXPECT_EQ(guest_os_of_edition(""), std::nullopt);
}

}  // namespace
}  // namespace topolab
