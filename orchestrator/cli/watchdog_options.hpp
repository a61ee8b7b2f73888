#pragma once
// `--boot-retries N` and `--boot-watchdog MS`, shared by `boot` and `run` (the boot watchdog,
// docs/lifecycle.md): a guest whose console stays silent before hello is destroyed and booted
// again.
#include <CLI/CLI.hpp>
#include <charconv>
#include <string>

#include "orchestrator/libvirt/virt/boot_watchdog.hpp"
#include "orchestrator/run/experiment/boot_settings.hpp"

namespace topolab::cli {

inline void add_watchdog_options(CLI::App* cmd, int& boot_retries, int& watchdog_ms) {
  cmd->add_option("--boot-retries", boot_retries,
                  "boots of a hung guest retried (boot watchdog; default " +
                      std::to_string(virt::kDefaultBootRetries) + ")")
      ->check(CLI::Range(0, experiment::kMaxBootRetries));
  cmd->add_option("--boot-watchdog", watchdog_ms,
                  "ms of console silence before hello that count as a hang (0: derived from "
                  "vCPUs and accelerator; -1: off; own disks: counted from the kernel's first "
                  "console line)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            long long ms = 0;
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), ms);
            const bool whole = ec == std::errc() && end == v.data() + v.size();
            if (whole && experiment::valid_watchdog_ms(ms)) return "";
            return "expected -1 (off), 0 (derived) or 1000..3600000 ms, got " + v;
          },
          "-1|0|1000..3600000"));
}

}  // namespace topolab::cli
