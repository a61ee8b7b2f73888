#pragma once
// Who created a domain: every topolab domain is named `topolab-<layout>-<runid>` and carries
//   <metadata><topolab:run xmlns:topolab='https://topolab.dev/xmlns/1' id='RUNID' pid='PID'
//                          start='STARTTIME' machine='MACHINEID' template='DOMAIN'/></metadata>
// so a later run can tell leftovers of a dead run (SIGKILL, crash) from a live run's domains.
// `start` is the creating process's start time (field 22 of /proc/PID/stat): a recycled PID
// does not make a dead run look alive. `machine` is the creating machine's /etc/machine-id
// (issue 16): on a host reached through a remote connection, a domain of another
// orchestrator machine carries a PID that means nothing here and is never judged stale.
// `template` (issue 34) is present on a copy of an existing domain (`run --domain T`): the name
// of T, so that the libvirt hook can isolate the copy as it isolates T.
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.hpp"

namespace topolab::virt {

inline constexpr std::string_view kDomainPrefix = "topolab-";
inline constexpr std::string_view kMetadataUri = "https://topolab.dev/xmlns/1";
inline constexpr std::string_view kMetadataPrefix = "topolab";

struct RunOwner {
  RunOwner() = default;
  // {run_id, pid, start_time} as before `machine` existed (a constructor, not an aggregate,
  // so those initializers stay warning-free).
  RunOwner(std::string id, long p, unsigned long long start, std::string m = {})
      : run_id(std::move(id)), pid(p), start_time(start), machine(std::move(m)) {}
  std::string run_id;
  long pid = 0;
  unsigned long long start_time = 0;  // 0: unknown (then only the PID is checked)
  std::string machine;                // 32 hex digits; "": unknown (metadata before issue 16)
  std::string template_domain;        // the domain this one is a copy of; "": not a copy
};

// A new run id: UTC time plus random hex, e.g. "20261129T210512-3fa2c1". Safe in names/paths.
std::string make_run_id();
// "" when `run_id` can name a domain, a run folder and an overlay file as it is (common/
// safe_name's rule without '+'): the one check every user-given run id (boot --run-id) passes
// before anything is named after it; otherwise "run id 'X': <why>".
std::string run_id_problem(std::string_view run_id);
// `topolab-<layout>-<runid>`, characters libvirt or paths dislike replaced by '_'.
std::string domain_name_for(std::string_view layout, std::string_view run_id);

RunOwner current_run_owner(const std::string& run_id);
// Start time of a process from /proc/PID/stat, nullopt when it does not exist.
std::optional<unsigned long long> process_start_time(long pid);
// True when the owner process still exists (same PID and, when known, same start time).
bool run_owner_alive(const RunOwner& owner);
// This machine's /etc/machine-id (32 lowercase hex digits), "" when absent or malformed.
const std::string& this_machine_id();
// True when the owner ran on this machine (or its machine is unknown): only then can
// run_owner_alive answer for it.
bool owner_on_this_machine(const RunOwner& owner);

// The domain XML with our <topolab:run> element added under <metadata> (created if missing).
Result<std::string> add_run_metadata(std::string_view domain_xml, const RunOwner& owner);
// Reads the <topolab:run> element from either a full domain XML or the element alone (as
// virDomainGetMetadata returns it). nullopt when absent or malformed.
std::optional<RunOwner> parse_run_metadata(std::string_view xml);

}  // namespace topolab::virt
