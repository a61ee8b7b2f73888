#include "orchestrator/run/experiment/vcpu_sampler.hpp"

#include <algorithm>

#include "orchestrator/base/statistics/descriptive.hpp"

namespace topolab::experiment {

VcpuSampler::VcpuSampler(Reader reader, Options options)
    : reader_(std::move(reader)),
      options_(options),
      interval_(std::max(options.interval, std::chrono::milliseconds(1))) {
  options_.max_ticks = std::clamp<std::size_t>(options_.max_ticks, 2, protocol::kMaxHostSamples);
  thread_ = std::thread([this] { loop(); });
}

VcpuSampler::~VcpuSampler() { stop(); }

void VcpuSampler::loop() {
  using Clock = std::chrono::steady_clock;
  auto next = Clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    const auto t0 = Clock::now();
    auto cpus = reader_();
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    lock.lock();
    if (!cpus) {
      error_ = cpus.error().message.substr(0, protocol::kMaxNotSampledBytes);
      return;
    }
    if (cpus->size() > protocol::kMaxHostVcpus) cpus->resize(protocol::kMaxHostVcpus);
    ticks_.push_back(std::move(*cpus));
    if (read_us_.size() < options_.max_ticks) read_us_.push_back(us);
    if (ticks_.size() >= options_.max_ticks) thin();
    // Bounded even when a read takes longer than the period: at least half a period apart.
    next = std::max(next + interval_, Clock::now() + interval_ / 2);
    wake_.wait_until(lock, next, [this] { return stopping_; });
  }
}

void VcpuSampler::thin() {
  std::size_t kept = 0;
  for (std::size_t k = 0; k < ticks_.size(); k += 2) ticks_[kept++] = std::move(ticks_[k]);
  ticks_.resize(kept);
  interval_ *= 2;
}

VcpuTicks VcpuSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  VcpuTicks out;
  out.ticks = ticks_;
  out.interval_ms = static_cast<int>(interval_.count());
  if (!read_us_.empty()) out.read_us_median = statistics::median(read_us_);
  return out;
}

}  // namespace topolab::experiment
