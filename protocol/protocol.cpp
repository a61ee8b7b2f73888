#include "protocol/protocol.hpp"

#include <algorithm>
#include <limits>

#include "common/json_text.hpp"
#include "common/utf8.hpp"
#include "protocol/json_error.hpp"

namespace topolab::protocol {

using nlohmann::json;

int protocol_version() { return kProtocolVersion; }

// ---- encoding -------------------------------------------------------------------------------

std::string encode(const json& message) {
  std::string line = json_line(message);
  line.push_back('\n');
  return line;
}

Result<std::string> encode_line(const json& message) {
  std::string line = encode(message);
  if (line.size() - 1 <= kMaxLineBytes) return line;
  std::string type = "message";
  if (message.is_object() && message.contains("type") && message["type"].is_string()) {
    type = message["type"].get<std::string>().substr(0, 32);
  }
  return make_error(ErrorKind::input, "'" + type + "' of " + std::to_string(line.size() - 1) +
                                          " bytes exceeds the protocol's line cap of " +
                                          std::to_string(kMaxLineBytes) + " bytes; not sent");
}

// ---- decoding -------------------------------------------------------------------------------

std::optional<std::size_t> find_invalid_utf8(std::string_view s) {
  std::uint32_t cp = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence(s, i, cp);
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

namespace {

std::string excerpt(std::string_view line) {
  constexpr std::size_t kMax = 60;
  std::string out;
  for (char c : line.substr(0, kMax)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  if (line.size() > kMax) out += "...";
  return out;
}

std::string type_name(const json& v) { return v.type_name(); }

Error field_error(const Message& m, std::string_view field, std::string_view expected,
                  const json* value) {
  std::string text = "'" + m.type + "' message: field '" + std::string(field) + "' must be " +
                     std::string(expected);
  if (value == nullptr) {
    text += ", but it is missing";
  } else {
    text += ", got " + type_name(*value) + " " + excerpt(json_line(*value));
  }
  return make_error(ErrorKind::input, text);
}

// JSON nesting is bounded before parsing: nlohmann's dump() and comparisons recurse, so a guest
// line of 200000 '[' (well under kMaxLineBytes) would overflow the host's stack when the value
// is later printed or stored. A NUL byte ends nlohmann's input early, so "{...}\0junk" would
// otherwise pass as valid JSON.
constexpr int kMaxJsonDepth = 64;

std::optional<std::string> structural_problem(std::string_view line) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\0') return "NUL byte at offset " + std::to_string(i);
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        return "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

const json* find_field(const json& body, std::string_view name) {
  auto it = body.find(name);
  return it == body.end() ? nullptr : &*it;
}

Result<std::string> string_field(const Message& m, std::string_view name,
                                 std::size_t max_bytes = kMaxLineBytes) {
  const json* v = find_field(m.body, name);
  if (v == nullptr || !v->is_string()) return field_error(m, name, "a string", v);
  if (v->get_ref<const std::string&>().size() > max_bytes) {
    return make_error(ErrorKind::input, "'" + m.type + "' message: field '" + std::string(name) +
                                            "' is longer than " + std::to_string(max_bytes) +
                                            " bytes");
  }
  return v->get<std::string>();
}

Result<std::uint64_t> uint_field(const Message& m, std::string_view name) {
  const json* v = find_field(m.body, name);
  if (v == nullptr || !v->is_number_integer() ||
      (v->is_number_integer() && !v->is_number_unsigned() && v->get<std::int64_t>() < 0)) {
    return field_error(m, name, "a non-negative integer", v);
  }
  return v->get<std::uint64_t>();
}

}  // namespace

Result<json> parse_json_text(std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes) {
    return make_error(ErrorKind::input, std::to_string(text.size()) +
                                            " bytes of JSON exceed the limit of " +
                                            std::to_string(max_bytes) + " bytes");
  }
  if (auto bad = find_invalid_utf8(text)) {
    return make_error(ErrorKind::input, "invalid UTF-8 at byte " + std::to_string(*bad));
  }
  if (auto problem = structural_problem(text))
    return make_error(ErrorKind::input, "not valid JSON: " + *problem);
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded())
    return make_error(ErrorKind::input,
                      "not valid JSON " + json_syntax_error(text) + ": '" + excerpt(text) + "'");
  return value;
}

Result<Message> decode(std::string_view line) {
  if (line.size() > kMaxLineBytes) {
    return make_error(ErrorKind::input, "line of " + std::to_string(line.size()) +
                                            " bytes exceeds the limit of " +
                                            std::to_string(kMaxLineBytes) + " bytes");
  }
  if (auto bad = find_invalid_utf8(line)) {
    return make_error(ErrorKind::input, "invalid UTF-8 at byte " + std::to_string(*bad) +
                                            " of line '" + excerpt(line) + "'");
  }
  if (auto problem = structural_problem(line)) {
    return make_error(ErrorKind::input,
                      "not valid JSON: " + *problem + ": '" + excerpt(line) + "'");
  }
  json body = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return make_error(ErrorKind::input,
                      "not valid JSON " + json_syntax_error(line) + ": '" + excerpt(line) + "'");
  }
  if (!body.is_object()) {
    return make_error(ErrorKind::input, "expected a JSON object, got " + type_name(body) + ": '" +
                                            excerpt(line) + "'");
  }
  Message m;
  auto t = body.find("type");
  if (t == body.end() || !t->is_string()) {
    return make_error(
        ErrorKind::input,
        "message field 'type' must be a string" +
            std::string(t == body.end() ? ", but it is missing" : ", got " + type_name(*t)) +
            ": '" + excerpt(line) + "'");
  }
  m.type = t->get<std::string>();
  auto id = body.find("id");
  if (id != body.end() && !id->is_null()) {
    if (!id->is_number_integer() || (!id->is_number_unsigned() && id->get<std::int64_t>() < 0)) {
      return make_error(ErrorKind::input,
                        "'" + m.type +
                            "' message: field 'id' must be a non-negative integer, got " +
                            type_name(*id) + " " + excerpt(id->dump()));
    }
    m.id = id->get<std::uint64_t>();
  }
  m.body = std::move(body);
  return m;
}

// ---- parsers --------------------------------------------------------------------------------

Result<std::uint64_t> require_id(const Message& m) {
  if (!m.id) return field_error(m, "id", "a non-negative integer", find_field(m.body, "id"));
  return *m.id;
}

static Result<Hello> read_hello(const Message& m) {
  if (m.type != type::kHello)
    return make_error(ErrorKind::input, "expected a 'hello' message, got '" + m.type + "'");
  Hello h;
  const json* proto = find_field(m.body, "protocol");
  if (proto == nullptr || !proto->is_number_integer()) {
    return field_error(m, "protocol", "an integer protocol version", proto);
  }
  // Compared at the number's own width (issue 32): read as an int, 2^32+1 was 1 (accepted) and
  // 2^64-1 was -1; the message shows the number as sent.
  const bool same = proto->is_number_unsigned() ? proto->get<std::uint64_t>() ==
                                                      static_cast<std::uint64_t>(kProtocolVersion)
                                                : proto->get<std::int64_t>() == kProtocolVersion;
  if (!same) {
    return make_error(ErrorKind::input, "'hello' message: unsupported protocol version " +
                                            proto->dump() + " (this side speaks " +
                                            std::to_string(kProtocolVersion) + ")");
  }
  h.protocol = kProtocolVersion;
  // Every hello field is bounded and typed here, the one place the host reads a hello.
  TL_ASSIGN(h.agent_version, string_field(m, "agent_version", kMaxNameBytes));
  TL_ASSIGN(h.uptime_ms, uint_field(m, "uptime_ms"));
  TL_ASSIGN(h.kernel, string_field(m, "kernel", kMaxTextBytes));
  TL_ASSIGN(h.cpu_model, string_field(m, "cpu_model", kMaxTextBytes));
  const json* topo = find_field(m.body, "topology");
  if (topo == nullptr || !(topo->is_object() || topo->is_null())) {
    return field_error(m, "topology", "an object (or null)", topo);
  }
  if (auto bounded = check_bounded_json(*topo, "topology"); !bounded) {
    return bounded.error().context("'hello' message");
  }
  h.topology = *topo;
  if (const json* err = find_field(m.body, "topology_error"); err && !err->is_null()) {
    TL_ASSIGN(h.topology_error, string_field(m, "topology_error", kMaxTextBytes));
  }
  // Absent: an agent that can change no setting on this guest (the same as {}).
  if (const json* settings = find_field(m.body, "settings"); settings && !settings->is_null()) {
    TL_ASSIGN(h.settings, parse_setting_states(*settings, "'hello' message"));
  }
  return h;
}

Result<RunRequest> parse_run(const Message& m) {
  RunRequest r;
  TL_ASSIGN(r.id, require_id(m));
  TL_ASSIGN(r.benchmark, string_field(m, "benchmark"));
  if (r.benchmark.empty())
    return make_error(ErrorKind::input, "'run' message: field 'benchmark' is empty");
  const json* params = find_field(m.body, "params");
  if (params != nullptr && !params->is_null()) {
    if (!params->is_object()) return field_error(m, "params", "an object", params);
    r.params = *params;
  }
  return r;
}

static Result<BenchmarkResult> read_result(const Message& m) {
  TL_TRY(require_id(m));
  const json* result = find_field(m.body, "result");
  if (result == nullptr || !result->is_object())
    return field_error(m, "result", "an object", result);
  // Where the vCPUs ran is the host's measurement (issue 26): a guest cannot report it.
  if (result->contains("host_telemetry"))
    return make_error(ErrorKind::input,
                      "guest result: field 'host_telemetry' is measured by the host, a guest "
                      "must not send it");
  return validate_result(*result);
}

// What the agent sends (hello, result, error, configured) is read only by the host: a message it
// refuses is the guest's failure (exit 76 at the CLI), not the user's input.
template <typename T>
static Result<T> refused_from_guest(Result<T> parsed) {
  if (parsed) return parsed;
  return Error{parsed.error().message, ErrorKind::guest};
}

Result<Hello> parse_hello(const Message& m) { return refused_from_guest(read_hello(m)); }
Result<BenchmarkResult> parse_result(const Message& m) {
  return refused_from_guest(read_result(m));
}
Result<std::string> parse_error(const Message& m) {
  return refused_from_guest(string_field(m, "message"));
}

Result<std::vector<VcpuMapping>> parse_placement(const Message& m) {
  const json* vcpus = find_field(m.body, "vcpus");
  if (vcpus == nullptr || !vcpus->is_array()) return field_error(m, "vcpus", "an array", vcpus);
  std::vector<VcpuMapping> out;
  for (std::size_t i = 0; i < vcpus->size(); ++i) {
    const json& e = (*vcpus)[i];
    const std::string where = "'placement' message: vcpus[" + std::to_string(i) + "]";
    if (!e.is_object())
      return make_error(ErrorKind::input, where + " must be an object, got " + type_name(e));
    auto v = e.find("vcpu");
    if (v == e.end() || !v->is_number_integer() || v->get<std::int64_t>() < 0 ||
        v->get<std::int64_t>() > std::numeric_limits<int>::max()) {
      return make_error(ErrorKind::input, where + ".vcpu must be a non-negative integer");
    }
    auto hc = e.find("host_cpus");
    if (hc == e.end() || !hc->is_string()) {
      return make_error(ErrorKind::input,
                        where + ".host_cpus must be a CPU list string such as \"8\" or \"8-9\"");
    }
    TL_ASSIGN_CTX(auto cpus, CpuList::parse(hc->get<std::string>()), where + ".host_cpus");
    out.push_back({v->get<int>(), cpus});
  }
  return out;
}

namespace {

// configure and configured: an id and a "settings" object that `parse_settings` reads (the
// request's values or the reply's states), its errors placed in `where`.
template <typename Parsed, typename ParseSettings>
Result<Parsed> parse_id_and_settings(const Message& m, ParseSettings parse_settings,
                                     const std::string& where) {
  Parsed r;
  TL_ASSIGN(r.id, require_id(m));
  const json* settings = find_field(m.body, "settings");
  if (settings == nullptr) return field_error(m, "settings", "an object", settings);
  TL_ASSIGN(r.settings, parse_settings(*settings, where));
  return r;
}

}  // namespace

Result<ConfigureRequest> parse_configure(const Message& m) {
  return parse_id_and_settings<ConfigureRequest>(m, parse_setting_request, "'configure' message");
}

Result<ConfigureReply> parse_configured(const Message& m) {
  return refused_from_guest(
      parse_id_and_settings<ConfigureReply>(m, parse_setting_states, "'configured' message"));
}

bool is_host_request(std::string_view t) {
  return t == type::kRun || t == type::kPing || t == type::kPlacement || t == type::kShutdown ||
         t == type::kSync || t == type::kConfigure;
}
}  // namespace topolab::protocol
