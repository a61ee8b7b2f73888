// place_image_on_host (remote/host_image.hpp) through libvirtd's TCP listener: a remote
// connection gets pool volumes, a local one the image unchanged; a changed kernel replaces its
// older version in the pool (volume and marker), and only volumes topolab named and completed
// are ever deleted.
#include "orchestrator/guest/remote/host_image.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "orchestrator/guest/remote/storage_upload.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "tests/integration/remote/test_pool.hpp"

namespace topolab::remote {
namespace {

namespace fs = std::filesystem;

std::string tcp_uri() {
  const char* p = std::getenv("TOPOLAB_TEST_LIBVIRT_TCP_PORT");
  return "qemu+tcp://127.0.0.1:" + std::string(p ? p : "16509") + "/system";
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class HostImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int n = 0;
    spec_.name = "topolab-it-" + std::to_string(getpid()) + "-img" + std::to_string(++n);
    spec_.path = "/var/lib/libvirt/" + spec_.name;
    dir_ = fs::temp_directory_path() / (spec_.name + "-local");
    fs::create_directories(dir_);
    image_.kernel = write("kernel", "kernel v1");
    image_.initrd = write("initrd", "initramfs v1");
    image_.cmdline = "console=ttyS0";
    auto c = virt::open_connection(tcp_uri());
    ASSERT_TRUE(c.ok()) << c.error().message;
    conn_ = std::move(*c);
  }
  void TearDown() override {
    if (conn_) {
      remove_pool(conn_.get(), spec_.name);
      EXPECT_FALSE(pool_defined(conn_.get(), spec_.name));
    }
    fs::remove_all(dir_);
  }
  fs::path write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary | std::ios::trunc) << content;
    return dir_ / name;
  }

  PoolSpec spec_;
  fs::path dir_;
  GuestImage image_;
  virt::ConnectPtr conn_;
};

TEST_F(HostImageTest, LocalConnectionsKeepTheLocalImage) {
  auto local = virt::open_connection("qemu:///system");
  ASSERT_TRUE(local.ok()) << local.error().message;
  auto placed = place_image_on_host(local->get(), image_, spec_);
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  EXPECT_FALSE(placed->remote);
  EXPECT_EQ(placed->image.kernel, image_.kernel);
  EXPECT_EQ(placed->image.initrd, image_.initrd);
  EXPECT_FALSE(pool_defined(local->get(), spec_.name)) << "a local boot created a pool";
}

TEST_F(HostImageTest, RemoteUploadsOnceAndReplacesOnlyOurOldVersions) {
  auto first = place_image_on_host(conn_.get(), image_, spec_);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->remote);
  EXPECT_EQ(first->uri, tcp_uri());
  EXPECT_EQ(first->uploaded, 2);
  EXPECT_EQ(first->image.kernel.parent_path(), fs::path(spec_.path));
  EXPECT_EQ(first->image.cmdline, "console=ttyS0");
  const std::string old_kernel = first->image.kernel.filename();

  // Volumes topolab must not delete: a foreign name, and an incomplete (unmarked) version.
  PoolPtr pool(virStoragePoolLookupByName(conn_.get(), spec_.name.c_str()));
  ASSERT_TRUE(pool);
  const std::string unmarked = std::string(kKernelVolume) + "-0123456789abcdef";
  for (const auto& name : {std::string("topolab-kernel-notours"), unmarked}) {
    std::string xml = "<volume><name>" + name + "</name><capacity>1</capacity></volume>";
    VolumePtr v(virStorageVolCreateXML(pool.get(), xml.c_str(), 0));
    ASSERT_TRUE(v) << name;
  }

  auto again = place_image_on_host(conn_.get(), image_, spec_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->uploaded, 0);
  EXPECT_EQ(again->bytes_sent, 0u);
  EXPECT_EQ(again->image.kernel, first->image.kernel);

  image_.kernel = write("kernel", "kernel v2");
  auto changed = place_image_on_host(conn_.get(), image_, spec_);
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_EQ(changed->uploaded, 1);
  EXPECT_EQ(changed->bytes_sent, 9u);
  EXPECT_EQ(changed->old_versions_removed, 1);
  EXPECT_NE(changed->image.kernel, first->image.kernel);
  EXPECT_EQ(changed->image.initrd, first->image.initrd);
  auto vols = pool_volumes(conn_.get(), spec_.name);
  EXPECT_FALSE(has(vols, old_kernel)) << "the old kernel version stayed";
  EXPECT_FALSE(has(vols, old_kernel + ".complete"));
  EXPECT_TRUE(has(vols, changed->image.kernel.filename().string()));
  EXPECT_TRUE(has(vols, "topolab-kernel-notours"));
  EXPECT_TRUE(has(vols, unmarked)) << "an unmarked upload (maybe in flight) was deleted";
  EXPECT_TRUE(has(vols, first->image.initrd.filename().string()));
}

// The second placement in a process knows the file's hash without reading it (memo keyed by
// inode, size, mtime, ctime); when the pool lost the volume, the bytes are read, checked
// against that hash and sent.
TEST_F(HostImageTest, AKnownHashStillSendsTheCheckedBytesWhenThePoolLostThem) {
  auto first = place_image_on_host(conn_.get(), image_, spec_);
  ASSERT_TRUE(first.ok()) << first.error().message;
  PoolPtr pool(virStoragePoolLookupByName(conn_.get(), spec_.name.c_str()));
  ASSERT_TRUE(pool);
  const std::string vol = first->image.kernel.filename();
  for (const auto& name : {vol, vol + ".complete"}) {
    VolumePtr v(virStorageVolLookupByName(pool.get(), name.c_str()));
    ASSERT_TRUE(v) << name;
    ASSERT_EQ(virStorageVolDelete(v.get(), 0), 0);
  }
  auto again = place_image_on_host(conn_.get(), image_, spec_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->uploaded, 1);
  EXPECT_EQ(again->bytes_sent, 9u);  // "kernel v1"
  EXPECT_EQ(again->image.kernel, first->image.kernel);
}

TEST_F(HostImageTest, APoolPathThatCannotBeCreatedNamesTheHostAndLeavesNoPool) {
  spec_.path = "/proc/" + spec_.name;
  auto placed = place_image_on_host(conn_.get(), image_, spec_);
  ASSERT_FALSE(placed.ok());
  const auto& msg = placed.error().message;
  EXPECT_NE(msg.find("guest image on " + tcp_uri()), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot create its directory"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_FALSE(pool_defined(conn_.get(), spec_.name));
}

// The cached KVM verdict is per host: a remote connection's key names that host, a local
// one's is unchanged (no re-probe after an upgrade).
TEST_F(HostImageTest, TheAcceleratorCacheKeyNamesARemoteHost) {
  auto remote_key = virt::accel_cache_key(conn_.get());
  ASSERT_TRUE(remote_key.ok()) << remote_key.error().message;
  auto local = virt::open_connection("qemu:///system");
  ASSERT_TRUE(local.ok());
  auto local_key = virt::accel_cache_key(local->get());
  ASSERT_TRUE(local_key.ok());
  EXPECT_EQ(local_key->find("host="), std::string::npos) << *local_key;
  // Keyed by the remote host's name and its versions, never by this machine's kernel release:
  // both endpoints are this machine, so the versions match and only the first field differs.
  virt::LibvirtString host(virConnectGetHostname(conn_.get()));
  ASSERT_TRUE(host);
  const auto versions = local_key->find(";qemu=");
  ASSERT_EQ(local_key->rfind("kernel=", 0), 0u) << *local_key;
  ASSERT_NE(versions, std::string::npos) << *local_key;
  EXPECT_EQ(*remote_key, "host=" + std::string(host.get()) + local_key->substr(versions));
  EXPECT_EQ(remote_key->find("kernel="), std::string::npos) << *remote_key;
}

}  // namespace
}  // namespace topolab::remote
