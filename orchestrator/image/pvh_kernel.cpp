#include "orchestrator/image/pvh_kernel.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string_view>
#include <vector>

#include "common/file_io.hpp"
#include "orchestrator/image/elf_probe.hpp"
#include "orchestrator/image/module_resolver.hpp"

namespace topolab::image {
namespace {

struct Payload {
  std::string_view magic;
  std::vector<std::string> unpack;  // argv; the payload file is appended
};

const std::vector<Payload>& payloads() {
  using namespace std::string_view_literals;
  static const std::vector<Payload> p = {
      {"\xFD"
       "7zXZ\0"sv,
       {"xz", "-dc", "--single-stream", "--"}},  // trailing bytes after the stream are normal
      {"\x28\xB5\x2F\xFD"sv, {"zstd", "-dcq", "--"}},
      {"\x1F\x8B\x08"sv, {"gzip", "-dcq", "--"}},
  };
  return p;
}

constexpr std::size_t kMaxVmlinux = 512u << 20;
constexpr int kMaxCandidates = 4;  // a magic can occur by chance before the real payload

Result<std::string> unpack(const Payload& p, std::string_view data) {
  char tmpl[] = "/tmp/topolab-kernel-XXXXXX";
  int fd = ::mkstemp(tmpl);
  if (fd < 0) return make_error("mkstemp for the kernel payload failed");
  ::close(fd);
  const std::filesystem::path scratch = tmpl;
  auto written = write_file_atomic(scratch, std::string(data), 0600);
  Result<std::string> out = make_error("cannot write " + scratch.string());
  if (written) {
    auto argv = p.unpack;
    argv.push_back(scratch.string());
    out = capture_output(argv, kMaxVmlinux);
  }
  std::error_code ec;
  std::filesystem::remove(scratch, ec);
  return out;
}

}  // namespace

Result<std::string> extract_pvh_vmlinux(const std::string& bzimage) {
  std::string why = "no xz, zstd or gzip payload found";
  for (const auto& p : payloads()) {
    std::size_t at = 0;
    for (int tries = 0; tries < kMaxCandidates; ++tries, ++at) {
      at = bzimage.find(p.magic, at);
      if (at == std::string::npos) break;
      auto elf = unpack(p, std::string_view(bzimage).substr(at));
      if (!elf) {
        why = elf.error().message;
        continue;
      }
      if (!elf_has_pvh_entry(*elf)) {
        why = "the unpacked kernel has no PVH entry note";
        continue;
      }
      return elf;
    }
  }
  return make_error(why);
}

}  // namespace topolab::image
