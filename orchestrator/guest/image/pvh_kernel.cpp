#include "orchestrator/guest/image/pvh_kernel.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "common/file_io.hpp"
#include "common/process.hpp"
#include "orchestrator/guest/image/elf_probe.hpp"

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
// A kernel unpacks in seconds; a stuck or bombed decompressor is stopped.
constexpr std::chrono::seconds kUnpackTimeout{120};
constexpr int kMaxCandidates = 4;  // a magic can occur by chance before the real payload

// Writes the payload into the mkstemp file through the descriptor mkstemp returned: reopening
// the name (as write_file_atomic would) gives up mkstemp's O_EXCL protection (issue 12, class 7).
Result<void> write_payload(int fd, std::string_view data, const std::string& name) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return make_error(ErrorKind::io, "cannot write " + name + ": " + std::strerror(errno));
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Result<std::string> unpack(const Payload& p, std::string_view data) {
  char tmpl[] = "/tmp/topolab-kernel-XXXXXX";
  OwnedFd fd(::mkostemp(tmpl, O_CLOEXEC));
  if (fd.get() < 0)
    return make_error(ErrorKind::io, std::string("mkstemp for the kernel payload failed: ") +
                                         std::strerror(errno));
  const std::filesystem::path scratch = tmpl;
  Result<std::string> out = make_error(ErrorKind::io, "cannot write " + scratch.string());
  auto written = write_payload(fd.get(), data, scratch.string());
  if (!written) {
    out = written.error();
  } else {
    auto argv = p.unpack;
    argv.push_back(scratch.string());
    ProcessSpec spec = ProcessSpec::in_path(argv, kUnpackTimeout);
    spec.max_output = kMaxVmlinux;
    out = run_for_output(spec);
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
  return make_error(ErrorKind::input, why);
}

}  // namespace topolab::image
