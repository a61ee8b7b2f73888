#pragma once
// A fresh temporary folder for one test, removed with everything in it (tests make files
// unreadable or read-only: permissions are given back first).
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

namespace topolab::testing {

// Where the folder is made: /dev/shm when there is one (tmpfs: fixtures unpack to thousands of
// small files), or the system temp folder for tests that execute what they write there
// (/dev/shm is mounted noexec on many machines).
enum class TempBase { shm, exec };

class TempDir {
 public:
  // `<base>/<prefix>-XXXXXX`.
  explicit TempDir(const std::string& prefix = "topolab-test", TempBase where = TempBase::shm) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path base = where == TempBase::shm && fs::is_directory("/dev/shm", ec)
                        ? fs::path("/dev/shm")
                        : fs::temp_directory_path();
    std::string tmpl = (base / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(path_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to path()/rel, making its folders.
  void write(const std::filesystem::path& rel, const std::string& text) const {
    std::filesystem::create_directories((path_ / rel).parent_path());
    std::ofstream(path_ / rel) << text;
  }
  // The text of path()/rel ("" when unreadable).
  std::string read(const std::filesystem::path& rel) const {
    std::ifstream f(path_ / rel);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

 private:
  std::filesystem::path path_;
};

}  // namespace topolab::testing
