// The `topolab` pool and content-keyed uploads on the real qemu:///system (issue 16 item 3).
// Every test works in a throw-away pool "topolab-it-<pid>-<n>" (never the real `topolab`)
// that a guard destroys, empties and undefines on every path, failed assertions included.
#include "orchestrator/guest/remote/storage_upload.hpp"

#include <gtest/gtest.h>
#include <libvirt/virterror.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <string>

#include "orchestrator/guest/remote/sha256.hpp"
#include "orchestrator/guest/remote/storage_pool.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"
#include "tests/integration/remote/test_pool.hpp"

namespace topolab::remote {
namespace {

namespace fs = std::filesystem;

class RemoteStorage : public ::testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    std::string tag = "topolab-it-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    spec_ = PoolSpec{tag, "/var/lib/libvirt/" + tag};
    local_ = fs::temp_directory_path() / (tag + "-local");
    fs::create_directories(local_);
    auto c = virt::open_connection(uri());
    ASSERT_TRUE(c.ok()) << c.error().message;
    conn_ = std::move(*c);
    ASSERT_FALSE(pool_defined(conn_.get(), spec_.name)) << "leftover test pool";
  }
  void TearDown() override {
    if (conn_) {
      remove_pool(conn_.get(), spec_.name);
      EXPECT_FALSE(pool_defined(conn_.get(), spec_.name)) << "test pool left";
    }
    fs::remove_all(local_);
  }
  fs::path write_local(const std::string& content) {
    auto p = local_ / "kernel";
    std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
    return p;
  }

  virtual std::string uri() const { return "qemu:///system"; }

  PoolSpec spec_;
  fs::path local_;
  virt::ConnectPtr conn_;
};

// The volume's bytes, read back through libvirt's download stream (what works remotely too).
std::string download(virConnectPtr conn, virStoragePoolPtr pool, const std::string& vol_name) {
  VolumePtr vol(virStorageVolLookupByName(pool, vol_name.c_str()));
  if (!vol) return "<no volume>";
  virt::StreamPtr st(virStreamNew(conn, 0));
  if (virStorageVolDownload(vol.get(), st.get(), 0, 0, 0) < 0) return "<download failed>";
  std::string out;
  char buf[65536];
  for (int n; (n = virStreamRecv(st.get(), buf, sizeof buf)) != 0;) {
    if (n < 0) {
      virStreamAbort(st.get());
      return "<recv failed>";
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  virStreamFinish(st.get());
  return out;
}

// The volume's mtime as libvirt reports it (<timestamps><mtime> of the volume XML).
std::string volume_mtime(virStoragePoolPtr pool, const std::string& vol_name) {
  VolumePtr vol(virStorageVolLookupByName(pool, vol_name.c_str()));
  if (!vol) return "<no volume>";
  virt::LibvirtString xml(virStorageVolGetXMLDesc(vol.get(), 0));
  pugi::xml_document doc;
  if (!xml || !doc.load_string(xml.get())) return "<no xml>";
  return doc.child("volume").child("target").child("timestamps").child("mtime").text().get();
}

// The same, with the connection named as a remote one: qemu+unix:// is libvirt's remote
// driver over the local socket (the TCP listener of the CI acceptance test would reconfigure
// the shared libvirtd). Streams travel as remote-protocol messages either way.
class RemoteStorageByUri : public RemoteStorage, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string uri() const override { return GetParam(); }
};

TEST_P(RemoteStorageByUri, UploadsOnceAndAgainOnlyWhenTheContentChanges) {
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  EXPECT_EQ(virStoragePoolIsActive(pool->get()), 1);
  EXPECT_TRUE(fs::is_directory(spec_.path));

  // Larger than one chunk, not a multiple of it, with every byte value.
  std::string content;
  for (std::size_t i = 0; i < kUploadChunkBytes * 2 + 1234; ++i) {
    content.push_back(static_cast<char>(i * 7 % 256));
  }
  auto first = upload_volume(conn_.get(), pool->get(), "vmlinuz", write_local(content));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->uploaded);
  EXPECT_EQ(first->bytes_sent, content.size());
  EXPECT_EQ(first->path, spec_.path + "/" + first->volume);
  EXPECT_EQ(download(conn_.get(), pool->get(), first->volume), content);
  std::string mtime = volume_mtime(pool->get(), first->volume);
  ASSERT_FALSE(mtime.empty());

  sleep(1);  // an upload now would move the mtime
  auto again = upload_volume(conn_.get(), pool->get(), "vmlinuz", write_local(content));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->uploaded);
  EXPECT_EQ(again->bytes_sent, 0u);
  EXPECT_EQ(again->path, first->path);
  EXPECT_EQ(volume_mtime(pool->get(), first->volume), mtime) << "the volume was rewritten";

  content[100] ^= 1;
  auto changed = upload_volume(conn_.get(), pool->get(), "vmlinuz", write_local(content));
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_TRUE(changed->uploaded);
  EXPECT_NE(changed->volume, first->volume);
  EXPECT_EQ(download(conn_.get(), pool->get(), changed->volume), content);
  // The old version stays for a domain that may still use it.
  EXPECT_NE(download(conn_.get(), pool->get(), first->volume), content);
}

INSTANTIATE_TEST_SUITE_P(Uris, RemoteStorageByUri,
                         ::testing::Values("qemu:///system", "qemu+unix:///system"));

TEST_F(RemoteStorage, AnInactivePoolIsStartedAndKeepsItsVolumes) {
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  auto up = upload_volume(conn_.get(), pool->get(), "initrd", write_local("initramfs bytes"));
  ASSERT_TRUE(up.ok()) << up.error().message;
  ASSERT_EQ(virStoragePoolDestroy(pool->get()), 0);

  auto again = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(virStoragePoolIsActive(again->get()), 1);
  auto second = upload_volume(conn_.get(), again->get(), "initrd", write_local("initramfs bytes"));
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE(second->uploaded);
}

TEST_F(RemoteStorage, AnInterruptedUploadIsReplaced) {
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  std::string content = "the real kernel";
  // What a run killed mid-upload leaves: the content's volume, partial bytes, no marker.
  auto probe = upload_volume(conn_.get(), pool->get(), "k", write_local(content));
  ASSERT_TRUE(probe.ok()) << probe.error().message;
  VolumePtr marker(virStorageVolLookupByName(pool->get(), (probe->volume + ".complete").c_str()));
  ASSERT_TRUE(marker);
  ASSERT_EQ(virStorageVolDelete(marker.get(), 0), 0);
  VolumePtr vol(virStorageVolLookupByName(pool->get(), probe->volume.c_str()));
  ASSERT_TRUE(vol);
  ASSERT_EQ(virStorageVolWipe(vol.get(), 0), 0);  // zeros: a partial upload
  ASSERT_NE(download(conn_.get(), pool->get(), probe->volume), content);

  auto redo = upload_volume(conn_.get(), pool->get(), "k", write_local(content));
  ASSERT_TRUE(redo.ok()) << redo.error().message;
  EXPECT_TRUE(redo->uploaded);
  EXPECT_EQ(download(conn_.get(), pool->get(), redo->volume), content);
}

TEST_F(RemoteStorage, AMarkerWithoutItsVolumeIsReplaced) {
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  auto first = upload_volume(conn_.get(), pool->get(), "k", write_local("bytes"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  VolumePtr vol(virStorageVolLookupByName(pool->get(), first->volume.c_str()));
  ASSERT_TRUE(vol);
  ASSERT_EQ(virStorageVolDelete(vol.get(), 0), 0);  // deleted by hand, marker left

  auto redo = upload_volume(conn_.get(), pool->get(), "k", write_local("bytes"));
  ASSERT_TRUE(redo.ok()) << redo.error().message;
  EXPECT_TRUE(redo->uploaded);
  EXPECT_EQ(download(conn_.get(), pool->get(), redo->volume), "bytes");
}

// Redteam wave 2: a volume of our content-keyed name holding other bytes (another size), with
// its marker, is replaced, not booted; a pool of the name that is not a directory pool (here
// `logical`, which would carve a host disk) is refused before it is started.
TEST_F(RemoteStorage, AVolumeOfTheNameWithOtherContentIsReplaced) {
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  auto first = upload_volume(conn_.get(), pool->get(), "k", write_local("the real kernel"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  VolumePtr vol(virStorageVolLookupByName(pool->get(), first->volume.c_str()));
  ASSERT_TRUE(vol);
  ASSERT_EQ(virStorageVolDelete(vol.get(), 0), 0);
  const std::string other = "<volume><name>" + first->volume +
                            "</name><capacity unit='bytes'>3</capacity><target><format "
                            "type='raw'/></target></volume>";
  VolumePtr planted(virStorageVolCreateXML(pool->get(), other.c_str(), 0));
  ASSERT_TRUE(planted) << "could not plant the volume";

  auto redo = upload_volume(conn_.get(), pool->get(), "k", write_local("the real kernel"));
  ASSERT_TRUE(redo.ok()) << redo.error().message;
  EXPECT_TRUE(redo->uploaded);
  EXPECT_EQ(download(conn_.get(), pool->get(), redo->volume), "the real kernel");
}

// Redteam wave 3: a directory of our content-keyed name without a marker looked like an
// interrupted upload and was deleted; it is refused, never deleted.
TEST_F(RemoteStorage, ANonFileOfOurNameWithoutMarkerIsNotDeleted) {
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  const std::string vol = content_volume_name("k", sha256_hex("the real kernel"));
  ASSERT_TRUE(fs::create_directory(spec_.path + "/" + vol));
  ASSERT_EQ(virStoragePoolRefresh(pool->get(), 0), 0);
  auto up = upload_volume(conn_.get(), pool->get(), "k", write_local("the real kernel"));
  ASSERT_FALSE(up.ok());
  EXPECT_NE(up.error().message.find("'" + vol + "' exists and is not a plain file"),
            std::string::npos)
      << up.error().message;
  EXPECT_TRUE(fs::is_directory(spec_.path + "/" + vol)) << "the directory was deleted";
}

// Redteam wave 3: our content-keyed name planted as a symlink to a file outside the pool (here
// a stand-in for /etc/shadow), with or without its marker: the link is replaced by a fresh
// upload, the target is never written, truncated or deleted.
TEST_F(RemoteStorage, ASymlinkOfOurNameNeverWritesItsTarget) {
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  const fs::path victim = local_ / "shadow";
  std::ofstream(victim) << "root:$6$precious:19000:0:99999:7:::\n";
  const std::string vol = content_volume_name("k", sha256_hex("the real kernel"));
  for (bool marker : {true, false}) {
    fs::remove(spec_.path + "/" + vol);
    fs::remove(spec_.path + "/" + vol + ".complete");
    fs::create_symlink(victim, spec_.path + "/" + vol);
    if (marker) std::ofstream(spec_.path + "/" + vol + ".complete").flush();
    ASSERT_EQ(virStoragePoolRefresh(pool->get(), 0), 0);
    auto up = upload_volume(conn_.get(), pool->get(), "k", write_local("the real kernel"));
    ASSERT_TRUE(up.ok()) << up.error().message;
    EXPECT_TRUE(up->uploaded) << "marker " << marker;
    EXPECT_FALSE(fs::is_symlink(spec_.path + "/" + vol)) << "marker " << marker;
    EXPECT_EQ(download(conn_.get(), pool->get(), vol), "the real kernel");
    std::ifstream in(victim);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "root:$6$precious:19000:0:99999:7:::\n") << "marker " << marker;
  }
}

TEST_F(RemoteStorage, AnExistingPoolThatIsNotADirectoryPoolIsRefused) {
  const std::string xml = "<pool type='logical'><name>" + spec_.name +
                          "</name><source><name>no-such-vg</name></source><target><path>/dev/"
                          "no-such-vg</path></target></pool>";
  PoolPtr defined(virStoragePoolDefineXML(conn_.get(), xml.c_str(), 0));
  ASSERT_TRUE(defined) << "could not define the logical pool";
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_FALSE(pool.ok());
  EXPECT_NE(pool.error().message.find("exists with type 'logical'"), std::string::npos)
      << pool.error().message;
  EXPECT_EQ(virStoragePoolIsActive(defined.get()), 0) << "the pool was started";
}

// Redteam wave 3: `--pool-path` naming a directory that holds other files (here one file,
// "precious") made them volumes of topolab's pool; the new pool is refused and undefined, the
// files stay. A directory holding only an earlier topolab pool's files is taken.
TEST_F(RemoteStorage, ANewPoolOnADirectoryOfOtherFilesIsRefused) {
  struct Cleanup {  // on every path: the pool (if any), then the directory this test made
    virConnectPtr conn;
    PoolSpec spec;
    ~Cleanup() {
      remove_pool(conn, spec.name);
      std::error_code ec;
      fs::remove_all(spec.path, ec);
    }
  } cleanup{conn_.get(), spec_};
  fs::create_directories(spec_.path);
  std::ofstream(spec_.path + "/precious") << "keep";
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_FALSE(pool.ok());
  EXPECT_NE(pool.error().message.find("holds 1 file(s) that topolab did not put there (e.g. "
                                      "'precious')"),
            std::string::npos)
      << pool.error().message;
  EXPECT_TRUE(pool.error().is(ErrorKind::input));
  EXPECT_FALSE(pool_defined(conn_.get(), spec_.name)) << "the refused pool stayed defined";
  EXPECT_TRUE(fs::exists(spec_.path + "/precious"));

  fs::remove(spec_.path + "/precious");
  std::ofstream(spec_.path + "/vmlinuz-0123456789abcdef") << "old";
  std::ofstream(spec_.path + "/vmlinuz-0123456789abcdef.complete");
  auto ours = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(ours.ok()) << ours.error().message;
}

TEST_F(RemoteStorage, APathThatCannotBeCreatedIsOneLineAndNoPool) {
  spec_.path = "/proc/" + spec_.name + "/pool";
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_FALSE(pool.ok());
  const std::string& msg = pool.error().message;
  EXPECT_NE(msg.find("storage pool '" + spec_.name + "' at " + spec_.path), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("cannot create its directory"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_TRUE(pool.error().is(ErrorKind::libvirt));
  EXPECT_FALSE(pool_defined(conn_.get(), spec_.name)) << "a half-defined pool was left";
}

TEST_F(RemoteStorage, LocalFilesGoThroughTheSafeReader) {
  auto pool = ensure_topolab_pool(conn_.get(), spec_);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  auto fifo = local_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto r = upload_volume(conn_.get(), pool->get(), "k", fifo);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos) << r.error().message;
  auto bad = upload_volume(conn_.get(), pool->get(), "../k", write_local("x"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("volume name"), std::string::npos) << bad.error().message;
  EXPECT_TRUE(bad.error().is(ErrorKind::input));
  virStorageVolPtr* vols = nullptr;
  int n = virStoragePoolListAllVolumes(pool->get(), &vols, 0);
  for (int i = 0; i < n; ++i) virStorageVolFree(vols[i]);
  free(vols);  // NOLINT
  EXPECT_EQ(n, 0) << "a refused upload left a volume";
}

}  // namespace
}  // namespace topolab::remote
