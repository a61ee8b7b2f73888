// A host from an experiment file never makes topolab wait for a password (virt/connection_uri.hpp,
// ConnectionUri::connect): `topolab run` hands libvirt the file's qemu+ssh URI with no_tty=1, so
// libvirt's ssh transport runs ssh in batch mode (-o BatchMode=yes: no password or passphrase
// prompt on the terminal). The real libvirt client runs the `ssh` it finds in PATH; here that is
// a script recording its arguments (no sshd on this machine, and none is needed: the flags are
// the point), which then fails like an unreachable host. The same URI typed with --connect is
// the user's own and is opened as typed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/exit_code.hpp"
#include "common/file_io.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace topolab {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHost = "qemu+ssh://topolab-no-such-host.invalid/system";

class FileHostPrompt : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_.path() / "bin");
    const fs::path ssh = tmp_.path() / "bin" / "ssh";
    std::ofstream(ssh) << "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" << log_.string()
                       << "'\necho '--- end' >> '" << log_.string() << "'\nexit 255\n";
    ::chmod(ssh.c_str(), 0755);
    std::ofstream(experiment_) << "name = \"h\"\nlayout = \"" << TOPOLAB_SOURCE_DIR
                               << "/examples/layouts/two-groups.toml\"\nhosts = [\"" << kHost
                               << "\"]\n[[benchmark]]\nname = \"sqrt\"\n";
  }

  // `topolab run` with the recording ssh first in PATH; what ssh was given.
  std::string ssh_arguments(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", experiment_.string(), "--store",
                                     (tmp_.path() / "r.db").string(), "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    testing::ChildOptions options;
    options.null_stdin = true;
    const char* path = std::getenv("PATH");
    options.env = {"PATH=" + (tmp_.path() / "bin").string() + ":" + (path ? path : "/usr/bin")};
    auto r = testing::run_cli(args, options);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.status(), to_int(ExitCode::unavailable)) << r.err;
    EXPECT_NE(r.err.find("cannot connect to qemu+ssh://topolab-no-such-host.invalid/system"),
              std::string::npos)
        << r.err;
    auto got = read_file(log_);  // absent when libvirt never ran ssh
    fs::remove(log_);
    return got ? *got : "";
  }

  testing::TempDir tmp_{"topolab-file-host-prompt"};
  fs::path log_ = tmp_.path() / "ssh-args.log";
  fs::path experiment_ = tmp_.path() / "h.toml";
};

TEST_F(FileHostPrompt, AFileSshHostRunsSshInBatchMode) {
  const std::string from_file = ssh_arguments({});
  EXPECT_NE(from_file.find("topolab-no-such-host.invalid"), std::string::npos)
      << "libvirt never ran ssh:\n"
      << from_file;
  EXPECT_NE(from_file.find("\nBatchMode=yes\n"), std::string::npos) << from_file;

  const std::string typed = ssh_arguments({"--connect", kHost});
  EXPECT_NE(typed.find("topolab-no-such-host.invalid"), std::string::npos) << typed;
  EXPECT_EQ(typed.find("BatchMode"), std::string::npos)
      << "--connect is opened as typed (the user may answer a prompt):\n"
      << typed;
}

}  // namespace
}  // namespace topolab
