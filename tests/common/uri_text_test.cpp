// redacted_uri (common/uri_text.hpp): how a stored or refused URI is shown.
#include "common/uri_text.hpp"

#include <gtest/gtest.h>

namespace topolab {
namespace {

TEST(RedactedUri, HidesOnlyThePassword) {
  EXPECT_EQ(redacted_uri("qemu+tcp://u:secret@h:1/system"), "qemu+tcp://u:***@h:1/system");
  EXPECT_EQ(redacted_uri("qemu+ssh://u:a@b@h/system"), "qemu+ssh://u:***@h/system")
      << "the last '@' ends the user part, as in libvirt's parser";
  EXPECT_EQ(redacted_uri("qemu+tcp://[::1]:16509/system"), "qemu+tcp://[::1]:16509/system");
  EXPECT_EQ(redacted_uri("qemu+ssh://root@box:22/system"), "qemu+ssh://root@box:22/system");
  EXPECT_EQ(redacted_uri("qemu:///system?x=a:b@c"), "qemu:///system?x=a:b@c");
  EXPECT_EQ(redacted_uri("not a uri u:p@h"), "not a uri u:p@h");
  EXPECT_EQ(redacted_uri(""), "");
}

}  // namespace
}  // namespace topolab
