// Fuzzes CpuList::parse and CpuList::parse_mask (common/cpu_list.hpp): they read sysfs files,
// libvirt XML attributes, layout files and guest replies, so they see hostile text.
// Properties checked beyond "no crash": a parsed list is sorted and unique, every id is below
// kMaxCpuIds, its canonical text parses back to the same list, and a list parsed against a
// budget takes exactly its size from it (and is refused rather than exceeding it).
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
  if (!list.empty() && (list.first() < 0 || list.last() >= topolab::kMaxCpuIds)) std::abort();
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
  topolab::CpuIdBudget budget(1000);
  if (auto small = topolab::CpuList::parse(text, &budget); small.ok()) {
    if (small->size() > 1000 || budget.used() != small->size()) std::abort();
  } else if (budget.used() != 0) {
    std::abort();  // a refused list takes nothing
  }
  return 0;
}
