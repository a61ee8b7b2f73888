#pragma once
// The accelerator a guest runs on, and its one vocabulary: topolab's names "kvm" / "tcg" (CLI,
// reports, caches) and the libvirt <domain type> each runs as ("kvm" / "qemu"). Every string
// for an accelerator is written here.
#include <array>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace topolab {

enum class Accelerator { kKvm, kTcg };
inline constexpr std::array<Accelerator, 2> kAccelerators = {Accelerator::kKvm, Accelerator::kTcg};

inline std::string to_string(Accelerator a) { return a == Accelerator::kKvm ? "kvm" : "tcg"; }

// "kvm" or "tcg".
inline Result<Accelerator> parse_accelerator(std::string_view text) {
  for (auto a : kAccelerators)
    if (text == to_string(a)) return a;
  return make_error(ErrorKind::input,
                    "expected accelerator kvm or tcg, got '" + std::string(text) + "'");
}

// libvirt's <domain type='...'>: KVM is "kvm", TCG is plain "qemu".
inline const char* libvirt_domain_type(Accelerator a) {
  return a == Accelerator::kKvm ? "kvm" : "qemu";
}
// A domain's type attribute: "kvm" is KVM, anything else runs on TCG.
inline Accelerator accelerator_of_domain_type(std::string_view type) {
  return type == libvirt_domain_type(Accelerator::kKvm) ? Accelerator::kKvm : Accelerator::kTcg;
}

}  // namespace topolab
