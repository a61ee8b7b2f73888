#pragma once
// `topolab apply DOMAIN --undo`: defines again the XML the last `apply` of DOMAIN saved in its
// backup folder (DOMAIN.YYYYMMDDTHHMMSSZ[-N].xml, the newest), after checking that the file is
// that domain's (same name and UUID). The backup is what libvirt printed for the domain
// (inactive, secure), so the restored definition reads back byte for byte as before the apply.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/libvirt/apply/domain_apply.hpp"

namespace topolab {

struct UndoResult {
  std::filesystem::path backup;  // the file restored (or that a dry run would restore)
  std::string diff;              // current definition -> backup
  bool changed = false;
  std::vector<std::string> notes;
};

// The newest backup of `domain` in `dir` by its time stamp and sequence number; nullopt when
// none. Files whose name is not exactly DOMAIN.STAMP[-N].xml are not backups of DOMAIN.
std::optional<std::filesystem::path> newest_backup(const std::filesystem::path& dir,
                                                   const std::string& domain);

// Uses opts.domain, connect_uri, backup_dir (default ./topolab-backups), dry_run, live.
Result<UndoResult> undo_last_apply(const ApplyOptions& opts);

}  // namespace topolab
