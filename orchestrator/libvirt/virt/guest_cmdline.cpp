#include "orchestrator/libvirt/virt/guest_cmdline.hpp"

#include <sstream>
#include <vector>

#include "orchestrator/libvirt/virt/boot_watchdog.hpp"

namespace topolab::virt {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "tsc=reliable" -> "tsc"; a word without '=' is its own parameter name.
std::string param_name(const std::string& word) { return word.substr(0, word.find('=')); }

}  // namespace

std::string guest_cmdline(const std::string& cmdline, bool verbose, bool tcg,
                          const std::string& user_extra) {
  std::string out = verbose ? verbose_cmdline(cmdline) : cmdline;
  if (!tcg) return out;
  const auto given = words(out + " " + user_extra);
  for (const auto& opt : words(kTcgKernelOptions)) {
    bool set = false;
    for (const auto& w : given) set = set || param_name(w) == param_name(opt);
    if (!set) out += (out.empty() ? "" : " ") + opt;
  }
  return out;
}

}  // namespace topolab::virt
