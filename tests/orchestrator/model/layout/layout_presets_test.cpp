// Presets come from install_paths().templates: an unknown name or an empty presets folder says
// which folder was searched.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "orchestrator/model/layout/layout.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

TEST(LayoutPresetsDir, UnknownPresetNamesTheFolderAndThePresets) {
  auto r = load_layout_or_preset("no-such-preset");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a preset in " + presets_dir().string()), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("ryzen-1700x"), std::string::npos) << r.error().message;
}

TEST(LayoutPresetsDir, EmptyTemplatesFolderFromTheEnvironmentIsNamed) {
  testing::TempDir tmp("topolab-presets");
  ::setenv("TOPOLAB_TEMPLATES_DIR", tmp.path().c_str(), 1);
  auto r = load_layout_or_preset("ryzen-1700x");
  ::unsetenv("TOPOLAB_TEMPLATES_DIR");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find((tmp.path() / "topologies").string()), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("holds no presets"), std::string::npos) << r.error().message;
  EXPECT_TRUE(load_layout_or_preset("ryzen-1700x")) << "the override is gone again";
}

}  // namespace
}  // namespace topolab
