// The pool definition and the volume naming, without libvirt: what is refused before any
// call reaches a host, and that the XML cannot be broken out of.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "orchestrator/guest/remote/storage_pool.hpp"
#include "orchestrator/guest/remote/storage_upload.hpp"

namespace topolab::remote {
namespace {

TEST(PoolSpec, DefaultIsTheTopolabDirectory) {
  PoolSpec spec;
  EXPECT_EQ(pool_spec_problem(spec), "");
  auto xml = pool_xml(spec);
  ASSERT_TRUE(xml.ok()) << xml.error().message;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml->c_str()));
  EXPECT_STREQ(doc.child("pool").attribute("type").value(), "dir");
  EXPECT_STREQ(doc.child("pool").child("name").text().get(), "topolab");
  EXPECT_STREQ(doc.child("pool").child("target").child("path").text().get(),
               "/var/lib/libvirt/topolab");
}

TEST(PoolSpec, RefusesUnsafeNamesAndPaths) {
  auto problem = [](std::string name, std::string path) {
    return pool_spec_problem(PoolSpec{std::move(name), std::move(path)});
  };
  EXPECT_NE(problem("../x", "/var/lib/x").find("pool name"), std::string::npos);
  EXPECT_NE(problem("a</name>", "/var/lib/x").find("pool name"), std::string::npos);
  EXPECT_NE(problem("ok", "relative/dir").find("must be absolute"), std::string::npos);
  EXPECT_NE(problem("ok", "/var/../etc").find(".."), std::string::npos);
  EXPECT_NE(problem("ok", "/var/a\nb").find("control"), std::string::npos);
  EXPECT_NE(problem("ok", "/" + std::string(5000, 'a')).find("longer"), std::string::npos);
  auto refused = pool_xml(PoolSpec{"ok", "rel"});
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.error().is(ErrorKind::input));
}

TEST(PoolSpec, XmlEscapesThePath) {
  auto xml = pool_xml(PoolSpec{"ok", "/srv/a&b</path><x>"});
  ASSERT_TRUE(xml.ok()) << xml.error().message;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml->c_str()));
  EXPECT_STREQ(doc.child("pool").child("target").child("path").text().get(), "/srv/a&b</path><x>");
}

TEST(VolumeName, CarriesTheContentHashPrefix) {
  std::string sha(64, 'f');
  sha.replace(0, 16, "0123456789abcdef");
  EXPECT_EQ(content_volume_name("vmlinuz", sha), "vmlinuz-0123456789abcdef");
}

}  // namespace
}  // namespace topolab::remote
