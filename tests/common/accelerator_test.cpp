#include "common/accelerator.hpp"

#include <gtest/gtest.h>

namespace topolab {
namespace {

TEST(Accelerator, NamesRoundTripAndLibvirtTypes) {
  for (auto a : kAccelerators) {
    EXPECT_EQ(*parse_accelerator(to_string(a)), a);
    EXPECT_EQ(accelerator_of_domain_type(libvirt_domain_type(a)), a);
  }
  EXPECT_EQ(to_string(Accelerator::kTcg), "tcg");
  EXPECT_STREQ(libvirt_domain_type(Accelerator::kTcg), "qemu");
  EXPECT_STREQ(libvirt_domain_type(Accelerator::kKvm), "kvm");
}

TEST(Accelerator, OnlyTopolabNamesParse) {
  EXPECT_FALSE(parse_accelerator("qemu").ok());  // libvirt's word, not a topolab name
  EXPECT_FALSE(parse_accelerator("KVM").ok());
  auto e = parse_accelerator("hvf");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("expected accelerator kvm or tcg, got 'hvf'"),
            std::string::npos);
}

}  // namespace
}  // namespace topolab
