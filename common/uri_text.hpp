#pragma once
// A libvirt URI with `user:password@` in it (redteam wave 3): topolab refuses it at every
// boundary (virt/connection_uri.hpp), but a store written before that refusal, or crafted, may
// still hold one; everything that shows a stored or refused URI shows it through here.
#include <string>
#include <string_view>

namespace topolab {

// `uri` with the password of its `user:password@` part replaced by "***"; unchanged without one.
std::string redacted_uri(std::string_view uri);

}  // namespace topolab
