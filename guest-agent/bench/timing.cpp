#include "guest-agent/bench/timing.hpp"

#include <mutex>
#include <optional>

#include "guest-agent/bench/cpu_board.hpp"
#include "guest-agent/bench/pinning.hpp"

namespace topolab::bench {

Result<void> run_threads(const std::vector<int>& cpus,
                         const std::function<Result<void>(int index)>& body) {
  std::mutex mu;
  std::optional<Error> first_error;
  auto record = [&](const Error& e) {
    std::lock_guard lock(mu);
    if (!first_error) first_error = e;
  };
  std::vector<std::thread> threads;
  threads.reserve(cpus.size());
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    threads.emplace_back([&, i] {
      // A failed pin still runs the body so barriers inside it are not left waiting.
      if (auto pinned = pin_current_thread(cpus[i]); !pinned) record(pinned.error());
      // Seated after the pin: its first post is where the thread runs, so the pin itself is
      // never counted as a migration (a CI run of 751d051 counted one for pinned threads).
      const CpuBoardSeat seat;  // posts this thread's CPU where the sampler cannot read it
      if (auto r = body(static_cast<int>(i)); !r) record(r.error());
    });
  }
  for (auto& t : threads) t.join();
  if (first_error) return *first_error;
  return {};
}

}  // namespace topolab::bench
