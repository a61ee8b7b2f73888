#pragma once
// A libvirt URI with `user:password@` in it (redteam wave 3): topolab refuses it at every
// boundary (virt/connection_uri.hpp), but a store written before that refusal, or crafted, may
// still hold one; everything that shows a stored or refused URI shows it through here.
#include <string>
#include <string_view>

namespace topolab {

// Where a libvirt URI came from: a file's URIs (a hosts list, an experiment's [hosts]) are
// refused more than the command line's (virt/connection_uri.hpp says which). Here, below both
// the experiment model and the URI parser, so the model names it without the libvirt stage.
enum class UriSource { command_line, file };

// `uri` with the password of its `user:password@` part replaced by "***"; unchanged without one.
std::string redacted_uri(std::string_view uri);

}  // namespace topolab
