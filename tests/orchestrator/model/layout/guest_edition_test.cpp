// A guest OS edition, read once into a type (issue 28): the layout's [guest] os takes any
// well-formed name (an unknown one is the doctor's finding), --guest-os only a known one.
#include "orchestrator/model/layout/guest_edition.hpp"

#include <gtest/gtest.h>

#include "orchestrator/model/layout/layout.hpp"

namespace topolab {
namespace {

TEST(GuestEdition, KnownEditionsCarryTheirSocketLimit) {
  const std::pair<const char*, int> cases[] = {{"Windows-Home", 1},
                                               {"windows-pro", 2},
                                               {"windows-workstation", 4},
                                               {"windows-pro-workstations", 4},
                                               {"windows-server-2022", 64},
                                               {"linux", 0},
                                               {"linux-6.1", 0}};
  for (const auto& [text, limit] : cases) {
    auto g = parse_guest_edition(text);
    ASSERT_TRUE(g.ok()) << text;
    EXPECT_TRUE(g->known) << text;
    EXPECT_EQ(g->socket_limit, limit) << text;
    EXPECT_EQ(g->written, text);
  }
  EXPECT_EQ(parse_guest_edition("Windows-Pro")->name, "windows-pro");
  EXPECT_EQ(parse_guest_edition("windows-pro")->os, GuestOs::kWindows);
  EXPECT_EQ(parse_guest_edition("linux")->os, GuestOs::kLinux);
}

// Before (redteam): prefixes matched ("windows-professional" was Pro). --guest-os takes exact
// names with an optional version only.
TEST(GuestEdition, OptionTakesOnlyExactNamesWithAnOptionalVersion) {
  for (const char* bad : {"windows-xp", "windows", "windows-professional", "linuxx", "linux-",
                          "windows-pro-", "windows-home-$(x)", ""}) {
    auto r = parse_guest_edition(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.error().is(ErrorKind::input));
    EXPECT_NE(r.error().message.find("windows-home, windows-pro"), std::string::npos)
        << r.error().message;
  }
}

// A layout may name an edition the table lacks: kept, marked unknown; an unknown edition of an
// OS with editions is read as its strictest (Windows Home: 1 socket), of any other OS as no
// limit. Text that is no name at all is refused.
TEST(GuestEdition, LayoutNamesAnyWellFormedEdition) {
  auto win = read_guest_edition("windows-10").value();
  EXPECT_FALSE(win.known);
  EXPECT_EQ(win.os, GuestOs::kWindows);
  EXPECT_EQ(win.socket_limit, 1);
  auto bsd = read_guest_edition("FreeBSD").value();
  EXPECT_FALSE(bsd.known);
  EXPECT_EQ(bsd.os, std::nullopt);
  EXPECT_EQ(bsd.socket_limit, 0);
  EXPECT_EQ(bsd.name, "freebsd");
  for (const char* bad : {"", "windows home", "win\x1b[2J", "windows-$(x)",
                          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    EXPECT_FALSE(read_guest_edition(bad).ok()) << bad;
}

// The layout field holds the type; its JSON (the resume identity) is the name as written, and
// an empty override clears it.
TEST(GuestEdition, LayoutFieldIsTypedAndPrintsAsWritten) {
  Layout l;
  ASSERT_TRUE(set_layout_field(l, "guest.os", "Windows-Pro").ok());
  ASSERT_TRUE(l.guest_os);
  EXPECT_EQ(l.guest_os->socket_limit, 2);
  EXPECT_EQ(layout_to_json(l)["guest.os"], "Windows-Pro");
  ASSERT_TRUE(set_layout_field(l, "guest.os", "").ok());
  EXPECT_FALSE(l.guest_os);
  auto bad = set_layout_field(l, "guest.os", "windows pro");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("guest.os"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace topolab
