#include "orchestrator/guest/image/input_stamp.hpp"

#include <nlohmann/json.hpp>

#include "common/file_identity.hpp"
#include "common/file_io.hpp"
#include "common/json_text.hpp"

namespace topolab::image {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxStampBytes = 1u << 20;
constexpr std::size_t kMaxStampFiles = 256;

bool is_content_hash(const std::string& s) {
  return s.size() == 16 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

Result<std::string> stat_lines(const std::vector<fs::path>& files) {
  std::string out;
  for (const auto& f : files) {
    auto id = file_identity(f);
    if (!id) return make_error(ErrorKind::io, "cannot stat " + f.string());
    out += id->line + "\n";
  }
  return out;
}

std::optional<InputStamp> read_stamp(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  auto text = read_file(path, kMaxStampBytes);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j["files"].is_array() || !j["stat"].is_string() ||
      !j["content_hash"].is_string() || j["files"].size() > kMaxStampFiles) {
    return std::nullopt;
  }
  InputStamp s;
  for (const auto& f : j["files"]) {
    if (!f.is_string()) return std::nullopt;
    s.files.emplace_back(f.get<std::string>());
  }
  s.stat = j["stat"].get<std::string>();
  s.content_hash = j["content_hash"].get<std::string>();
  if (s.files.empty() || !is_content_hash(s.content_hash)) return std::nullopt;
  return s;
}

std::optional<std::string> unchanged_hash(const InputStamp& stamp) {
  auto now = stat_lines(stamp.files);
  if (!now || *now != stamp.stat) return std::nullopt;
  return stamp.content_hash;
}

Result<void> write_stamp(const fs::path& path, const InputStamp& stamp) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : stamp.files) files.push_back(f.string());
  const nlohmann::json j = {
      {"files", files}, {"stat", stamp.stat}, {"content_hash", stamp.content_hash}};
  // A path that is not UTF-8 is written replaced: it then never stats equal, and the image is
  // only built anew, never taken wrongly.
  return write_file_atomic(path, json_document(j), 0644);
}

}  // namespace topolab::image
