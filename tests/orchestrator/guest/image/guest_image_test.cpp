#include "orchestrator/guest/image/guest_image.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/file_io.hpp"
#include "orchestrator/guest/image/cpio.hpp"
#include "orchestrator/guest/image/elf_probe.hpp"
#include "orchestrator/guest/image/module_resolver.hpp"
#include "orchestrator/guest/image/pvh_kernel.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A fake /lib/modules/<ver>: the real file layout, tiny contents; one module is .ko.xz.
fs::path make_modules_dir(const fs::path& root) {
  const fs::path dir = root / "lib/modules/9.9.9-test";
  write(dir / "modules.dep",
        "kernel/drivers/virtio/virtio_ring.ko:\n"
        "kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko\n"
        "kernel/drivers/virtio/virtio_pci_modern_dev.ko:\n"
        "kernel/drivers/virtio/virtio_pci_legacy_dev.ko:\n"
        "kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_legacy_dev.ko "
        "kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio.ko "
        "kernel/drivers/virtio/virtio_ring.ko\n"
        "kernel/drivers/char/virtio_console.ko.xz: kernel/drivers/virtio/virtio.ko "
        "kernel/drivers/virtio/virtio_ring.ko\n"
        "kernel/drivers/net/virtio_net.ko: kernel/drivers/virtio/virtio.ko\n");
  write(dir / "modules.builtin", "kernel/drivers/char/hw_random/rng-core.ko\n");
  for (const char* m :
       {"virtio_ring", "virtio", "virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio_pci"}) {
    write(dir / "kernel/drivers/virtio" / (std::string(m) + ".ko"), std::string("MODULE ") + m);
  }
  const fs::path plain = dir / "kernel/drivers/char/virtio_console.ko";
  write(plain, "MODULE virtio_console");
  topolab::testing::ChildOptions search_path;
  search_path.search_path = true;
  const auto xz = topolab::testing::run_process({"xz", "-f", plain.string()}, search_path);
  EXPECT_EQ(xz.status(), 0) << "xz failed: " << xz.err;
  return dir;
}

TEST(ModuleResolver, DependenciesComeFirstInModprobeOrder) {
  TempDir tmp;
  const fs::path dir = make_modules_dir(tmp.path());
  auto mods = image::resolve_modules(dir, {"virtio_pci", "virtio-console", "rng_core"});
  ASSERT_TRUE(mods.ok()) << mods.error().message;
  std::vector<std::string> names;
  for (const auto& m : *mods) names.push_back(m.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"virtio_ring", "virtio", "virtio_pci_modern_dev",
                                      "virtio_pci_legacy_dev", "virtio_pci", "virtio_console"}))
      << "rng_core is builtin and skipped; virtio_net is not wanted";
  EXPECT_EQ(mods->back().path.filename(), "virtio_console.ko.xz");
  auto bytes = image::read_module_bytes(mods->back().path);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(*bytes, "MODULE virtio_console") << "decompressed with xz";
}

TEST(ModuleResolver, MissingModuleIsAnError) {
  TempDir tmp;
  const fs::path dir = make_modules_dir(tmp.path());
  auto mods = image::resolve_modules(dir, {"virtio_nonexistent"});
  ASSERT_FALSE(mods.ok());
  EXPECT_NE(mods.error().message.find("virtio_nonexistent"), std::string::npos);
  EXPECT_FALSE(image::resolve_modules(tmp.path() / "nowhere", {"virtio"}).ok());
}

TEST(Cpio, RoundTripsAndIsBlockAligned) {
  image::CpioWriter w;
  w.add_directory("dev");
  w.add_char_device("dev/console", 5, 1);
  w.add_file("init", "abc", 0755);
  w.add_file("x/odd-name", std::string("\0\1\2\3\4", 5));
  const std::string archive = w.finish();
  EXPECT_EQ(archive.size() % 512, 0u);
  EXPECT_EQ(archive.substr(0, 6), "070701");
  auto entries = image::read_cpio(archive);
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  ASSERT_EQ(entries->size(), 4u);
  EXPECT_TRUE(S_ISDIR((*entries)[0].mode));
  EXPECT_TRUE(S_ISCHR((*entries)[1].mode));
  EXPECT_EQ((*entries)[1].rdev_major, 5u);
  EXPECT_EQ((*entries)[1].rdev_minor, 1u);
  EXPECT_EQ((*entries)[2].data, "abc");
  EXPECT_EQ((*entries)[2].mode & 0777, 0755u);
  EXPECT_EQ((*entries)[3].data.size(), 5u);
  EXPECT_FALSE(image::read_cpio(archive.substr(0, 200)).ok()) << "truncated archive";
  EXPECT_FALSE(image::read_cpio("garbage").ok());
}

// This tree's agent, or (sanitizer trees, whose agent is dynamic) the static one that
// scripts/test.sh names in TOPOLAB_AGENT_BINARY.
fs::path static_agent() {
  const char* env = std::getenv("TOPOLAB_AGENT_BINARY");
  return env && *env ? fs::path(env) : fs::path(TOPOLAB_AGENT);
}

class GuestImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    modules_ = make_modules_dir(tmp_.path());
    kernel_ = tmp_.path() / "boot/vmlinuz-9.9.9-test";
    write(kernel_, "not really a kernel");
    opts_.output_dir = tmp_.path() / "out";
    opts_.kernel = kernel_;
    opts_.modules_dir = modules_;
    opts_.agent_binary = static_agent();
  }
  TempDir tmp_;
  fs::path modules_, kernel_;
  ImageOptions opts_;
};

TEST_F(GuestImageTest, InitramfsHoldsTheAgentAsInitAndModulesInLoadOrder) {
  auto img = build_guest_image(opts_);
  ASSERT_TRUE(img.ok()) << img.error().message;
  EXPECT_TRUE(img->rebuilt);
  EXPECT_EQ(img->kernel_version, "9.9.9-test");
  EXPECT_NE(img->cmdline.find("console=ttyS0"), std::string::npos);
  EXPECT_NE(img->cmdline.find("panic=-1"), std::string::npos);
  auto archive = read_file(img->initrd, 512u << 20);
  ASSERT_TRUE(archive.ok()) << archive.error().message;
  EXPECT_EQ(archive->size(), img->initrd_bytes);
  auto entries = image::read_cpio(*archive);
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  std::map<std::string, image::CpioEntry> by_name;
  for (auto& e : *entries) by_name[e.name] = e;

  ASSERT_TRUE(by_name.count("init"));
  const auto& init = by_name["init"];
  EXPECT_TRUE(S_ISREG(init.mode));
  EXPECT_EQ(init.mode & 0111, 0111u) << "init must be executable";
  auto agent = read_file(static_agent(), 512u << 20);
  ASSERT_TRUE(agent.ok());
  EXPECT_TRUE(init.data == *agent) << "init is the static agent, byte for byte";
  ASSERT_TRUE(by_name.count("dev/console"));
  EXPECT_TRUE(S_ISCHR(by_name["dev/console"].mode));
  for (const char* d : {"dev", "proc", "sys"}) EXPECT_TRUE(S_ISDIR(by_name[d].mode)) << d;

  ASSERT_TRUE(by_name.count("modules.order"));
  std::istringstream order(by_name["modules.order"].data);
  std::vector<std::string> paths;
  for (std::string line; std::getline(order, line);) paths.push_back(line);
  const std::vector<std::string> expected = {"/lib/modules/virtio_ring.ko",
                                             "/lib/modules/virtio.ko",
                                             "/lib/modules/virtio_pci_modern_dev.ko",
                                             "/lib/modules/virtio_pci_legacy_dev.ko",
                                             "/lib/modules/virtio_pci.ko",
                                             "/lib/modules/virtio_console.ko"};
  EXPECT_EQ(paths, expected);
  for (const auto& p : paths) {
    ASSERT_TRUE(by_name.count(p.substr(1))) << p << " listed but not in the archive";
  }
  EXPECT_EQ(by_name["lib/modules/virtio_console.ko"].data, "MODULE virtio_console");
  EXPECT_EQ(by_name.count("lib/modules/virtio_net.ko"), 0u) << "nothing else";

  struct stat st {};
  ASSERT_EQ(::stat(img->initrd.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0004, 0004u) << "qemu (libvirt-qemu) must be able to read it";
  ASSERT_EQ(::stat(img->initrd.parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0005, 0005u);
}

TEST_F(GuestImageTest, CachedUntilAnInputChanges) {
  auto first = build_guest_image(opts_);
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto again = build_guest_image(opts_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->rebuilt);
  EXPECT_EQ(again->content_hash, first->content_hash);
  EXPECT_EQ(again->initrd, first->initrd);
  // The fake kernel has no payload: booted as it is, and the reuse says so too.
  EXPECT_EQ(first->boot_protocol, "bzimage");
  EXPECT_EQ(first->kernel.filename(), "vmlinuz");
  EXPECT_EQ(again->kernel, first->kernel);
  EXPECT_EQ(again->boot_protocol, "bzimage");
  EXPECT_FALSE(again->pvh_fallback.empty());

  write(modules_ / "kernel/drivers/virtio/virtio.ko", "MODULE virtio v2");
  auto changed = build_guest_image(opts_);
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_TRUE(changed->rebuilt);
  EXPECT_NE(changed->content_hash, first->content_hash);
}

// A kernel in a folder not named in UTF-8 (Latin-1 "\xe9"): the manifest's dump threw after the
// kernel and initrd were written (exit 70, a half-written image; redteam wave 4). It builds, and
// builds again from the manifest it wrote.
TEST_F(GuestImageTest, AKernelFolderNotNamedInUtf8Builds) {
  const fs::path odd = tmp_.path() / "caf\xe9" / "vmlinuz-9.9.9-test";
  write(odd, "not really a kernel");
  opts_.kernel = odd;
  auto img = build_guest_image(opts_);
  ASSERT_TRUE(img.ok()) << img.error().message;
  EXPECT_TRUE(img->rebuilt);
  auto again = build_guest_image(opts_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->content_hash, img->content_hash);
}

fs::path only_stamp(const fs::path& root) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.path().filename().string().rfind("inputs-", 0) == 0) found.push_back(e.path());
  }
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? fs::path() : found.front();
}

// Issue 17: a boot no longer re-reads and hashes the kernel, agent and modules when none of them
// changed (stat identity); any change, a touched file, a bad stamp or a missing image folder
// falls back to reading them.
TEST_F(GuestImageTest, UnchangedInputsAreFoundByTheirStampAndAnyChangeReadsThemAgain) {
  auto first = build_guest_image(opts_);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->rebuilt);
  EXPECT_FALSE(first->inputs_unchanged);
  const fs::path stamp = only_stamp(opts_.output_dir);

  auto again = build_guest_image(opts_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again->inputs_unchanged);
  EXPECT_FALSE(again->rebuilt);
  EXPECT_EQ(again->content_hash, first->content_hash);
  EXPECT_EQ(again->initrd, first->initrd);
  EXPECT_EQ(again->kernel, first->kernel);
  EXPECT_EQ(again->modules, first->modules);
  EXPECT_EQ(again->initrd_bytes, first->initrd_bytes);
  EXPECT_EQ(again->boot_protocol, first->boot_protocol);

  // Same bytes, new mtime: read again (same image), then the refreshed stamp serves.
  fs::last_write_time(kernel_, fs::file_time_type::clock::now() + std::chrono::seconds(5));
  auto touched = build_guest_image(opts_);
  ASSERT_TRUE(touched.ok()) << touched.error().message;
  EXPECT_FALSE(touched->inputs_unchanged);
  EXPECT_FALSE(touched->rebuilt);
  EXPECT_EQ(touched->content_hash, first->content_hash);
  EXPECT_TRUE(build_guest_image(opts_)->inputs_unchanged);

  // A changed module (same size: "v2" for "v1"-length text) is a new image.
  write(modules_ / "kernel/drivers/virtio/virtio_ring.ko", "MODULE virtio_rin2");
  auto changed = build_guest_image(opts_);
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_FALSE(changed->inputs_unchanged);
  EXPECT_TRUE(changed->rebuilt);
  EXPECT_NE(changed->content_hash, first->content_hash);
  EXPECT_EQ(build_guest_image(opts_)->content_hash, changed->content_hash);

  // A stamp that is not one, or names an image folder that is gone: built from the inputs.
  write(stamp, "{\"files\": [\"/etc/hostname\"], \"stat\": 7, \"content_hash\": \"../x\"}");
  auto bad = build_guest_image(opts_);
  ASSERT_TRUE(bad.ok()) << bad.error().message;
  EXPECT_FALSE(bad->inputs_unchanged);
  EXPECT_EQ(bad->content_hash, changed->content_hash);
  fs::remove_all(opts_.output_dir / changed->content_hash);
  auto gone = build_guest_image(opts_);
  ASSERT_TRUE(gone.ok()) << gone.error().message;
  EXPECT_FALSE(gone->inputs_unchanged);
  EXPECT_TRUE(gone->rebuilt);
  EXPECT_TRUE(fs::exists(gone->initrd));
}

TEST_F(GuestImageTest, OldImageFoldersArePrunedOnlyOursAndOnlyBeyondTheNewest) {
  const fs::path root = opts_.output_dir;
  std::vector<fs::path> old;
  for (int i = 0; i < 5; ++i) {  // older to newer
    fs::path d = root / ("00000000000000a" + std::to_string(i));
    write(d / "image.json", "{}");
    write(d / "vmlinux", "k");
    fs::last_write_time(d / "image.json",
                        fs::file_time_type::clock::now() - std::chrono::hours(10 - i));
    old.push_back(d);
  }
  write(root / "notes/image.json", "{}");             // not an image folder name
  write(root / "0123456789ABCDEF/image.json", "{}");  // upper case: not ours either
  write(root / "00000000000000ff/other", "x");        // no image.json
  auto img = build_guest_image(opts_);
  ASSERT_TRUE(img.ok()) << img.error().message;
  EXPECT_EQ(img->pruned, 2);
  EXPECT_FALSE(fs::exists(old[0]));
  EXPECT_FALSE(fs::exists(old[1]));
  for (int i = 2; i < 5; ++i) EXPECT_TRUE(fs::exists(old[static_cast<std::size_t>(i)])) << i;
  EXPECT_TRUE(fs::exists(root / "notes/image.json"));
  EXPECT_TRUE(fs::exists(root / "0123456789ABCDEF/image.json"));
  EXPECT_TRUE(fs::exists(root / "00000000000000ff/other"));
  EXPECT_TRUE(fs::exists(img->kernel));
  auto again = build_guest_image(opts_);  // reuse: nothing built, nothing pruned
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->pruned, 0);
}

TEST_F(GuestImageTest, BadInputsAreErrors) {
  ImageOptions bad = opts_;
  bad.agent_binary = kernel_;  // not an ELF file
  auto r = build_guest_image(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not an ELF"), std::string::npos) << r.error().message;
  bad = opts_;
  bad.agent_binary = "/bin/true";  // dynamically linked: cannot be /init
  r = build_guest_image(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      r.error().message.find("is dynamically linked (interpreter /lib64/ld-linux-x86-64.so.2)"),
      std::string::npos)
      << r.error().message;
  bad = opts_;
  bad.kernel = tmp_.path() / "boot/bzImage";
  write(bad.kernel, "k");
  bad.modules_dir.clear();
  r = build_guest_image(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("vmlinuz-VERSION"), std::string::npos) << r.error().message;
}

TEST(ElfProbe, StaticAgentHasNoInterpreterDynamicBinariesDo) {
  auto agent = read_file(static_agent(), 64u << 20);
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ(image::elf_interpreter(*agent), "") << "the guest agent must be static";
  auto dynamic = read_file("/bin/true", 64u << 20);
  ASSERT_TRUE(dynamic.ok());
  EXPECT_EQ(image::elf_interpreter(*dynamic), "/lib64/ld-linux-x86-64.so.2");
  // Truncated or lying headers are not followed out of the buffer.
  EXPECT_EQ(image::elf_interpreter(dynamic->substr(0, 100)), "");
  EXPECT_EQ(image::elf_interpreter("\x7f"
                                   "ELF"),
            "");
  std::string lying = *dynamic;
  lying[32] = '\xff';  // e_phoff far beyond the end
  lying[39] = '\x7f';
  EXPECT_EQ(image::elf_interpreter(lying), "");
}

TEST(PvhKernel, TheInstalledKernelUnpacksToAVmlinuxWithAPvhEntry) {
  auto kernel = newest_kernel();
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  auto bz = read_file(*kernel, 256u << 20);
  ASSERT_TRUE(bz.ok());
  EXPECT_FALSE(image::elf_has_pvh_entry(*bz)) << "a bzImage is not an ELF";
  auto elf = image::extract_pvh_vmlinux(*bz);
  ASSERT_TRUE(elf.ok()) << elf.error().message;
  EXPECT_GT(elf->size(), bz->size()) << "uncompressed";
  EXPECT_EQ(elf->compare(0, 4,
                         "\x7f"
                         "ELF"),
            0);
  EXPECT_TRUE(image::elf_has_pvh_entry(*elf));
  EXPECT_FALSE(image::elf_has_pvh_entry(elf->substr(0, 4096))) << "notes cut off";
}

TEST(PvhKernel, AnythingElseIsAReasonToBootTheBzImage) {
  auto none = image::extract_pvh_vmlinux("not a kernel at all");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no xz, zstd or gzip payload"), std::string::npos);
  auto bad = image::extract_pvh_vmlinux(std::string("MZ....\xFD"
                                                    "7zXZ",
                                                    11) +
                                        std::string(1, '\0') + "garbage");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("xz"), std::string::npos) << bad.error().message;
}

TEST(NewestKernel, PicksTheHighestVersion) {
  TempDir tmp;
  for (const char* k :
       {"vmlinuz-6.1.0-9-amd64", "vmlinuz-6.1.0-57-amd64", "vmlinuz-5.10.0-1", "config-9.9"}) {
    write(tmp.path() / k, "k");
  }
  auto k = newest_kernel(tmp.path());
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->filename(), "vmlinuz-6.1.0-57-amd64");
  TempDir empty;
  EXPECT_FALSE(newest_kernel(empty.path()).ok());
}

}  // namespace
}  // namespace topolab
