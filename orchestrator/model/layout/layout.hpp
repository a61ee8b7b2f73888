#pragma once
// A guest layout: how many L3 groups of how many cores/threads the guest gets, how that is
// told to the guest (exposure), how vCPUs are placed on the host, and the VFIO extras.
// Read from TOML files (templates/topologies/*.toml), overridable field by field.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cpu_list.hpp"
#include "common/result.hpp"
#include "orchestrator/model/layout/guest_edition.hpp"

namespace topolab {

enum class Exposure { kFlat, kSockets, kDies, kNuma };
enum class PlacementPolicy { kL3Aligned, kCompact, kScatter, kUnpinned, kExplicit };

struct HostDevice {
  std::string pci_address;  // canonical "0000:01:00.0"
  bool managed = true;
};

// Bounds of the guest's shape (validate_layout and the field setters check them).
inline constexpr int kMaxGroupsOrCores = 4096;
inline constexpr int kMaxThreadsPerCore = 8;
inline constexpr int kMaxNumaNodes = 64;
// ACPI SLIT: 10 is a node's distance to itself; 255 means "unreachable" and is not accepted.
inline constexpr int kLocalDistance = 10, kMaxDistance = 254;

struct Layout {
  std::string name, description;
  std::filesystem::path source_file;
  int l3_groups = 1, cores_per_group = 1, threads_per_core = 1;
  std::uint64_t memory_mib = 1024;
  // memory_mib was given (file, --memory, --set, a factor) rather than the default: `apply`
  // resizes an existing domain only then (issue 34); xml/boot always write memory_mib.
  bool memory_given = false;
  Exposure expose = Exposure::kFlat;
  PlacementPolicy policy = PlacementPolicy::kL3Aligned;
  std::optional<CpuList> host_cpus, housekeeping_cpus;
  std::vector<CpuList> explicit_cpus;  // policy explicit: host CPUs of vCPU i, one per vCPU
  std::string cpu_model;               // empty: chosen per accelerator and host vendor
  std::vector<std::string> cpu_features_disable, cpu_features_require;
  std::string kernel_cmdline_extra;
  // [guest] os: an edition of a guest OS (guest_edition.hpp: "windows-home", "linux"); nullopt
  // unknown. The doctor warns when the exposure has more sockets than the edition uses, and
  // names an edition it does not know.
  std::optional<GuestEdition> guest_os;
  std::vector<HostDevice> hostdevs;
  std::uint64_t hugepage_kib = 0;  // 0: no hugepages; 2048 or 1048576
  bool hugepages_locked = false;
  int iothreads = 0;
  bool hyperv = false;
  // Two levels (docs/layouts.md): the L3 groups split evenly and in order over numa_nodes guest
  // NUMA nodes; 0 means one level (no node level above the groups).
  int numa_nodes = 0;
  std::vector<int> memoryless_nodes;             // node indices without memory (sorted, unique)
  std::vector<std::vector<int>> node_distances;  // numa_nodes x numa_nodes; empty: default

  int vcpu_count() const;
  bool two_level() const { return numa_nodes > 0; }
  int groups_per_node() const { return two_level() ? l3_groups / numa_nodes : 1; }
  bool node_has_memory(int node) const;
  int cores_total() const { return l3_groups * cores_per_group; }
};

// Parses a layout file; errors are "FILE:LINE: key: expected ..., got ...".
Result<Layout> load_layout_file(const std::filesystem::path&);
Result<Layout> parse_layout(std::string_view toml, const std::string& origin);
// A file path, or the name of a preset in templates/topologies/ ("ryzen-1700x").
Result<Layout> load_layout_or_preset(std::string_view name_or_path);
// templates/topologies (TOPOLAB_TEMPLATES_DIR/topologies when that is set).
std::filesystem::path presets_dir();
std::vector<std::string> preset_names();

// Checks the values that do not depend on the host (positive counts, disjoint CPU sets,
// explicit list length, ...). parse_layout and set_layout_field callers run it.
Result<void> validate_layout(const Layout&);

// Sets one field by its file key ("expose", "policy", "host_cpus", "guest.l3_groups",
// "guest.memory_mib", "cpu.model", "memory.hugepages", ...; short aliases "groups", "cores",
// "threads", "memory" are accepted). Used by CLI overrides and experiment factors.
// Does not re-run validate_layout (several fields may change together).
Result<void> set_layout_field(Layout&, std::string_view key, std::string_view value);
// Every key set_layout_field accepts (for help texts and error messages).
const std::vector<std::string>& layout_field_keys();
// The file key set_layout_field stores `key` under ("groups", "L3-Groups" and
// "guest.l3_groups" all give "guest.l3_groups"); nullopt when it names no layout field.
// Experiment factors use it so that two spellings of one field are one factor.
std::optional<std::string> layout_field_key(std::string_view key);

// Canonical JSON of everything that shapes the guest (name, description and file left out):
// equal for two layouts exactly when they build the same guest. Stored per cell so that a
// resume can refuse results measured with a different layout.
nlohmann::json layout_to_json(const Layout&);

std::string to_string(Exposure);
Result<Exposure> parse_exposure(std::string_view);
std::string to_string(PlacementPolicy);
Result<PlacementPolicy> parse_policy(std::string_view);

// "1G" / "2M" / "1048576K" -> KiB; "" or "none" -> 0.
Result<std::uint64_t> parse_hugepage_size(std::string_view);
std::string hugepage_size_to_string(std::uint64_t kib);
// "0000:01:00.0" or "01:00.0" -> canonical lower-case "0000:01:00.0".
Result<std::string> parse_pci_address(std::string_view);

}  // namespace topolab
