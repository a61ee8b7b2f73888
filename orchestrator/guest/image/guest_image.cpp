#include "orchestrator/guest/image/guest_image.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/file_io.hpp"
#include "common/json_text.hpp"
#include "orchestrator/base/install/install_paths.hpp"
#include "orchestrator/guest/image/cpio.hpp"
#include "orchestrator/guest/image/elf_probe.hpp"
#include "orchestrator/guest/image/input_stamp.hpp"
#include "orchestrator/guest/image/module_resolver.hpp"
#include "orchestrator/guest/image/pvh_kernel.hpp"

namespace topolab {

namespace fs = std::filesystem;

namespace {

// Bump when the image layout changes, so cached images are rebuilt.
constexpr int kImageFormat = 2;  // 2: PVH vmlinux
constexpr const char* kModulesDirInImage = "lib/modules";
constexpr const char* kModulesOrderFile = "modules.order";

class Fnv1a64 {
 public:
  void add(std::string_view bytes) {
    std::uint64_t n = bytes.size();
    mix(std::string_view(reinterpret_cast<const char*>(&n), sizeof(n)));
    mix(bytes);
  }
  std::string hex() const {
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h_));
    return buf;
  }

 private:
  void mix(std::string_view bytes) {
    for (unsigned char c : bytes) {
      h_ ^= c;
      h_ *= 1099511628211ull;
    }
  }
  std::uint64_t h_ = 14695981039346656037ull;
};

std::string kernel_version_of(const fs::path& kernel) {
  const std::string name = kernel.filename().string();
  const std::string prefix = "vmlinuz-";
  if (name.rfind(prefix, 0) == 0) return name.substr(prefix.size());
  return {};
}

// qemu runs as libvirt-qemu: the output folders must be traversable by everyone.
Result<void> make_world_readable_dirs(const fs::path& out, const fs::path& out_root) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return make_error(ErrorKind::io, "cannot create " + out.string() + ": " + ec.message());
  std::vector<fs::path> dirs = {out, out_root};
  if (out_root == fs::path(kDefaultImageDir)) dirs.push_back(out_root.parent_path());
  for (const auto& d : dirs) {
    struct stat st {};
    if (::stat(d.c_str(), &st) == 0 && (st.st_mode & 0005) != 0005) {
      if (::chmod(d.c_str(), (st.st_mode & 07777) | 0755) != 0) {
        return make_error(ErrorKind::io,
                          "cannot make " + d.string() + " readable for qemu: chmod failed");
      }
    }
  }
  return {};
}

}  // namespace

std::vector<std::string> required_guest_modules() { return {"virtio_pci", "virtio_console"}; }

Result<fs::path> newest_kernel(const fs::path& boot_dir) {
  std::vector<fs::path> kernels;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(boot_dir, ec)) {
    if (e.path().filename().string().rfind("vmlinuz-", 0) == 0) kernels.push_back(e.path());
  }
  if (ec)
    return make_error(ErrorKind::io, "cannot list " + boot_dir.string() + ": " + ec.message());
  if (kernels.empty()) {
    return make_error(ErrorKind::not_found,
                      "no kernel found: " + boot_dir.string() +
                          "/vmlinuz-* is empty (install linux-image-amd64 or pass --kernel)");
  }
  std::sort(kernels.begin(), kernels.end(), [](const fs::path& a, const fs::path& b) {
    return ::strverscmp(a.filename().c_str(), b.filename().c_str()) < 0;
  });
  return kernels.back();
}

namespace {

// Every agent or kernel change makes a new image folder (a 66 MB vmlinux each): keep the
// newest few beside the current one, so a run that built its image a moment ago still finds
// it, and remove older folders. Only folders that are ours (16 hex digits, image.json) go.
int prune_old_images(const fs::path& out_root, const fs::path& current) {
  std::vector<std::pair<fs::file_time_type, fs::path>> ours;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out_root, ec)) {
    const std::string name = e.path().filename().string();
    if (e.path() == current || name.size() != 16 ||
        name.find_first_not_of("0123456789abcdef") != std::string::npos)
      continue;
    auto t = fs::last_write_time(e.path() / "image.json", ec);
    if (!ec) ours.emplace_back(t, e.path());
  }
  std::sort(ours.begin(), ours.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  int removed = 0;
  for (std::size_t i = kKeptOldImages; i < ours.size(); ++i)
    if (fs::remove_all(ours[i].second, ec) > 0 && !ec) ++removed;
  return removed;
}

// A complete earlier build of the same inputs: its manifest names the kernel file and size.
bool reuse_cached(const fs::path& manifest, const fs::path& out, std::uint64_t initrd_bytes,
                  GuestImage& img) {
  std::error_code ec;
  if (!fs::exists(manifest, ec) || fs::file_size(img.initrd, ec) != initrd_bytes) return false;
  auto text = read_file(manifest, 1u << 20);
  if (!text) return false;
  auto m = nlohmann::json::parse(*text, nullptr, false);
  if (!m.is_object() || !m["kernel_file"].is_string() || !m["kernel_bytes"].is_number_unsigned())
    return false;
  const std::string file = m["kernel_file"];
  if (file != "vmlinux" && file != "vmlinuz") return false;
  if (fs::file_size(out / file, ec) != m["kernel_bytes"].get<std::uint64_t>() || ec) return false;
  img.kernel = out / file;
  // Optional fields of a manifest on disk: a wrong type reads as absent, never as an abort.
  const auto text_field = [&m](const char* key) {
    return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : std::string();
  };
  img.boot_protocol = text_field("boot");
  img.pvh_fallback = text_field("pvh_fallback");
  return true;
}

// Where the stamp of these input paths lives: one per (kernel, agent, modules folder), beside
// the image folders (its name is not 16 hex digits: pruning leaves it alone).
fs::path stamp_path(const fs::path& out_root, const fs::path& kernel, const fs::path& agent,
                    const fs::path& modules_dir, const std::string& cmdline) {
  Fnv1a64 key;
  key.add(std::to_string(kImageFormat));
  key.add(cmdline);
  key.add(kernel.string());
  key.add(agent.string());
  key.add(modules_dir.string());
  return out_root / ("inputs-" + key.hex() + ".json");
}

// The cached image named by an unchanged stamp (image::input_stamp), without reading an input.
bool reuse_by_stamp(const fs::path& stamp_file, const fs::path& out_root, GuestImage& img) {
  auto stamp = image::read_stamp(stamp_file);
  if (!stamp) return false;
  auto hash = image::unchanged_hash(*stamp);
  if (!hash) return false;
  const fs::path out = out_root / *hash;
  auto text = read_file(out / "image.json", 1u << 20);
  if (!text) return false;
  auto m = nlohmann::json::parse(*text, nullptr, false);
  if (!m.is_object() || m["content_hash"] != *hash || !m["initrd_bytes"].is_number_unsigned() ||
      !m["modules"].is_array()) {
    return false;
  }
  GuestImage found = img;
  found.initrd = out / "initrd.cpio";
  found.initrd_bytes = m["initrd_bytes"].get<std::uint64_t>();
  found.content_hash = *hash;
  for (const auto& name : m["modules"]) {
    if (!name.is_string()) return false;
    found.modules.push_back(name.get<std::string>());
  }
  if (!reuse_cached(out / "image.json", out, found.initrd_bytes, found)) return false;
  found.inputs_unchanged = true;
  img = std::move(found);
  return true;
}

std::vector<fs::path> existing(std::vector<fs::path> files) {
  std::error_code ec;
  std::erase_if(files, [&](const fs::path& f) { return !fs::exists(f, ec); });
  return files;
}

// The build's inputs: the kernel, its modules folder, the agent and where images are kept.
struct ImageInputs {
  fs::path kernel, modules_dir, agent, out_root;
};

// The options' paths, defaults filled in; sets the image's kernel_version.
Result<ImageInputs> resolve_inputs(const ImageOptions& opts, GuestImage& img) {
  ImageInputs in;
  in.kernel = opts.kernel;
  if (in.kernel.empty()) {
    TL_ASSIGN(auto k, newest_kernel());
    in.kernel = k;
  }
  img.kernel_version = kernel_version_of(in.kernel);
  in.modules_dir = opts.modules_dir;
  if (in.modules_dir.empty()) {
    if (img.kernel_version.empty()) {
      return make_error(
          ErrorKind::input,
          "kernel " + in.kernel.string() +
              ": cannot tell its version from the file name (expected vmlinuz-VERSION); "
              "name it so or set the modules directory");
    }
    in.modules_dir = fs::path("/lib/modules") / img.kernel_version;
  }
  // install_paths() honours TOPOLAB_AGENT_BINARY: a sanitizer build's own agent is dynamic and
  // cannot be /init, so its real-guest tests point at the release agent.
  in.agent = opts.agent_binary.empty() ? install_paths().agent : opts.agent_binary;
  in.out_root = opts.output_dir.empty() ? fs::path(kDefaultImageDir) : opts.output_dir;
  return in;
}

// The agent's bytes, refused unless a static ELF executable: it runs as /init.
Result<std::string> read_static_agent(const fs::path& agent) {
  TL_ASSIGN_CTX(auto agent_bytes, read_file(agent, 256u << 20), "agent binary");
  if (agent_bytes.size() < 4 || agent_bytes.compare(0, 4,
                                                    "\x7f"
                                                    "ELF") != 0) {
    return make_error(ErrorKind::input,
                      "agent binary " + agent.string() + " is not an ELF executable");
  }
  if (auto interp = image::elf_interpreter(agent_bytes); !interp.empty()) {
    // As /init of our initramfs there is no dynamic loader: the kernel would panic with
    // "Failed to execute /init (error -2)".
    return make_error(ErrorKind::input,
                      "agent binary " + agent.string() + " is dynamically linked (interpreter " +
                          interp + "); the guest image needs a static agent (a release build's)");
  }
  return agent_bytes;
}

// The initramfs: the agent as /init and the modules it loads (listed in img.modules).
Result<std::string> initramfs(const std::string& agent_bytes,
                              const std::vector<image::ModuleFile>& modules, GuestImage& img) {
  image::CpioWriter cpio;
  for (const char* d : {"dev", "proc", "sys", "run", "tmp", "lib", kModulesDirInImage}) {
    cpio.add_directory(d);
  }
  // The kernel opens /dev/console for init's stdio before the agent can mount devtmpfs.
  cpio.add_char_device("dev/console", 5, 1);
  cpio.add_file("init", agent_bytes, 0755);
  std::string order;
  for (const auto& m : modules) {
    TL_ASSIGN_CTX(auto bytes, image::read_module_bytes(m.path), "module " + m.name);
    const std::string in_image = std::string(kModulesDirInImage) + "/" + m.name + ".ko";
    cpio.add_file(in_image, std::move(bytes));
    order += "/" + in_image + "\n";
    img.modules.push_back(m.name);
  }
  cpio.add_file(kModulesOrderFile, order);
  return cpio.finish();
}

// The image's folder name: what the guest boots (format, initramfs, kernel, cmdline).
std::string content_hash(const std::string& archive, const std::string& kernel_bytes,
                         const std::string& cmdline) {
  Fnv1a64 hash;
  hash.add(std::to_string(kImageFormat));
  hash.add(archive);
  hash.add(kernel_bytes);
  hash.add(cmdline);
  return hash.hex();
}

// A new image in `out`: the kernel (its PVH vmlinux when it has one), the initramfs and the
// manifest image.json, written last (reuse_cached trusts a folder that has one).
Result<void> write_image(const ImageInputs& in, const fs::path& out,
                         const std::string& kernel_bytes, const std::string& archive,
                         GuestImage& img) {
  std::string boot_kernel;
  if (auto elf = image::extract_pvh_vmlinux(kernel_bytes); elf) {
    boot_kernel = std::move(elf).value();
    img.boot_protocol = "pvh";
    img.kernel = out / "vmlinux";
  } else {
    boot_kernel = kernel_bytes;
    img.boot_protocol = "bzimage";
    img.pvh_fallback = elf.error().message;
    img.kernel = out / "vmlinuz";
  }
  TL_TRY(make_world_readable_dirs(out, in.out_root));
  TL_TRY(write_file_atomic(img.kernel, boot_kernel, 0644));
  TL_TRY(write_file_atomic(img.initrd, archive, 0644));
  nlohmann::json m = {{"kernel_source", in.kernel.string()},
                      {"kernel_version", img.kernel_version},
                      {"kernel_file", img.kernel.filename().string()},
                      {"kernel_bytes", boot_kernel.size()},
                      {"boot", img.boot_protocol},
                      {"pvh_fallback", img.pvh_fallback},
                      {"agent_source", in.agent.string()},
                      {"modules", img.modules},
                      {"cmdline", img.cmdline},
                      {"initrd_bytes", img.initrd_bytes},
                      {"content_hash", img.content_hash},
                      {"format", kImageFormat}};
  // A source path need not be UTF-8 (a folder named in Latin-1): replaced, not thrown after
  // the kernel and initrd were written (exit 70 and a half-written image; redteam wave 4).
  return write_file_atomic(out / "image.json", json_document(m), 0644);
}

// The stamp is written only when no input changed while it was read (else: built again next
// time), and is only an optimisation: failing to write it fails nothing.
void remember_stamp(const fs::path& stamp_file, const image::InputStamp& stamp) {
  if (auto now = image::stat_lines(stamp.files); now && *now == stamp.stat) {
    (void)image::write_stamp(stamp_file, stamp);
  }
}

}  // namespace

Result<GuestImage> build_guest_image(const ImageOptions& opts) {
  GuestImage img;
  img.cmdline = kDefaultCmdline;
  TL_ASSIGN(const ImageInputs in, resolve_inputs(opts, img));
  const fs::path stamp_file =
      stamp_path(in.out_root, in.kernel, in.agent, in.modules_dir, img.cmdline);
  if (reuse_by_stamp(stamp_file, in.out_root, img)) return img;
  // Stat'ed before they are read: a file that changes while it is read leaves no stamp.
  image::InputStamp stamp;
  stamp.files = existing(
      {in.kernel, in.agent, in.modules_dir / "modules.dep", in.modules_dir / "modules.builtin"});
  TL_ASSIGN(stamp.stat, image::stat_lines(stamp.files));

  TL_ASSIGN_CTX(auto kernel_bytes, read_file(in.kernel, 256u << 20), "kernel");
  TL_ASSIGN(const std::string agent_bytes, read_static_agent(in.agent));
  TL_ASSIGN(auto modules, image::resolve_modules(in.modules_dir, required_guest_modules()));
  std::vector<fs::path> module_files;
  for (const auto& m : modules) module_files.push_back(m.path);
  TL_ASSIGN(auto module_stat, image::stat_lines(module_files));
  TL_ASSIGN(const std::string archive, initramfs(agent_bytes, modules, img));
  img.content_hash = content_hash(archive, kernel_bytes, img.cmdline);
  img.initrd_bytes = archive.size();

  const fs::path out = in.out_root / img.content_hash;
  img.initrd = out / "initrd.cpio";
  stamp.files.insert(stamp.files.end(), module_files.begin(), module_files.end());
  stamp.stat += module_stat;
  stamp.content_hash = img.content_hash;
  if (reuse_cached(out / "image.json", out, archive.size(), img)) {  // identical inputs
    remember_stamp(stamp_file, stamp);
    return img;
  }
  TL_TRY(write_image(in, out, kernel_bytes, archive, img));
  img.rebuilt = true;
  img.pruned = prune_old_images(in.out_root, out);
  remember_stamp(stamp_file, stamp);
  return img;
}

}  // namespace topolab
