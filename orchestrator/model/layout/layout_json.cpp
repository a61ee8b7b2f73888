#include "orchestrator/model/layout/layout_fields.hpp"

namespace topolab {

nlohmann::json layout_to_json(const Layout& l) {
  // Keys are the file keys, so that a difference can be named as the user wrote it.
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : layout_fields()) {
    if (!f.to_json) continue;
    auto value = f.to_json(l);
    if (!value.is_discarded()) out[std::string(f.key)] = std::move(value);
  }
  nlohmann::json hostdevs = nlohmann::json::array();
  for (const auto& d : l.hostdevs)
    hostdevs.push_back({{"address", d.pci_address}, {"managed", d.managed}});
  out["hostdev"] = std::move(hostdevs);
  return out;
}

}  // namespace topolab
