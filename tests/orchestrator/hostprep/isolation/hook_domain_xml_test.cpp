// Issue 34: the hook's read of the domain XML libvirt writes on its stdin is bounded in time
// and size (a writer that never closes, or one that writes too much, is an error, never a hang
// or an unbounded buffer), and only topolab's copies are looked at.
#include "orchestrator/hostprep/isolation/hook_domain_xml.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "common/owned_fd.hpp"

namespace topolab::isolation {
namespace {

struct Pipe {
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
  }
  void write(const std::string& text) {
    EXPECT_EQ(::write(write_end.get(), text.data(), text.size()),
              static_cast<ssize_t>(text.size()));
  }
  OwnedFd read_end, write_end;
};

TEST(HookDomainXml, ReadsToTheEndOfItsInput) {
  Pipe p;
  p.write("<domain/>");
  p.write_end.reset();
  auto text = read_hook_xml(p.read_end.get());
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "<domain/>");
}

TEST(HookDomainXml, AWriterThatNeverClosesTimesOut) {
  Pipe p;
  p.write("<domain>");  // and the pipe stays open
  auto text = read_hook_xml(p.read_end.get(), kMaxHookXmlBytes, std::chrono::milliseconds(200));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, ErrorKind::input);
  EXPECT_NE(text.error().message.find("not ended within 200 ms"), std::string::npos)
      << text.error().message;
}

TEST(HookDomainXml, MoreThanTheBoundIsRefused) {
  Pipe p;
  p.write(std::string(1000, 'x'));
  p.write_end.reset();
  auto text = read_hook_xml(p.read_end.get(), 999);
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("larger than 999 bytes"), std::string::npos);
}

TEST(HookDomainXml, OnlyTopolabDomainsMayBeCopies) {
  EXPECT_TRUE(may_be_a_copy("topolab-win10-20261202T063900-3fa2c1"));
  EXPECT_FALSE(may_be_a_copy("win10"));
  EXPECT_FALSE(may_be_a_copy("my-topolab-vm"));
}

TEST(HookDomainXml, TheTemplateComesFromTopolabsOwnMetadataOnly) {
  const std::string name = "topolab-w-r1";
  auto with = [&](const std::string& metadata) {
    return template_of_copy(
        "<domain><name>" + name + "</name><metadata>" + metadata + "</metadata></domain>", name);
  };
  auto ours = with(
      "<topolab:run xmlns:topolab='https://topolab.dev/xmlns/1' id='r1' pid='5' "
      "template='win10'/>");
  ASSERT_TRUE(ours) << ours.error().message;
  EXPECT_EQ(*ours, "win10");
  auto foreign = with("<x:run xmlns:x='https://example.org/' id='r1' pid='5' template='win10'/>");
  ASSERT_TRUE(foreign) << foreign.error().message;
  EXPECT_EQ(*foreign, "") << "another namespace's run element names nothing";
  EXPECT_FALSE(
      with("<topolab:run xmlns:topolab='https://topolab.dev/xmlns/1' id='r1' pid='5' "
           "template='" +
           name + "'/>"))
      << "a copy of itself";
  EXPECT_FALSE(template_of_copy("<notdomain/>", name));
}

}  // namespace
}  // namespace topolab::isolation
