#pragma once
// One booted guest per configuration (GuestSession): the experiment's layout with the
// configuration's layout-field levels applied (set_layout_field) and its cmdline.<opt> levels
// appended to the guest kernel command line; intended topology compared with the seen one.
#include <map>

#include "host/host_topology.hpp"
#include "orchestrator/guest/image/guest_image.hpp"
#include "orchestrator/libvirt/guestsource/guest_source.hpp"
#include "orchestrator/libvirt/virt/accelerator.hpp"
#include "orchestrator/model/layout/layout.hpp"
#include "orchestrator/planning/plan/guest_plan.hpp"
#include "orchestrator/run/experiment/backend.hpp"
#include "orchestrator/run/experiment/backend_factory.hpp"

namespace topolab::experiment {

class GuestBackend : public Backend {
 public:
  explicit GuestBackend(BackendOptions options) : options_(std::move(options)) {}
  std::string name() const override { return "guest"; }
  Result<void> prepare(const Experiment&, const std::vector<Configuration>&) override;
  Result<std::unique_ptr<Target>> start(const Experiment&, const Configuration&) override;
  nlohmann::json layout_identity(const Configuration&) const override;
  nlohmann::json host_topology() const override;
  nlohmann::json versions() const override;
  nlohmann::json context() const override;
  std::string host() const override;
  std::string does_not_fit(const Configuration&) const override;
  Result<void> check_reachable() override;

  // The experiment's layout with one configuration's levels applied (exposed for tests).
  static Result<Layout> configure_layout(const Layout& base, const Configuration& config);

 private:
  // prepare's steps.
  Result<plan::HostFacts> configure_layouts(const Experiment& e,
                                            const std::vector<Configuration>& configs);
  Result<void> plan_configurations(plan::HostFacts facts);
  Result<std::vector<std::string>> prepare_host();
  Result<void> check_own_guest(const Experiment& e);
  BackendOptions options_;
  HostTopology host_;
  GuestImage image_;
  virt::AccelDecision accel_;                        // this host's, decided once before planning
  std::map<std::string, plan::GuestPlan> prepared_;  // by configuration key
  // Configurations the planner refused on this host: key -> its reason (issue 16), and the
  // resolved layout of every configuration (fitting or not; resume compares it).
  std::map<std::string, std::string> unfit_;
  std::map<std::string, Layout> layouts_;
  nlohmann::json versions_ = nlohmann::json::object();
  GuestSource guest_;  // [guest]: the built-in image or the user's disk
};

}  // namespace topolab::experiment
