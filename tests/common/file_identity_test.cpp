#include "common/file_identity.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

TEST(SameFile, OtherSpellingsSymlinksAndHardLinksAreOneFile) {
  testing::TempDir dir;
  dir.write("a.db", "x");
  const fs::path a = dir.path() / "a.db";
  fs::create_symlink(a, dir.path() / "link.db");
  fs::create_hard_link(a, dir.path() / "hard.db");
  EXPECT_TRUE(same_file(a, a));
  EXPECT_TRUE(same_file(a, dir.path() / "." / "a.db"));
  EXPECT_TRUE(same_file(a, dir.path() / "link.db"));
  EXPECT_TRUE(same_file(dir.path() / "hard.db", dir.path() / "link.db"));
}

TEST(SameFile, TwoFilesWithTheSameContentAreTwo) {
  testing::TempDir dir;
  dir.write("a.db", "same");
  dir.write("b.db", "same");
  EXPECT_FALSE(same_file(dir.path() / "a.db", dir.path() / "b.db"));
  // A copy made by replacing: the name stays, the file is another one.
  struct stat before {};
  ASSERT_EQ(::stat((dir.path() / "a.db").c_str(), &before), 0);
  fs::rename(dir.path() / "b.db", dir.path() / "a.db");
  struct stat after {};
  ASSERT_EQ(::stat((dir.path() / "a.db").c_str(), &after), 0);
  EXPECT_FALSE(same_inode(before, after));
  EXPECT_TRUE(same_inode(after, after));
}

TEST(SameFile, NamesThatCannotBeStatedAreComparedByName) {
  testing::TempDir dir;
  dir.write("a.db", "x");
  const fs::path missing = dir.path() / "missing.db";
  EXPECT_TRUE(same_file(missing, missing));
  EXPECT_FALSE(same_file(missing, dir.path() / "other-missing.db"));
  EXPECT_FALSE(same_file(missing, dir.path() / "a.db"));
  // A dangling symlink cannot be stat()ed: not the file it once named.
  fs::create_symlink(missing, dir.path() / "dangling.db");
  EXPECT_FALSE(same_file(dir.path() / "dangling.db", missing));
}

}  // namespace
}  // namespace topolab
