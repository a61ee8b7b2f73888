// The message builders of protocol.hpp: each message type as the JSON object encode() writes.
#include "protocol/protocol.hpp"

namespace topolab::protocol {

using nlohmann::json;

json hello_message(const Hello& h) {
  json j = {
      {"type", type::kHello},     {"protocol", h.protocol}, {"agent_version", h.agent_version},
      {"uptime_ms", h.uptime_ms}, {"kernel", h.kernel},     {"cpu_model", h.cpu_model},
      {"topology", h.topology}};
  if (!h.topology_error.empty()) j["topology_error"] = h.topology_error;
  j["settings"] = settings_to_json(h.settings);
  return j;
}

json run_message(std::uint64_t id, const std::string& benchmark, const json& params) {
  return {{"type", type::kRun},
          {"id", id},
          {"benchmark", benchmark},
          {"params", params.is_null() ? json::object() : params}};
}

json result_message(std::uint64_t id, const json& result) {
  return {{"type", type::kResult}, {"id", id}, {"result", result}};
}

json error_message(std::optional<std::uint64_t> id, const std::string& message) {
  json j = {{"type", type::kError}, {"id", nullptr}, {"message", message}};
  if (id) j["id"] = *id;
  return j;
}

json ping_message(std::uint64_t id) { return {{"type", type::kPing}, {"id", id}}; }
json pong_message(std::uint64_t id) { return {{"type", type::kPong}, {"id", id}}; }
json placement_message(const json& vcpus) { return {{"type", type::kPlacement}, {"vcpus", vcpus}}; }
json placement_message(const std::vector<VcpuMapping>& vcpus) {
  return placement_message(placement_to_json(vcpus));
}
json shutdown_message(std::uint64_t id) { return {{"type", type::kShutdown}, {"id", id}}; }
json ack_message(std::uint64_t id, std::string_view request) {
  return {{"type", type::kAck}, {"id", id}, {"request", request}};
}
json sync_message(std::uint64_t id) { return {{"type", type::kSync}, {"id", id}}; }
json configure_message(std::uint64_t id, const std::map<std::string, json>& settings) {
  return {{"type", type::kConfigure}, {"id", id}, {"settings", settings}};
}
json configured_message(std::uint64_t id, const SettingStates& settings) {
  return {{"type", type::kConfigured}, {"id", id}, {"settings", settings_to_json(settings)}};
}

std::string sync_request_bytes(std::uint64_t id) {
  return std::string(1, kSyncByte) + encode(sync_message(id));
}

json placement_to_json(const std::vector<VcpuMapping>& vcpus) {
  json arr = json::array();
  for (const auto& v : vcpus)
    arr.push_back({{"vcpu", v.vcpu}, {"host_cpus", v.host_cpus.to_string()}});
  return arr;
}

}  // namespace topolab::protocol
