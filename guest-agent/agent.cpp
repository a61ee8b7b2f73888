#include "guest-agent/agent.hpp"

#include <algorithm>
#include <chrono>

#include "guest-agent/agent_version.hpp"
#include "guest-agent/benchmarks.hpp"

namespace topolab::agent {

namespace proto = protocol;
using nlohmann::json;

std::string apply_cmdline_faults(std::string_view cmdline, AgentOptions& options) {
  constexpr std::string_view kKey = "topolab.fault=";
  std::string problems;
  std::size_t pos = 0;
  while (pos < cmdline.size()) {
    std::size_t end = cmdline.find_first_of(" \t\n", pos);
    if (end == std::string_view::npos) end = cmdline.size();
    std::string_view word = cmdline.substr(pos, end - pos);
    pos = end + 1;
    constexpr std::string_view kAttempt = "topolab.boot_attempt=";
    if (word.substr(0, kAttempt.size()) == kAttempt) {
      std::string_view n = word.substr(kAttempt.size());
      if (n.size() == 1 && n[0] >= '1' && n[0] <= '9') {
        options.boot_attempt = n[0] - '0';
      } else {
        problems += (problems.empty() ? "" : "; ") +
                    std::string("topolab.boot_attempt: expected 1..9, got '") +
                    std::string(n.substr(0, 16)) + "'";
      }
      continue;
    }
    if (word.substr(0, kKey.size()) != kKey) continue;
    std::string_view v = word.substr(kKey.size());
    constexpr std::string_view kHang = "hang-after:";
    if (v == "garbage") {
      options.garbage = true;
    } else if (v == "hang-boot") {
      options.hang_boot = true;
    } else if (v == "hang-boot-first") {
      options.hang_boot_first = true;
    } else if (v == "stall-boot") {
      options.stall_boot = true;
    } else if (v == "none") {
      // an experiment's control level
    } else if (v.substr(0, kHang.size()) == kHang && v.size() > kHang.size() &&
               v.size() - kHang.size() <= 9 &&
               v.find_first_not_of("0123456789", kHang.size()) == std::string_view::npos) {
      options.hang_after = std::stoi(std::string(v.substr(kHang.size())));
    } else {
      problems += (problems.empty() ? "" : "; ") + std::string("topolab.fault: expected ") +
                  "none, garbage, hang-boot[-first], stall-boot or hang-after:N, got '" +
                  std::string(v.substr(0, 64)) + "'";
    }
  }
  return problems;
}

Agent::Agent(Platform& platform, AgentOptions options, std::ostream& log)
    : platform_(platform), options_(options), log_(log), settings_(log) {}

std::string Agent::hello_line() {
  proto::Hello h;
  h.agent_version = agent_version();
  h.uptime_ms = platform_.uptime_ms();
  h.kernel = platform_.kernel().substr(0, 256);
  h.cpu_model = platform_.cpu_model().substr(0, 256);
  auto topo = platform_.read_topology();
  if (topo) {
    topology_ = *topo;
    h.topology = platform_.topology_json(*topo);
  } else {
    topology_.reset();
    h.topology = nullptr;
    h.topology_error = topo.error().message;
  }
  h.settings = settings_.list();
  auto line = proto::encode_line(proto::hello_message(h));
  if (line) return *line;
  // A guest too large to describe in one line still says hello, with the reason instead of the
  // topology (kernel and CPU model are truncated above, so this one always fits).
  h.topology = nullptr;
  h.topology_error = "guest topology not sent: " + line.error().message;
  return proto::encode(proto::hello_message(h));
}

void Agent::reply(Output& out, const json& message) {
  if (options_.garbage) out.bytes += kGarbageLine;
  auto line = proto::encode_line(message);
  if (line) {
    out.bytes += *line;
    return;
  }
  // Never send what the host must discard: the same id gets an error it can show.
  std::optional<std::uint64_t> id;
  if (message.contains("id") && message["id"].is_number_unsigned()) {
    id = message["id"].get<std::uint64_t>();
  }
  out.bytes += proto::encode(proto::error_message(id, line.error().message));
}

json Agent::run(const proto::RunRequest& request) {
  auto result =
      run_named_benchmark(request.benchmark, request.params, topology_ ? &*topology_ : nullptr);
  if (!result) return proto::error_message(request.id, result.error().message);
  if (!result->is_object()) {
    return proto::error_message(
        request.id, "benchmark '" + request.benchmark + "' returned a non-object result");
  }
  if (!placement_.is_null()) (*result)["environment"]["placement"] = placement_;
  return proto::result_message(request.id, *result);
}

json Agent::configure(const proto::ConfigureRequest& request) {
  bool changed = false;
  auto seen = settings_.configure(request.settings, changed);
  // os.smt takes CPUs on- or offline: the benchmarks pin by the topology as it is now.
  if (changed) {
    auto topo = platform_.read_topology();
    if (topo) {
      topology_ = *topo;
    } else {
      topology_.reset();
    }
  }
  return proto::configured_message(request.id, seen);
}

Agent::Output Agent::on_bytes(std::string_view bytes) {
  Output out;
  reader_.feed(bytes);
  while (auto ev = reader_.next()) {
    if (ev->kind == proto::LineReader::Kind::kOversized) {
      reply(out, proto::error_message(std::nullopt, "line longer than " +
                                                        std::to_string(proto::kMaxLineBytes) +
                                                        " bytes discarded"));
      continue;
    }
    if (ev->kind == proto::LineReader::Kind::kSync) continue;  // partial line dropped
    Output one = on_line(ev->line);
    out.bytes += one.bytes;
    if (one.shutdown) {
      out.shutdown = true;
      break;
    }
  }
  return out;
}

Agent::Output Agent::on_line(std::string_view line) {
  Output out;
  auto msg = proto::decode(line);
  if (!msg) {
    reply(out, proto::error_message(std::nullopt, msg.error().message));
    return out;
  }
  if (msg->type == proto::type::kSync) {
    auto id = proto::require_id(*msg);
    if (!id) {
      reply(out, proto::error_message(std::nullopt, id.error().message));
      return out;
    }
    // A (re)connected host resyncs first: answer, then introduce ourselves again so it always
    // gets a fresh hello after its sync reply.
    out.bytes += proto::encode(proto::sync_message(*id));
    out.bytes += hello_line();
    return out;
  }
  if (options_.hang_after >= 0 && requests_ >= options_.hang_after) {
    log_ << "topolab-agent: --hang-after " << options_.hang_after << ": ignoring '" << msg->type
         << "'\n";
    return out;
  }
  ++requests_;
  if (msg->type == proto::type::kPing) {
    auto id = proto::require_id(*msg);
    reply(out, id ? proto::pong_message(*id) : proto::error_message(msg->id, id.error().message));
  } else if (msg->type == proto::type::kRun) {
    auto req = proto::parse_run(*msg);
    reply(out, req ? run(*req) : proto::error_message(msg->id, req.error().message));
  } else if (msg->type == proto::type::kPlacement) {
    auto vcpus = proto::parse_placement(*msg);
    if (vcpus) {
      placement_ = proto::placement_to_json(*vcpus);
    } else {
      reply(out, proto::error_message(msg->id, vcpus.error().message));
    }
  } else if (msg->type == proto::type::kConfigure) {
    auto req = proto::parse_configure(*msg);
    reply(out, req ? configure(*req) : proto::error_message(msg->id, req.error().message));
  } else if (msg->type == proto::type::kShutdown) {
    auto id = proto::require_id(*msg);
    if (id) {
      settings_.restore_all();
      reply(out, proto::ack_message(*id, proto::type::kShutdown));
      out.shutdown = true;
    } else {
      reply(out, proto::error_message(std::nullopt, id.error().message));
    }
  } else {
    reply(out, proto::error_message(msg->id, "unknown message type '" + msg->type +
                                                 "' (the agent accepts run, ping, placement, "
                                                 "configure, shutdown, sync)"));
  }
  return out;
}

bool Agent::session_timed_out(std::int64_t idle_ms, std::int64_t partial_ms) {
  if (reader_.pending_bytes() > 0 && partial_ms >= options_.line_timeout_ms) {
    log_ << "topolab-agent: a line stayed unfinished for " << partial_ms
         << " ms; ending the session\n";
    return true;
  }
  if (options_.idle_timeout_ms >= 0 && idle_ms >= options_.idle_timeout_ms) {
    log_ << "topolab-agent: no request for " << idle_ms << " ms; ending the session\n";
    return true;
  }
  return false;
}

bool Agent::serve(Transport& transport) {
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
  };
  for (;;) {
    auto connected = transport.wait_for_host();
    if (!connected) {
      log_ << "topolab-agent: " << transport.describe() << ": " << connected.error().message
           << "\n";
      return false;
    }
    reader_.reset();
    if (auto sent = transport.write_all(hello_line(), options_.write_timeout_ms); !sent) {
      log_ << "topolab-agent: " << sent.error().message << "; ending the session\n";
      transport.end_session();
      continue;
    }
    auto last_request = Clock::now(), line_started = Clock::now();
    for (;;) {
      // Wakes only when a bound can expire; with no bound an idle agent never wakes up.
      int wait_ms = -1;
      if (reader_.pending_bytes() > 0) {
        wait_ms = static_cast<int>(
            std::max<std::int64_t>(0, options_.line_timeout_ms - ms_since(line_started)));
      }
      if (options_.idle_timeout_ms >= 0) {
        int idle_left = static_cast<int>(
            std::max<std::int64_t>(0, options_.idle_timeout_ms - ms_since(last_request)));
        wait_ms = wait_ms < 0 ? idle_left : std::min(wait_ms, idle_left);
      }
      std::string bytes;
      const bool was_partial = reader_.pending_bytes() > 0;
      auto status = transport.read_some(bytes, wait_ms);
      if (!status) {
        log_ << "topolab-agent: " << status.error().message << "\n";
        break;
      }
      if (*status == ReadStatus::kHangup) break;
      if (*status == ReadStatus::kTimeout) {
        if (session_timed_out(ms_since(last_request), ms_since(line_started))) break;
        continue;
      }
      Output out = on_bytes(bytes);
      if (bytes.find('\n') != std::string::npos) last_request = Clock::now();
      if (!was_partial || bytes.find('\n') != std::string::npos) line_started = Clock::now();
      if (!out.bytes.empty()) {
        if (auto sent = transport.write_all(out.bytes, options_.write_timeout_ms); !sent) {
          log_ << "topolab-agent: " << sent.error().message << "; ending the session\n";
          break;
        }
      }
      if (out.shutdown) {
        transport.end_session();
        return true;
      }
    }
    // The host that asked for the settings is gone: the next one finds the guest as it was.
    settings_.restore_all();
    transport.end_session();
  }
}

}  // namespace topolab::agent
