#pragma once
// A depth bound for XML documents read from files (issue 12 class 3, redteam): pugixml parses
// deep documents without recursion, but writing one back indents every level, so 100 000
// nested elements in a --base template became ~10 GB of indentation (bad_alloc).
#include <cstddef>
#include <pugixml.hpp>

namespace topolab::domain {

inline constexpr std::size_t kMaxXmlDepth = 64;

// Deepest element nesting of the document (iterative: no recursion on input depth).
std::size_t xml_depth(const pugi::xml_node& root);

}  // namespace topolab::domain
