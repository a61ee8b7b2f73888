// The built-in guest's kernel command line: `quiet` dropped for a verbose console, the TCG-only
// options added once and never over a parameter the image or the layout already sets.
#include "orchestrator/libvirt/virt/guest_cmdline.hpp"

#include <gtest/gtest.h>

namespace topolab::virt {
namespace {

TEST(GuestCmdline, TcgGetsItsOptionsKvmDoesNot) {
  EXPECT_EQ(guest_cmdline("console=ttyS0 quiet panic=-1", true, true),
            "console=ttyS0 panic=-1 no_timer_check");
  EXPECT_EQ(guest_cmdline("console=ttyS0 quiet panic=-1", true, false), "console=ttyS0 panic=-1");
  EXPECT_EQ(guest_cmdline("console=ttyS0 quiet", false, false), "console=ttyS0 quiet");
  EXPECT_EQ(guest_cmdline("", false, true), "no_timer_check");
}

TEST(GuestCmdline, AParameterAlreadySetIsNotAddedAgain) {
  EXPECT_EQ(guest_cmdline("console=ttyS0 no_timer_check=1", true, true),
            "console=ttyS0 no_timer_check=1");
  EXPECT_EQ(guest_cmdline("console=ttyS0", true, true, "no_timer_check"), "console=ttyS0")
      << "the layout's kernel_cmdline_extra, appended later by the domain writer, wins";
  EXPECT_EQ(guest_cmdline("console=ttyS0 no_timer=1", true, true),
            "console=ttyS0 no_timer=1 no_timer_check")
      << "only the same parameter name counts";
}

}  // namespace
}  // namespace topolab::virt
