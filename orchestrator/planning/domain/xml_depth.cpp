#include "orchestrator/planning/domain/xml_depth.hpp"

namespace topolab::domain {

std::size_t xml_depth(const pugi::xml_node& root) {
  std::size_t depth = 0, deepest = 0;
  pugi::xml_node n = root.first_child();
  while (n) {
    if (n.type() == pugi::node_element && depth + 1 > deepest) deepest = depth + 1;
    if (n.first_child()) {  // descend
      n = n.first_child();
      ++depth;
      continue;
    }
    while (n && !n.next_sibling()) {  // climb until a sibling exists
      n = n.parent();
      if (n == root) return deepest;
      --depth;
    }
    if (n) n = n.next_sibling();
  }
  return deepest;
}

}  // namespace topolab::domain
