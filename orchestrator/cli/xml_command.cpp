// `topolab xml LAYOUT [source] [--accel kvm|tcg] [--base FILE] [-o FILE]`: the libvirt domain
// XML for a layout placed on this host.
#include <iostream>

#include "common/file_io.hpp"
#include "common/json_text.hpp"
#include "common/safe_name.hpp"
#include "orchestrator/base/logging/log.hpp"
#include "orchestrator/cli/base_template.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/placed_layout.hpp"
#include "orchestrator/cli/topology_source_options.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"

namespace topolab::cli {
namespace {

class XmlCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* cmd = app.add_subcommand("xml", "write the libvirt domain XML for a layout");
    add_layout_options(cmd, args_);
    add_topology_source_options(cmd, source_);
    cmd->add_option("--accel", accel_,
                    "kvm or tcg (default: the --base template's <domain type>, else tcg: "
                    "nested KVM hangs guests here)")
        ->check(CLI::IsMember(
            std::vector<std::string>{to_string(Accelerator::kKvm), to_string(Accelerator::kTcg)}));
    cmd->add_option("--base", base_,
                    "base domain template: a path or a name in templates/domains (default "
                    "linux-direct-boot.xml); its domain type and CPU mode are kept");
    cmd->add_option("--name", name_, "domain name (default topolab-<layout>)");
    cmd->add_option("--kernel", kernel_, "direct-boot kernel");
    cmd->add_option("--initrd", initrd_, "direct-boot initrd");
    cmd->add_option("--cmdline", cmdline_, "kernel command line");
    cmd->add_option("--serial-log", serial_log_, "write the serial console to this file");
    cmd->add_option("--channel-socket", channel_, "agent channel socket path (default: libvirt)");
    cmd->add_option("-o,--output", output_, "write to FILE instead of stdout");
    cmd->add_flag("--json", json_, "print {\"xml\", \"cpu_model\", \"reason\"} as JSON");
    return cmd;
  }

  int run() override {
    // The domain name follows the layout name's rule (common/safe_name): no escape sequence in
    // a libvirt name, its log lines and run folders (redteam 2026-12-02, X22).
    if (!name_.empty())
      if (const std::string why = name_problem(name_); !why.empty())
        return fail("xml", make_error(ErrorKind::input, "--name: " + why));
    if (auto same = check_output_is_not_input(output_, {args_.layout, base_, kernel_, initrd_});
        !same)
      return fail("xml", same.error());
    auto placed = load_placed_layout(args_, source_);
    if (!placed) return fail("xml", placed.error());
    plan::GuestPlan& plan = placed->plan;
    const HostTopology& host = placed->host;
    Layout& layout = plan.layout;
    BaseTemplate base;
    if (!base_.empty()) {
      auto b = read_base_template(base_);
      if (!b) return fail("xml", b.error());
      base = *b;
    }
    const Accelerator accel = choose_accel(base);
    if (layout.cpu_model.empty() && !base.cpu_model.empty()) {
      layout.cpu_model = base.cpu_model;
      kept_.push_back("CPU " + base.cpu_model + " kept from the base's " + base.cpu_text +
                      " (--set cpu.model=X overrides)");
    }
    // The CPU model is part of the layout the plan announces; placement does not read it.
    if (auto announced = plan::announce_plan(plan, accel, host.vendor); !announced)
      return fail("xml", announced.error());
    const CpuModelChoice& choice = plan.announced->cpu_model;
    DomainSpec spec;
    spec.name = name_.empty() ? "topolab-" + layout.name : name_;
    spec.layout = &layout;
    spec.announced = &*plan.announced;
    spec.base_template = base.file;
    if (!kernel_.empty()) spec.boot = BootSpec{kernel_, initrd_, cmdline_};
    spec.serial_log = serial_log_;
    spec.agent_channel = ChannelSpec{};
    spec.agent_channel->socket_path = channel_;
    auto xml = DomainXmlWriter{}.write(spec);
    if (!xml) return fail("xml", xml.error());
    std::string text = *xml;
    if (json_) {
      nlohmann::json j = {{"xml", *xml},
                          {"accel", to_string(accel)},
                          {"cpu_mode", choice.mode},
                          {"cpu_model", choice.model},
                          {"reason", choice.reason},
                          {"warnings", plan.placement.warnings}};
      text = json_document(j);
    }
    // Said once the XML exists: a base the writer refuses has kept nothing.
    for (const auto& k : kept_) logging::info("{}", k);
    for (const auto& w : plan.placement.warnings) logging::warn("{}", w);
    if (output_.empty()) {
      std::cout << text;
      return to_int(ExitCode::ok);
    }
    auto w = write_file_atomic(output_, text);
    if (!w) return fail("xml", w.error());
    logging::info("wrote {} ({})", output_, choice.reason);
    return to_int(ExitCode::ok);
  }

 private:
  // --accel, else the base's <domain type>, else tcg; says so when the base chose other than
  // the default.
  Accelerator choose_accel(const BaseTemplate& base) {
    if (!accel_.empty()) return parse_accelerator(accel_).value_or(Accelerator::kTcg);
    if (!base.accel) return Accelerator::kTcg;
    if (*base.accel != Accelerator::kTcg) {
      kept_.push_back("accelerator " + to_string(*base.accel) + " kept from the base's " +
                      base.accel_text + " (--accel overrides)");
    }
    return *base.accel;
  }

  std::vector<std::string> kept_;  // what the base decided, printed with the result
  LayoutArgs args_;
  TopologySource source_;
  std::string accel_, base_, name_, kernel_, initrd_, cmdline_, serial_log_, channel_, output_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_xml_command() { return std::make_unique<XmlCommand>(); }

}  // namespace topolab::cli
