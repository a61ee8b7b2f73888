// `topolab run EXPERIMENT [--store FILE] [--connect URI]... [--accel auto|kvm|tcg]
//                         [--repetitions N] [--seed N] [--shard K/N] [--allow-host-settings]
//                         [--json] [-q]`
// `topolab run EXPERIMENT --list-shards N [--json]`: which configurations and cells each of N
// shards holds (docs/scale-out.md); nothing is run or opened.
// --connect may be given several times (issue 16): the hosts of the run, replacing the file's
// `hosts`. Each host gets its own backend, built from its URI and nothing else.
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json_text.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/watchdog_options.hpp"
#include "orchestrator/guest/remote/storage_pool.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "orchestrator/run/experiment/backend_factory.hpp"
#include "orchestrator/run/experiment/experiment.hpp"
#include "orchestrator/run/experiment/hosts.hpp"
#include "orchestrator/run/experiment/matrix.hpp"
#include "orchestrator/run/experiment/runner.hpp"
#include "orchestrator/run/experiment/shard.hpp"

namespace topolab::cli {
namespace {

class RunCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("run", "Run an experiment file into a results store");
    cmd->add_option("experiment", file_, "Experiment file (TOML)")->required();
    cmd->add_option("--store", store_, "SQLite results store (default: <name>.db)");
    cmd->add_option("-c,--connect", connect_,
                    "libvirt URI of a host; repeat for several hosts (overrides the file's "
                    "hosts; default qemu:///system)")
        // One URI per -c: `run -c URI FILE` must not read FILE as a second URI.
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->add_option("--accel", options_.accel, "auto | kvm | tcg")
        ->check(CLI::IsMember(virt::accel_mode_names()));
    cmd->add_option("--repetitions", repetitions_, "Override the file's repetitions")
        ->check(CLI::Range(1, 1000));
    // Parsed here, not by CLI11: its integer conversion let 99999999999999999999 through
    // (redteam); -1 once meant "none".
    cmd->add_option("--seed", seed_text_, "Override the file's seed of the run order")
        ->check([](const std::string& v) {
          return parse_seed(v) ? std::string()
                               : "expected an integer 0.." +
                                     std::to_string(std::numeric_limits<long long>::max());
        });
    cmd->add_option("--agent", options_.agent_binary, "Agent binary for backend \"host\"");
    cmd->add_flag("--allow-host-settings", options_.allow_host_settings,
                  "backend \"host\": let os.* change this host's own settings (each changed "
                  "value is put back on every exit, SIGINT and SIGTERM included)");
    cmd->add_option("--pool", options_.pool.name,
                    "remote hosts: libvirt storage pool the kernel and initramfs are uploaded "
                    "into (default topolab)")
        ->type_name("NAME");
    cmd->add_option("--pool-path", options_.pool.path,
                    "remote hosts: its directory on each host where the pool is created "
                    "(default /var/lib/libvirt/topolab)")
        ->type_name("PATH");
    add_watchdog_options(cmd, options_.boot_retries, options_.boot_watchdog_ms);
    // Parsed by parse_shard, not CLI11: one message for 0/3, 4/3, 1/0 and non-numbers.
    cmd->add_option("--shard", shard_text_,
                    "Run only the K-th of N parts (split by guest configuration)")
        ->type_name("K/N");
    auto* list = cmd->add_option("--list-shards", list_shards_text_,
                                 "Print which configurations and cells each of N shards holds")
                     ->type_name("N");
    list->excludes(cmd->get_option("--shard"));
    cmd_ = cmd;
    cmd->add_flag("--json", json_, "Print the run summary as JSON on stdout");
    return cmd;
  }

  int run() override {
    // Checked before anything is read or contacted (used for remote hosts only).
    if (auto p = remote::pool_spec_problem(options_.pool); !p.empty())
      return fail("run", make_error(ErrorKind::input, p));
    experiment::Overrides overrides;
    if (repetitions_ > 0) overrides.repetitions = repetitions_;
    if (auto seed = parse_seed(seed_text_)) overrides.seed = *seed;
    overrides.hosts = connect_;
    auto e = experiment::load_experiment_file(file_, overrides);
    if (!e) return fail("run", e.error());
    apply_boot_settings(e->boot);
    if (!list_shards_text_.empty()) return list_shards(*e);
    experiment::Shard shard;
    if (!shard_text_.empty()) {
      auto parsed = experiment::parse_shard(shard_text_);
      if (!parsed) return fail("run", parsed.error());
      shard = *parsed;
    }
    if (store_.empty()) store_ = e->name + ".db";
    std::error_code ec;
    const bool store_existed = std::filesystem::exists(std::filesystem::symlink_status(store_, ec));
    auto store = store::ResultStore::open(store_);
    if (!store) return fail("run", store.error());
    // A run refused before it booted anything (a host backend given os.* without the option, a
    // shard beyond the configurations, a host that cannot be prepared) leaves no new store.
    auto refused = [&](const Error& err) {
      if (!store_existed && !has_boots(**store)) {
        store->reset();
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
          std::filesystem::remove(store_ + suffix, ec);
      }
      return fail("run", err);
    };
    auto backends = make_backends(*e);
    if (!backends) return refused(backends.error());
    std::vector<experiment::HostSlot> slots;
    for (auto& b : *backends) slots.push_back({b->host(), b.get()});
    // Progress is information: -q (or --log-level warn and above) silences it.
    auto progress =
        experiment::Progress::for_stderr(logging::console_level() > logging::Level::info);
    auto summary = experiment::run_experiment(*e, slots, **store, progress, shard);
    if (!summary) return refused(summary.error());
    print_summary(*e, *summary);
    return to_int(summary->cells_failed > 0 ? ExitCode::mismatch : ExitCode::ok);
  }

 private:
  // Has any experiment of the store a boot (a result or a failure worth keeping)? Unreadable:
  // yes, keep it.
  static bool has_boots(store::ResultStore& s) {
    auto exps = s.experiments();
    if (!exps) return true;
    for (const auto& x : *exps) {
      auto boots = s.boots(x.id);
      if (!boots || !boots->empty()) return true;
    }
    return false;
  }

  // One backend per host, each from its own URI (the file's hosts or --connect); none named:
  // the one default connection, as before issue 16.
  Result<std::vector<std::unique_ptr<experiment::Backend>>> make_backends(
      const experiment::Experiment& e) {
    std::vector<std::unique_ptr<experiment::Backend>> out;
    std::vector<std::string> hosts = e.hosts;
    if (hosts.empty()) hosts.push_back("");
    for (const auto& host : hosts) {
      experiment::BackendOptions o = options_;
      // Opened as the source allows (a file's never prompts), named as written.
      o.connect_uri = experiment::host_connect_uri(host, e.hosts_source);
      o.host = host;
      auto b = experiment::make_backend(e.backend, o);
      if (!b) return b.error();
      out.push_back(std::move(*b));
    }
    return out;
  }

  int list_shards(const experiment::Experiment& e) {
    auto count = experiment::parse_shard_count(list_shards_text_);
    if (!count) return fail("run", count.error().context("--list-shards"));
    const auto cells = experiment::expand_cells(e);
    const auto configs = experiment::group_by_configuration(e, cells);
    auto listing = experiment::shard_listing(e, cells, configs, *count);
    if (!listing) return fail("run", listing.error());
    if (json_) {
      std::cout << json_document({{"experiment", e.name}, {"shards", *listing}}) << std::flush;
      return to_int(ExitCode::ok);
    }
    for (const auto& s : *listing) {
      std::printf("shard %s: %zu configuration(s), %zu cell(s)\n",
                  s["shard"].get<std::string>().c_str(), s["configurations"].size(),
                  s["cells"].size());
      for (const auto& c : s["cells"]) std::printf("  %s\n", c.get<std::string>().c_str());
    }
    return to_int(ExitCode::ok);
  }

  void print_summary(const experiment::Experiment& e, const experiment::RunSummary& s) {
    // A host with failed cells is named on stderr, whatever the output format.
    for (const auto& h : s.hosts)
      if (h.cells_failed > 0)
        print_error("run", "host " + h.host + ": " + std::to_string(h.cells_failed) +
                               " cell(s) failed" +
                               (h.unreachable.empty() ? "" : "; unreachable: " + h.unreachable));
    const experiment::RunSummary* summary = &s;
    if (json_) {
      auto j = summary->to_json();
      j["experiment"] = e.name;
      j["store"] = store_;
      if (!shard_text_.empty()) j["shard"] = shard_text_;
      std::cout << json_document(j) << std::flush;
    } else {
      const std::string unfit =
          summary->cells_does_not_fit
              ? ", " + std::to_string(summary->cells_does_not_fit) + " do not fit their host"
              : "";
      const std::string reboots =
          summary->hang_reboots
              ? " (" + std::to_string(summary->hang_reboots) + " after a guest stopped answering)"
              : "";
      std::printf(
          "%s: %d cells (%d done, %d failed, %d with topology mismatch%s), %d boots%s, "
          "%d runs executed, %d skipped, %d failed; store %s\n",
          e.name.c_str(), summary->cells, summary->cells_done, summary->cells_failed,
          summary->cells_mismatch, unfit.c_str(), summary->boots, reboots.c_str(),
          summary->runs_executed, summary->runs_skipped, summary->runs_failed, store_.c_str());
      if (s.hosts.size() > 1)
        for (const auto& h : s.hosts)
          std::printf("  %s: %d done, %d failed, %d do not fit, %d boots, %d runs executed%s\n",
                      h.host.c_str(), h.cells_done, h.cells_failed, h.cells_does_not_fit, h.boots,
                      h.runs_executed, h.unreachable.empty() ? "" : " (unreachable)");
    }
  }

  // The file's [boot] values where the command line did not give the option (it wins).
  void apply_boot_settings(const experiment::BootSettings& b) {
    if (b.retries && cmd_->count("--boot-retries") == 0) options_.boot_retries = *b.retries;
    if (b.watchdog_ms && cmd_->count("--boot-watchdog") == 0)
      options_.boot_watchdog_ms = *b.watchdog_ms;
  }

  CLI::App* cmd_ = nullptr;
  std::string file_, store_;
  std::vector<std::string> connect_;
  experiment::BackendOptions options_;
  int repetitions_ = 0;
  std::string seed_text_;
  std::string shard_text_, list_shards_text_;

  // 0..LLONG_MAX (what an experiment file's TOML integer can hold), all digits, no overflow.
  static std::optional<std::uint64_t> parse_seed(const std::string& v) {
    long long n = -1;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < 0) return std::nullopt;
    return static_cast<std::uint64_t>(n);
  }
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_run_command() { return std::make_unique<RunCommand>(); }

}  // namespace topolab::cli
