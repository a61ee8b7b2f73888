#include "orchestrator/libvirt/virt/accelerator.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/orchestrator/libvirt/virt/test_domain.hpp"

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

// The retry decision (kKvmProbeAttempts): only a hung probe is run again, once.
TEST(KvmProbeRetry, AHungProbeIsRunOnceMoreAndItsReasonKept) {
  int calls = 0, probes = 0;
  auto hangs_then = [&](KvmVerdict second) {
    calls = 0;
    return [&calls, second] {
      return ++calls == 1 ? KvmVerdict{false, "printed nothing within 3000 ms", true} : second;
    };
  };
  auto v =
      probe_with_retry(hangs_then({true, "said hello after 900 ms"}), kKvmProbeAttempts, probes);
  EXPECT_TRUE(v.usable) << "a transient hang must not pin the host to TCG";
  EXPECT_EQ(probes, 2);
  EXPECT_EQ(calls, 2);
  EXPECT_NE(v.reason.find("said hello after 900 ms (probe 2; probe 1 hung: printed nothing"),
            std::string::npos)
      << v.reason;

  v = probe_with_retry(hangs_then({false, "printed nothing again", true}), kKvmProbeAttempts,
                       probes);
  EXPECT_FALSE(v.usable);
  EXPECT_EQ(probes, 2) << "at most kKvmProbeAttempts";
  EXPECT_EQ(calls, 2);
  EXPECT_NE(v.reason.find("printed nothing again (probe 2; probe 1 hung"), std::string::npos)
      << v.reason;
}

TEST(KvmProbeRetry, AYesOrAFailureLibvirtNamesIsFinalAtOnce) {
  int calls = 0, probes = 0;
  auto once = [&](KvmVerdict v) {
    calls = 0;
    return [&calls, v] {
      ++calls;
      return v;
    };
  };
  auto yes = probe_with_retry(once({true, "said hello"}), kKvmProbeAttempts, probes);
  EXPECT_TRUE(yes.usable);
  EXPECT_EQ(probes, 1);
  EXPECT_EQ(yes.reason, "said hello");
  auto failed = probe_with_retry(once({false, "failed to start: no /dev/kvm", false}),
                                 kKvmProbeAttempts, probes);
  EXPECT_FALSE(failed.usable);
  EXPECT_EQ(probes, 1) << "a start failure is not a hang: not retried";
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(failed.reason, "failed to start: no /dev/kvm");
  auto single = probe_with_retry(once({false, "silent", true}), 1, probes);
  EXPECT_FALSE(single.usable);
  EXPECT_EQ(probes, 1) << "attempts=1: no retry";
  EXPECT_EQ(kKvmProbeAttempts, 2);
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
