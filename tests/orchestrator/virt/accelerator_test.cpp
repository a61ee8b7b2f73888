#include "orchestrator/virt/accelerator.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/orchestrator/virt/test_domain.hpp"

namespace topolab::virt {
namespace {

class Accel : public testing::TestDriver {
 protected:
  void SetUp() override {
    TestDriver::SetUp();
    dir_ =
        std::filesystem::temp_directory_path() / ("topolab-accel-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    cache_ = dir_ / "sub" / "accel.json";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  KvmProbe counting_probe(bool usable) {
    return [this, usable] {
      ++probes_;
      return KvmVerdict{usable, usable ? "probe guest said hello" : "no hello within 8000 ms"};
    };
  }
  std::filesystem::path dir_, cache_;
  int probes_ = 0;
};

TEST(AccelMode, ParsesTheThreeModesOnly) {
  EXPECT_EQ(*parse_accel_mode("auto"), AccelMode::kAuto);
  EXPECT_EQ(*parse_accel_mode("kvm"), AccelMode::kKvm);
  EXPECT_EQ(*parse_accel_mode("tcg"), AccelMode::kTcg);
  auto bad = parse_accel_mode("hvf");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'hvf': expected auto, kvm or tcg"), std::string::npos);
  EXPECT_EQ(to_string(AccelMode::kKvm), "kvm");
}

TEST_F(Accel, TcgIsForcedWithoutProbing) {
  auto d = choose_accelerator(conn(), AccelMode::kTcg, counting_probe(true), cache_);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->accel, Accelerator::kTcg);
  EXPECT_EQ(probes_, 0);
  EXPECT_FALSE(std::filesystem::exists(cache_));
}

TEST_F(Accel, WithoutKvmInDomainCapabilitiesAutoIsTcgAndKvmIsAnError) {
  // The test driver offers no KVM domain capabilities.
  auto d = choose_accelerator(conn(), AccelMode::kAuto, counting_probe(true), cache_);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->accel, Accelerator::kTcg);
  EXPECT_NE(d->reason.find("libvirt does not offer KVM"), std::string::npos) << d->reason;
  EXPECT_EQ(probes_, 0);
  auto k = choose_accelerator(conn(), AccelMode::kKvm, counting_probe(true), cache_);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("--accel kvm"), std::string::npos);
}

TEST_F(Accel, CacheIsKeyedAndSurvivesOtherEntries) {
  ASSERT_TRUE(write_accel_cache(cache_, "kernel=a;qemu=1", {false, "hung"}).ok());
  ASSERT_TRUE(write_accel_cache(cache_, "kernel=b;qemu=1", {true, "fine"}).ok());
  auto a = read_accel_cache(cache_, "kernel=a;qemu=1");
  auto b = read_accel_cache(cache_, "kernel=b;qemu=1");
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(a->usable);
  EXPECT_EQ(a->reason, "hung");
  EXPECT_TRUE(b->usable);
  EXPECT_FALSE(read_accel_cache(cache_, "kernel=c;qemu=1"));
}

TEST_F(Accel, CorruptCacheIsAMissNotAnError) {
  std::filesystem::create_directories(cache_.parent_path());
  std::ofstream(cache_) << "{not json";
  EXPECT_FALSE(read_accel_cache(cache_, "k"));
  ASSERT_TRUE(write_accel_cache(cache_, "k", {false, "x"}).ok());
  EXPECT_TRUE(read_accel_cache(cache_, "k"));
}

TEST_F(Accel, WrongTypesInTheCacheAreReadSafely) {
  std::filesystem::create_directories(cache_.parent_path());
  std::ofstream(cache_) << R"({"entries": {"k": {"kvm_usable": false, "reason": 5}, "j": []}})";
  auto k = read_accel_cache(cache_, "k");  // threw nlohmann::type_error (exit 70) before
  ASSERT_TRUE(k);
  EXPECT_FALSE(k->usable);
  EXPECT_EQ(k->reason, "");
  EXPECT_FALSE(read_accel_cache(cache_, "j"));
  std::ofstream(cache_) << R"({"entries": []})";
  EXPECT_FALSE(read_accel_cache(cache_, "k"));
}

TEST_F(Accel, CacheKeyNamesKernelAndVersions) {
  auto key = accel_cache_key(conn());
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(key->rfind("kernel=", 0), 0u);
  EXPECT_NE(key->find(";qemu="), std::string::npos);
  EXPECT_NE(key->find(";libvirt="), std::string::npos);
}

}  // namespace
}  // namespace topolab::virt
