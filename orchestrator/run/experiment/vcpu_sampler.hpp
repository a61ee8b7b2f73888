#pragma once
// Samples which host CPU each vCPU thread is on while one benchmark runs (issue 26 item 2):
// a thread started with the run request and stopped when its reply arrived, reading through an
// injected reader (virt::vcpu_host_cpus for a local guest) at a bounded rate. A long run keeps
// its whole length at bounded memory: at max_ticks every other tick is dropped and the period
// doubles. The thread is joined by stop() or the destructor, so every exit path (an error
// reply, an exception, the interrupt's cleanup destroying the domain: the reader fails and the
// thread ends) joins it.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.hpp"
#include "orchestrator/run/experiment/vcpu_residency.hpp"

namespace topolab::experiment {

class VcpuSampler {
 public:
  // Per vCPU index its host CPU now (-1: not known).
  using Reader = std::function<Result<std::vector<int>>()>;
  struct Options {
    std::chrono::milliseconds interval{100};  // ~0.5 ms a libvirt read: ~0.5 % of a CPU
    std::size_t max_ticks = 4096;
  };
  VcpuSampler(Reader reader, Options options);
  ~VcpuSampler();
  VcpuSampler(const VcpuSampler&) = delete;
  VcpuSampler& operator=(const VcpuSampler&) = delete;

  // Stops and joins the thread (idempotent); the ticks taken, and the reader's first error
  // (sampling stops there) in `error`.
  VcpuTicks stop();
  const std::string& error() const { return error_; }

 private:
  void loop();
  void thin();  // at max_ticks: every other tick, twice the period

  Reader reader_;
  Options options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<std::vector<int>> ticks_;  // written by the thread until it is joined
  std::vector<double> read_us_;          // the first max_ticks reads' cost
  std::chrono::milliseconds interval_;
  std::string error_;
  std::thread thread_;  // last: started after everything it reads
};

}  // namespace topolab::experiment
