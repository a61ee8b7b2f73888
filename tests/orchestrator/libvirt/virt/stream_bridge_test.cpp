// StreamBridge (issue 16) with a real libvirt stream: a volume download
// (virStorageVolDownload) from a throw-away transient directory pool on qemu:///system is the
// one stream libvirt opens without a running guest (the test driver has no channels, consoles
// or downloads). The guest channel and console cases run against real guests in
// tests/integration/remote/remote_streams_test.cpp.
#include "orchestrator/libvirt/virt/stream_bridge.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "orchestrator/guest/remote/storage_handles.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab::virt {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Reads `fd` until end-of-file or `bound` passes.
std::string read_to_eof(int fd, std::chrono::milliseconds bound) {
  std::string out;
  const auto deadline = Clock::now() + bound;
  char buf[65536];
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ADD_FAILURE() << "no end-of-file within the bound";
  return out;
}

class StreamBridgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = open_connection("qemu:///system");
    ASSERT_TRUE(c.ok()) << c.error().message;
    conn_ = std::move(*c);
    char tmpl[] = "/tmp/topolab-bridge-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    const std::string name = "topolab-bridge-" + std::to_string(getpid());
    const std::string xml = "<pool type='dir'><name>" + name + "</name><target><path>" +
                            dir_.string() + "</path></target></pool>";
    pool_.reset(virStoragePoolCreateXML(conn_.get(), xml.c_str(), 0));  // transient
    ASSERT_TRUE(pool_) << capture_libvirt_error().message;
    // 1 MiB of a known pattern, written as the volume's file (the pool is on this machine).
    for (int i = 0; content_.size() < (1u << 20); ++i)
      content_ += "line " + std::to_string(i) + "\n";
    content_.resize(1u << 20);
    std::ofstream(dir_ / "data.raw", std::ios::binary) << content_;
    ASSERT_EQ(virStoragePoolRefresh(pool_.get(), 0), 0);
    vol_.reset(virStorageVolLookupByName(pool_.get(), "data.raw"));
    ASSERT_TRUE(vol_);
  }
  void TearDown() override {
    vol_.reset();
    if (pool_) virStoragePoolDestroy(pool_.get());
    pool_.reset();
    fs::remove_all(dir_);
  }

  StreamPtr download() {
    StreamPtr st(virStreamNew(conn_.get(), VIR_STREAM_NONBLOCK));
    EXPECT_TRUE(st);
    EXPECT_EQ(virStorageVolDownload(vol_.get(), st.get(), 0, 0, 0), 0)
        << capture_libvirt_error().message;
    return st;
  }

  ConnectPtr conn_;
  fs::path dir_;
  remote::PoolPtr pool_;
  remote::VolumePtr vol_;
  std::string content_;
};

TEST_F(StreamBridgeTest, SocketEndGetsEveryByteThenEndOfFile) {
  OwnedFd local;
  auto bridge = StreamBridge::to_socket(conn_.get(), download(), "download", local);
  ASSERT_TRUE(bridge.ok()) << bridge.error().message;
  const std::string got = read_to_eof(local.get(), std::chrono::seconds(60));
  EXPECT_EQ(got.size(), content_.size());
  EXPECT_TRUE(got == content_) << "bytes differ";
  EXPECT_TRUE((*bridge)->ended());
  EXPECT_EQ((*bridge)->end_reason().rfind("download: the stream ended", 0), 0u)
      << (*bridge)->end_reason();
  EXPECT_EQ((*bridge)->bytes_from_stream(), content_.size());
}

// The console's bound: the file takes at most max_bytes (the first ones), the rest of the
// stream is read and dropped, and the bridge still ends at the stream's end.
TEST_F(StreamBridgeTest, FileEndIsBoundedAndKeepsTheFirstBytes) {
  const fs::path log = dir_ / "console.log";
  OwnedFd file(::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  ASSERT_TRUE(file);
  auto bridge = StreamBridge::to_file(conn_.get(), download(), "console", std::move(file), 70000);
  ASSERT_TRUE(bridge.ok()) << bridge.error().message;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (!(*bridge)->ended() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE((*bridge)->ended());
  EXPECT_EQ((*bridge)->bytes_from_stream(), content_.size());
  bridge->reset();
  EXPECT_EQ(slurp(log), content_.substr(0, 70000));
}

// The reader goes away: the bridge ends on its own ("closed on this side"), and destroying it
// later (callbacks removed, stream aborted) is clean.
TEST_F(StreamBridgeTest, ClosingTheLocalEndEndsTheBridge) {
  OwnedFd local;
  auto bridge = StreamBridge::to_socket(conn_.get(), download(), "download", local);
  ASSERT_TRUE(bridge.ok()) << bridge.error().message;
  local.reset();
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!(*bridge)->ended() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE((*bridge)->ended());
  const std::string why = (*bridge)->end_reason();
  EXPECT_TRUE(why.find("closed on this side") != std::string::npos ||
              why.find("writing the local end") != std::string::npos)
      << why;
}

}  // namespace
}  // namespace topolab::virt
