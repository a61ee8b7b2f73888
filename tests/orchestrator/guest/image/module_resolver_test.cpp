#include "orchestrator/guest/image/module_resolver.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

// modules.dep where mN depends on mN+1, `depth` modules deep (m0 is the one wanted).
void write_chain(const fs::path& dir, int depth, bool close_cycle) {
  std::ofstream dep(dir / "modules.dep");
  for (int i = 0; i < depth; ++i) {
    dep << "kernel/m" << i << ".ko:";
    if (i + 1 < depth) dep << " kernel/m" << i + 1 << ".ko";
    if (i + 1 == depth && close_cycle) dep << " kernel/m0.ko";
    dep << "\n";
  }
}

TEST(ModuleResolver, AChainWithinTheDepthLimitResolvesDeepestFirst) {
  TempDir tmp;
  write_chain(tmp.path(), 200, false);
  auto mods = image::resolve_modules(tmp.path(), {"m0"});
  ASSERT_TRUE(mods.ok()) << mods.error().message;
  ASSERT_EQ(mods->size(), 200u);
  EXPECT_EQ(mods->front().name, "m199");
  EXPECT_EQ(mods->back().name, "m0");
  EXPECT_EQ(mods->back().path, tmp.path() / "kernel/m0.ko");
}

// The walk used to recurse once per level: 100 000 levels overflowed the stack.
TEST(ModuleResolver, AHugeChainIsAnErrorNotAStackOverflow) {
  TempDir tmp;
  write_chain(tmp.path(), 100000, false);
  auto mods = image::resolve_modules(tmp.path(), {"m0"});
  ASSERT_FALSE(mods.ok());
  EXPECT_EQ(mods.error().message, (tmp.path() / "modules.dep").string() +
                                      ": dependency chain of m0 deeper than 256 modules");
}

TEST(ModuleResolver, ACycleIsNamed) {
  TempDir tmp;
  write_chain(tmp.path(), 50, true);  // m49 depends on m0 again
  auto mods = image::resolve_modules(tmp.path(), {"m0"});
  ASSERT_FALSE(mods.ok());
  EXPECT_EQ(mods.error().message,
            (tmp.path() / "modules.dep").string() + ": dependency cycle at m0");
}

TEST(ModuleResolver, SharedDependenciesAreListedOnce) {
  TempDir tmp;
  std::ofstream(tmp.path() / "modules.dep") << "kernel/a.ko: kernel/c.ko kernel/b.ko\n"
                                               "kernel/b.ko: kernel/c.ko\n"
                                               "kernel/c.ko:\n";
  auto mods = image::resolve_modules(tmp.path(), {"a", "b", "c"});
  ASSERT_TRUE(mods.ok()) << mods.error().message;
  std::vector<std::string> names;
  for (const auto& m : *mods) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"c", "b", "a"}));
}

TEST(ModuleResolver, AFifoAsModulesDepOrModuleIsRefusedWithoutBlocking) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp.path() / "modules.dep").c_str(), 0600), 0);
  auto mods = image::resolve_modules(tmp.path(), {"m0"});
  ASSERT_FALSE(mods.ok());
  EXPECT_EQ(mods.error().message,
            (tmp.path() / "modules.dep").string() + ": not a regular file (fifo)");
  const fs::path ko = tmp.path() / "virtio.ko.xz";
  ASSERT_EQ(::mkfifo(ko.c_str(), 0600), 0);
  auto bytes = image::read_module_bytes(ko);  // xz would have blocked opening it
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message, ko.string() + ": not a regular file (fifo)");
}

}  // namespace
}  // namespace topolab
