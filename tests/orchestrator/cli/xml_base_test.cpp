// Issue 34 "no silent choices": `topolab xml --base` keeps the base's domain type and CPU mode
// unless --accel / --set cpu.model say otherwise, says so on stderr, and finds a template by
// name (`--base windows-vfio.xml`) as docs/windows.md uses it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "common/exit_code.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/zen_sysfs.hpp"

namespace topolab {
namespace {

using testing::run_cli;

struct XmlOut {
  std::string type, cpu_mode, cpu_model, err;
  int exit_code = -1;
};

XmlOut xml_of(std::vector<std::string> args) {
  args.insert(args.begin(), "xml");
  auto r = run_cli(args);
  XmlOut out;
  out.exit_code = r.exit_code;
  out.err = r.err;
  pugi::xml_document doc;
  if (r.exit_code != 0 || !doc.load_string(r.out.c_str())) return out;
  out.type = doc.child("domain").attribute("type").value();
  out.cpu_mode = doc.child("domain").child("cpu").attribute("mode").value();
  out.cpu_model = doc.child("domain").child("cpu").child_value("model");
  return out;
}

TEST(XmlBase, KvmTemplateStaysKvmWithoutAccel) {
  testing::TempDir dir("topolab-xml-base");
  const auto root = testing::write_zen_sysfs(dir.path() / "root", testing::ryzen_5950x());
  const std::vector<std::string> common = {"ryzen-5950x-ccd", "--sysfs", root.string()};
  auto args = common;
  args.insert(args.end(), {"--base", "windows-vfio.xml", "--name", "win10"});
  auto kept = xml_of(args);
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(kept.type, "kvm");
  EXPECT_EQ(kept.cpu_mode, "host-passthrough");
  EXPECT_NE(kept.err.find("accelerator kvm kept from the base's <domain type='kvm'>"),
            std::string::npos)
      << kept.err;
  args.insert(args.end(), {"--accel", "tcg"});
  auto told = xml_of(args);
  ASSERT_EQ(told.exit_code, 0) << told.err;
  EXPECT_EQ(told.type, "qemu");
  EXPECT_EQ(told.err.find("kept from the base"), std::string::npos) << told.err;
  auto plain = xml_of(common);  // no base: the TCG default, as before
  EXPECT_EQ(plain.type, "qemu");
}

TEST(XmlBase, CustomCpuModelOfTheBaseIsKeptUnlessSet) {
  testing::TempDir dir("topolab-xml-base-cpu");
  const auto root = testing::write_zen_sysfs(dir.path() / "root", testing::ryzen_5950x());
  const auto base = dir.path() / "base.xml";
  std::ofstream(base) << "<domain type='qemu'><name>x</name><memory>1</memory>"
                         "<os><type arch='x86_64' machine='q35'>hvm</type></os>"
                         "<cpu mode='custom'><model>EPYC-Rome</model></cpu><devices/></domain>";
  std::vector<std::string> args = {"ryzen-5950x-ccd", "--sysfs", root.string(), "--base",
                                   base.string()};
  auto kept = xml_of(args);
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(kept.type, "qemu");
  EXPECT_EQ(kept.cpu_model, "EPYC-Rome");
  EXPECT_NE(kept.err.find("CPU EPYC-Rome kept from the base's <cpu mode='custom'>"),
            std::string::npos)
      << kept.err;
  args.insert(args.end(), {"--set", "cpu.model=Skylake-Server"});
  EXPECT_EQ(xml_of(args).cpu_model, "Skylake-Server");
}

TEST(XmlBase, UnknownBaseNamesTheTemplatesFolder) {
  testing::TempDir dir("topolab-xml-base-missing");
  const auto root = testing::write_zen_sysfs(dir.path() / "root", testing::ryzen_5950x());
  auto r = run_cli({"xml", "ryzen-5950x-ccd", "--sysfs", root.string(), "--base", "nope.xml"});
  EXPECT_EQ(r.exit_code, to_int(ExitCode::data_error));
  EXPECT_NE(r.err.find("--base nope.xml: No such file, and not a template in"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("windows-vfio.xml"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace topolab
