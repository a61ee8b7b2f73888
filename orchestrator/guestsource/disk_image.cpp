#include "orchestrator/guestsource/disk_image.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "common/process.hpp"
#include "orchestrator/virt/domain_lifecycle.hpp"

namespace topolab::guestsource {
namespace {

using namespace std::chrono_literals;

// Every file a live domain XML's disks open for writing. Backing files and read-only disks are
// only read: topolab's own overlays share the user's image that way, and that is safe.
std::vector<std::filesystem::path> disk_files(const std::string& xml) {
  std::vector<std::filesystem::path> out;
  pugi::xml_document doc;
  if (!doc.load_string(xml.c_str())) return out;
  for (auto disk : doc.select_nodes("/domain/devices/disk")) {
    if (disk.node().child("readonly")) continue;
    auto src = disk.node().child("source");
    for (const char* attr : {"file", "dev"}) {
      auto a = src.attribute(attr);
      if (a) {
        std::error_code ec;
        auto p = std::filesystem::weakly_canonical(a.as_string(), ec);
        out.push_back(ec ? std::filesystem::path(a.as_string()) : p);
      }
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& overlayable_formats() {
  static const std::vector<std::string> formats{"qcow2", "raw"};
  return formats;
}

Result<DiskImage> inspect_disk(const std::filesystem::path& path) {
  const std::string shown = "disk " + path.string();
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return make_error(shown + ": " + strerror(errno));
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
    return make_error(shown + ": not a regular file or block device");
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(shown + ": not readable: " + strerror(errno));
  char byte = 0;
  ssize_t n = pread(fd, &byte, 1, 0);
  int err = errno;
  close(fd);
  if (n < 0) return make_error(shown + ": not readable: " + strerror(err));
  if (n == 0) return make_error(shown + ": empty file");

  DiskImage d;
  d.path = std::filesystem::canonical(path);
  d.size_bytes = static_cast<std::uint64_t>(st.st_size);
  d.mtime_s = st.st_mtim.tv_sec;
  // -U: read even if a VM has it open (the in-use check below says so more clearly).
  auto info = run_process(
      ProcessSpec::in_path({"qemu-img", "info", "-U", "--output=json", d.path.string()}, 30s));
  if (!info) return info.error().context(shown);
  if (!info->status.success())
    return make_error(shown + ": qemu-img info failed: " + first_line(*info));
  auto j = nlohmann::json::parse(info->out, nullptr, false);
  if (!j.is_object() || !j.contains("format") || !j["format"].is_string())
    return make_error(shown + ": qemu-img info printed no format");
  d.format = j["format"].get<std::string>();
  if (j.contains("virtual-size") && j["virtual-size"].is_number_unsigned())
    d.virtual_bytes = j["virtual-size"].get<std::uint64_t>();
  const auto& ok = overlayable_formats();
  if (std::find(ok.begin(), ok.end(), d.format) == ok.end()) {
    return make_error(shown + ": format '" + d.format.substr(0, 40) +
                      "' cannot be overlaid by topolab (supported: qcow2, raw; convert it with "
                      "qemu-img convert -O qcow2)");
  }
  return d;
}

Result<void> check_not_in_use(virConnectPtr conn, const DiskImage& disk) {
  virDomainPtr* doms = nullptr;
  int n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
  if (auto e = virt::failed(n)) return e->context("listing running domains");
  std::string user;
  for (int i = 0; i < n; ++i) {
    if (user.empty()) {
      auto xml = virt::domain_xml(doms[i], /*live=*/true);
      if (xml) {
        auto files = disk_files(*xml);
        if (std::find(files.begin(), files.end(), disk.path) != files.end())
          user = virt::domain_name(doms[i]);
      }
    }
    virDomainFree(doms[i]);
  }
  free(doms);  // NOLINT: libvirt allocates with malloc
  if (!user.empty()) {
    return make_error("disk " + disk.path.string() + ": in use by running domain '" + user +
                      "' (shut it down first; topolab never boots a disk another VM has open)");
  }
  return {};
}

}  // namespace topolab::guestsource
