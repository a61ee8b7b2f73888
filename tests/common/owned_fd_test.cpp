#include "common/owned_fd.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>

namespace topolab {
namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

int open_null() { return ::open("/dev/null", O_RDONLY | O_CLOEXEC); }

TEST(OwnedFd, ClosesWhenItGoesOutOfScope) {
  int raw = -1;
  {
    OwnedFd fd(open_null());
    raw = fd.get();
    ASSERT_TRUE(fd);
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));
}

TEST(OwnedFd, MoveTransfersOwnershipAndAssignmentClosesTheOldOne) {
  OwnedFd a(open_null());
  const int first = a.get();
  OwnedFd b(std::move(a));
  EXPECT_FALSE(a.valid());
  EXPECT_EQ(b.get(), first);
  OwnedFd c(open_null());
  const int second = c.get();
  c = std::move(b);  // closes `second`, holds `first`
  EXPECT_FALSE(is_open(second));
  EXPECT_EQ(c.get(), first);
  EXPECT_TRUE(is_open(first));
}

TEST(OwnedFd, ReleaseGivesUpAndCloseReports) {
  OwnedFd a(open_null());
  const int raw = a.release();
  EXPECT_FALSE(a.valid());
  EXPECT_TRUE(is_open(raw));  // not closed by a's destructor
  OwnedFd b(raw);
  EXPECT_EQ(b.close(), 0);
  EXPECT_FALSE(is_open(raw));
  EXPECT_EQ(b.close(), 0);  // closing an empty one is a no-op
}

}  // namespace
}  // namespace topolab
