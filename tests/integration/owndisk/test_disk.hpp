#pragma once
// The Debian 12 test disk (scripts/build-test-disk.sh): built once per input hash, cached in
// /var/cache/topolab-test between runs, with the agent this build made.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/child_process.hpp"

namespace topolab::testing {

// The image's path; empty (and a test failure) when the builder failed.
inline std::filesystem::path test_disk_image() {
  static const std::filesystem::path image = [] {
    auto r = run_process(
        {"/bin/bash", std::string(TOPOLAB_SOURCE_DIR) + "/scripts/build-test-disk.sh",
         TOPOLAB_AGENT, std::string(TOPOLAB_SOURCE_DIR) + "/guest-agent/topolab-agent.service"},
        std::chrono::minutes(40));
    if (r.exit_code != 0) {
      ADD_FAILURE() << "build-test-disk.sh failed (" << r.status() << "): " << r.err;
      return std::filesystem::path();
    }
    auto path = r.out.substr(0, r.out.find('\n'));
    return std::filesystem::path(path);
  }();
  return image;
}

// A variant of the test disk (derive-test-disk.sh: "no-agent", "no-poweroff"), a raw copy made
// once per base image; the base is only read. Empty (and a test failure) when it failed.
inline std::filesystem::path derived_test_disk(const std::string& variant) {
  auto base = test_disk_image();
  if (base.empty()) return {};
  auto r = run_process(
      {"/bin/bash",
       std::string(TOPOLAB_SOURCE_DIR) + "/tests/integration/owndisk/derive-test-disk.sh",
       base.string(), variant},
      std::chrono::minutes(10));
  if (r.exit_code != 0) {
    ADD_FAILURE() << "derive-test-disk.sh " << variant << " failed (" << r.status()
                  << "): " << r.err;
    return {};
  }
  return std::filesystem::path(r.out.substr(0, r.out.find('\n')));
}

inline std::string sha256_of(const std::filesystem::path& p) {
  auto r = run_process({"/usr/bin/sha256sum", p.string()}, std::chrono::minutes(5));
  return r.exit_code == 0 ? r.out.substr(0, 64) : "sha256sum failed: " + r.err;
}

// Overlay files (and their base XMLs) in /var/lib/topolab/overlays naming `marker`.
inline std::vector<std::string> overlays_with(const std::string& marker) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/var/lib/topolab/overlays", ec), end;
       !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    if (name.find(marker) != std::string::npos) out.push_back(name);
  }
  return out;
}

}  // namespace topolab::testing
