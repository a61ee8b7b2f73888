// Fuzzes CpuList::parse and CpuList::parse_mask (common/cpu_list.hpp): they read sysfs files,
// libvirt XML attributes, layout files and guest replies, so they see hostile text.
// Properties checked beyond "no crash": a parsed list is sorted and unique, and its canonical
// text parses back to the same list.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/cpu_list.hpp"

namespace {

void check_round_trip(const topolab::CpuList& list) {
  for (std::size_t i = 1; i < list.size(); ++i) {
    if (list.ids()[i - 1] >= list.ids()[i]) std::abort();  // not sorted/unique
  }
  auto again = topolab::CpuList::parse(list.to_string());
  if (!again.ok() || *again != list) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto list = topolab::CpuList::parse(text); list.ok()) {
    check_round_trip(*list);
  } else if (list.error().message.empty()) {
    std::abort();  // an error must say what is wrong
  }
  if (auto mask = topolab::CpuList::parse_mask(text); mask.ok()) {
    check_round_trip(*mask);
  } else if (mask.error().message.empty()) {
    std::abort();
  }
  return 0;
}
