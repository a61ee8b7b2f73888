#include "orchestrator/run/experiment/boot_settings.hpp"

namespace topolab::experiment {
namespace {

Error at(const std::string& origin, const toml::node& n, const std::string& msg) {
  return make_error(ErrorKind::input,
                    origin + ":" + std::to_string(n.source().begin.line) + ": " + msg);
}

}  // namespace

Result<BootSettings> parse_boot_settings(const toml::node& table, const std::string& origin) {
  auto t = table.as_table();
  if (!t) return at(origin, table, "'boot': expected a table ([boot] with retries, watchdog_ms)");
  BootSettings b;
  for (const auto& [k, v] : *t) {
    auto i = v.as_integer();
    if (k == "retries") {
      if (!i || i->get() < 0 || i->get() > kMaxBootRetries) {
        return at(origin, v,
                  "'boot.retries': expected an integer 0.." + std::to_string(kMaxBootRetries));
      }
      b.retries = static_cast<int>(i->get());
    } else if (k == "watchdog_ms") {
      if (!i || !valid_watchdog_ms(i->get())) {
        return at(origin, v,
                  "'boot.watchdog_ms': expected -1 (off), 0 (derived) or 1000..3600000 ms");
      }
      b.watchdog_ms = static_cast<int>(i->get());
    } else {
      return at(origin, v,
                "unknown key 'boot." + std::string(k.str()) + "': expected retries or watchdog_ms");
    }
  }
  return b;
}

}  // namespace topolab::experiment
