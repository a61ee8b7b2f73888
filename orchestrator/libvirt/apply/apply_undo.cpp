#include "orchestrator/libvirt/apply/apply_undo.hpp"

#include <pugixml.hpp>
#include <tuple>

#include "common/file_io.hpp"
#include "orchestrator/libvirt/apply/domain_state.hpp"
#include "orchestrator/libvirt/virt/libvirt_handles.hpp"

namespace topolab {
namespace {

// A domain XML is a few KiB; a backup folder holding a huge file is not ours to load whole.
constexpr std::size_t kMaxBackupBytes = 4u << 20;

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "20261202T020304Z" or "20261202T020304Z-3" -> (stamp, 3); nullopt for anything else.
std::optional<std::pair<std::string, int>> backup_stamp(std::string_view rest) {
  if (rest.size() < 16 || rest[8] != 'T' || rest[15] != 'Z') return std::nullopt;
  if (!all_digits(rest.substr(0, 8)) || !all_digits(rest.substr(9, 6))) return std::nullopt;
  const std::string stamp(rest.substr(0, 16));
  if (rest.size() == 16) return std::pair{stamp, 0};
  const auto seq = rest.substr(16);
  if (seq[0] != '-' || seq.size() > 7 || !all_digits(seq.substr(1))) return std::nullopt;
  return std::pair{stamp, std::stoi(std::string(seq.substr(1)))};
}

// The backup is a file from disk: it must be one domain XML of this very domain.
Result<void> check_backup_is_of(const std::string& backup_xml, const std::string& current_xml,
                                const std::string& domain, const std::filesystem::path& file) {
  pugi::xml_document b, c;
  if (!b.load_string(backup_xml.c_str()) || !b.child("domain")) {
    return make_error(ErrorKind::input, file.string() + ": not a domain XML");
  }
  c.load_string(current_xml.c_str());
  const std::string name = b.child("domain").child_value("name");
  const std::string uuid = b.child("domain").child_value("uuid");
  const std::string current_uuid = c.child("domain").child_value("uuid");
  if (name != domain) {
    return make_error(ErrorKind::input,
                      file.string() + ": a backup of '" + name + "', not of '" + domain + "'");
  }
  if (uuid != current_uuid) {
    return make_error(ErrorKind::input, file.string() + ": UUID " + uuid +
                                            " differs from the domain's " + current_uuid +
                                            " (a backup of an earlier domain of that name)");
  }
  return {};
}

}  // namespace

std::optional<std::filesystem::path> newest_backup(const std::filesystem::path& dir,
                                                   const std::string& domain) {
  std::optional<std::tuple<std::string, int, std::filesystem::path>> best;
  std::error_code ec;
  const std::string prefix = domain + ".";
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    if (f.size() <= prefix.size() + 4 || f.rfind(prefix, 0) != 0) continue;
    if (f.substr(f.size() - 4) != ".xml" || !e.is_regular_file(ec)) continue;
    auto stamp =
        backup_stamp(std::string_view(f).substr(prefix.size(), f.size() - prefix.size() - 4));
    if (!stamp) continue;
    auto key = std::tuple{stamp->first, stamp->second, e.path()};
    if (!best || key > *best) best = key;
  }
  if (!best) return std::nullopt;
  return std::get<2>(*best);
}

Result<UndoResult> undo_last_apply(const ApplyOptions& opts) {
  const auto dir = apply_backup_dir(opts);
  auto file = newest_backup(dir, opts.domain);
  if (!file) {
    return make_error(ErrorKind::input, "no backup of '" + opts.domain + "' in " + dir.string() +
                                            " (apply saves one there; --backup-dir names "
                                            "another folder)");
  }
  TL_ASSIGN(const std::string saved, read_file(*file, kMaxBackupBytes));
  TL_ASSIGN(const auto conn, virt::open_connection(opts.connect_uri));
  virt::DomainPtr dom(virDomainLookupByName(conn.get(), opts.domain.c_str()));
  if (!dom) return virt::capture_libvirt_error().context("domain '" + opts.domain + "'");
  TL_TRY(check_domain_redefinable(dom.get(), opts));
  TL_ASSIGN(const std::string current, persistent_domain_xml(dom.get(), opts.domain));
  TL_TRY(check_backup_is_of(saved, current, opts.domain, *file));
  UndoResult result;
  result.backup = *file;
  result.changed = saved != current;
  result.diff =
      unified_diff(current, saved, "a/" + opts.domain + ".xml", "b/" + opts.domain + ".xml");
  if (!result.changed) result.notes.push_back("no change: the domain already matches the backup");
  if (opts.dry_run || !result.changed) {
    if (opts.dry_run) result.notes.push_back("dry run: nothing defined");
    return result;
  }
  virt::DomainPtr defined(
      virDomainDefineXMLFlags(conn.get(), saved.c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
  if (!defined) {
    return virt::capture_libvirt_error().context("restoring '" + opts.domain + "' from " +
                                                 file->string() + " (unchanged)");
  }
  auto stored = persistent_domain_xml(defined.get(), opts.domain);
  if (!stored) {
    result.notes.push_back("could not read the restored definition back: " +
                           stored.error().message);
  } else if (*stored != saved) {
    result.notes.push_back("warning: libvirt stored a definition that differs from the backup:\n" +
                           unified_diff(saved, *stored, "backup", "stored"));
  }
  return result;
}

}  // namespace topolab
