#pragma once
// Who created a domain: every topolab domain is named `topolab-<layout>-<runid>` and carries
//   <metadata><topolab:run xmlns:topolab='https://topolab.dev/xmlns/1' id='RUNID' pid='PID'
//                          start='STARTTIME'/></metadata>
// so a later run can tell leftovers of a dead run (SIGKILL, crash) from a live run's domains.
// `start` is the creating process's start time (field 22 of /proc/PID/stat): a recycled PID
// does not make a dead run look alive.
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace topolab::virt {

inline constexpr std::string_view kDomainPrefix = "topolab-";
inline constexpr std::string_view kMetadataUri = "https://topolab.dev/xmlns/1";
inline constexpr std::string_view kMetadataPrefix = "topolab";

struct RunOwner {
  std::string run_id;
  long pid = 0;
  unsigned long long start_time = 0;  // 0: unknown (then only the PID is checked)
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

// The domain XML with our <topolab:run> element added under <metadata> (created if missing).
Result<std::string> add_run_metadata(std::string_view domain_xml, const RunOwner& owner);
// Reads the <topolab:run> element from either a full domain XML or the element alone (as
// virDomainGetMetadata returns it). nullopt when absent or malformed.
std::optional<RunOwner> parse_run_metadata(std::string_view xml);

}  // namespace topolab::virt
