#pragma once
// What the report's topology pictures need from a store, per guest configuration: where its
// vCPUs were pinned on the host and the topology the guest reported.
//
// The pinning is the one the boot stored (boots.plan, schema 5: what the session booted),
// read through a validating reader (placement_from_stored), drawn on the stored host topology
// (experiments.host_topology, or the host's own under context.hosts), re-read through
// topology_from_json: a hostile store gives a note instead of a picture, never a crash or an
// unbounded one. Nothing is planned again here (issue 28).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "host/host_topology.hpp"
#include "orchestrator/results/report/stored_placement.hpp"

namespace topolab::store {
class ResultStore;
struct StoredExperiment;
struct StoredCell;
}  // namespace topolab::store

namespace topolab::report {

inline constexpr std::size_t kMaxPictureConfigs = 16;
// Hosts drawn from a store of several hosts (an experiment has at most 16; a store is input).
inline constexpr std::size_t kMaxPictureHosts = 16;

struct ConfigPicture {
  std::string label;  // the configuration's guest levels, "expose=flat policy=compact"
  std::optional<StoredPlacement> plan;
  std::string plan_note;  // why there is no plan (no guest, unreadable layout, ...)
  std::optional<HostTopology> seen;
  std::string seen_note;  // why there is no guest-seen topology
  bool mismatch = false;  // the guest saw something other than it was told
};

struct PictureData {
  std::optional<HostTopology> host;
  std::string host_note;               // why there is no host topology
  std::vector<ConfigPicture> configs;  // in cell order, at most kMaxPictureConfigs
  std::size_t configs_left_out = 0;
  // A store of several hosts (issue 16): one PictureData per host, in the store's host order,
  // each with that host's topology (read through its own connection) and its own cells' plans
  // and seen topologies; `host_uri` names it. Empty with one host (the fields above are its).
  std::string host_uri;
  std::vector<PictureData> per_host;
};

PictureData load_pictures(store::ResultStore& store, const store::StoredExperiment& exp,
                          const std::vector<store::StoredCell>& cells);

// "expose=flat policy=compact" from a stored config key ({"expose":"flat",...}); "(default)"
// for the empty one.
std::string config_label(const std::string& config_key);

}  // namespace topolab::report
