// The HTML report must render in a real browser: headless Chromium (Debian's chromium,
// installed by scripts/setup.sh) screenshots the golden report and a blank page; the report's
// screenshot must be a PNG carrying far more picture than the blank one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/child_process.hpp"

namespace {

namespace fs = std::filesystem;

std::uintmax_t screenshot(const fs::path& html, const fs::path& png, const fs::path& profile) {
  const std::vector<std::string> argv = {"/usr/bin/chromium",
                                         "--headless",
                                         "--no-sandbox",
                                         "--disable-gpu",
                                         "--disable-background-networking",
                                         "--disable-component-update",
                                         "--disable-sync",
                                         "--no-first-run",
                                         "--hide-scrollbars",
                                         "--window-size=1200,900",
                                         "--user-data-dir=" + profile.string(),
                                         "--screenshot=" + png.string(),
                                         "file://" + html.string()};
  const auto run = topolab::testing::run_process(argv, std::chrono::seconds(90));
  EXPECT_EQ(run.status(), 0) << "chromium failed on " << html
                             << (run.timed_out ? " (timed out)" : "") << ":\n"
                             << run.err;
  if (!fs::exists(png)) return 0;
  std::ifstream in(png, std::ios::binary);
  char sig[8] = {};
  in.read(sig, 8);
  EXPECT_EQ(std::string(sig + 1, 3), "PNG") << png << " is not a PNG";
  return fs::file_size(png);
}

TEST(HtmlRender, GoldenReportRendersInHeadlessChromium) {
  ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "scripts/setup.sh installs chromium";
  const fs::path dir = fs::temp_directory_path() / ("topolab-html-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path report =
      fs::path(TOPOLAB_TESTS_DIR) / "orchestrator/results/report/data/golden.html";
  const fs::path blank = dir / "blank.html";
  std::ofstream(blank) << "<!doctype html><html><body></body></html>\n";

  const auto report_bytes = screenshot(report, dir / "report.png", dir / "profile-a");
  const auto blank_bytes = screenshot(blank, dir / "blank.png", dir / "profile-b");
  EXPECT_GT(blank_bytes, 0u);
  // Text, bars and heat-map cells compress far worse than an empty white page.
  EXPECT_GT(report_bytes, 3 * blank_bytes)
      << "report " << report_bytes << " B, blank " << blank_bytes << " B";
  if (!HasFailure()) fs::remove_all(dir);
}

}  // namespace
