#include "guest-agent/bench/cpu_board.hpp"

#include "guest-agent/os.hpp"

namespace topolab::bench {

namespace {

std::atomic<CpuBoard*> g_open_board{nullptr};

constexpr int kCpuBits = 20;  // CPU ids are far below 2^20 - 1 (Windows: group * 64 + bit)

struct Seat {
  std::atomic<std::uint64_t>* slot = nullptr;
  std::uint64_t key = 0;
  CpuBoard* board = nullptr;
};
thread_local Seat t_seat;

}  // namespace

bool CpuBoard::open() {
  CpuBoard* none = nullptr;
  open_ = g_open_board.compare_exchange_strong(none, this, std::memory_order_acq_rel);
  return open_;
}

CpuBoard::~CpuBoard() {
  if (open_) g_open_board.store(nullptr, std::memory_order_release);
}

std::map<std::int64_t, int> CpuBoard::read() const {
  std::map<std::int64_t, int> out;
  for (const auto& s : slots_) {
    const std::uint64_t v = s.load(std::memory_order_relaxed);
    if (v == 0) continue;
    const auto cpu = static_cast<int>(v & ((std::uint64_t{1} << kCpuBits) - 1)) - 1;
    if (cpu >= 0) out[static_cast<std::int64_t>(v >> kCpuBits)] = cpu;
  }
  return out;
}

CpuBoardSeat::CpuBoardSeat() {
  CpuBoard* board = g_open_board.load(std::memory_order_acquire);
  if (board == nullptr) return;
  const std::uint64_t slot = board->next_slot_.fetch_add(1, std::memory_order_relaxed);
  t_seat = {&board->slots_[slot % CpuBoard::kSlots],
            board->next_key_.fetch_add(1, std::memory_order_relaxed), board};
  note_current_cpu();
}

CpuBoardSeat::~CpuBoardSeat() {
  note_current_cpu();  // where it ended; the slot keeps it until a later thread takes the slot
  t_seat = {};
}

void note_current_cpu() {
  if (t_seat.slot == nullptr) return;
  const int cpu = agent::os::current_cpu();
  if (cpu < 0 || cpu >= (1 << kCpuBits) - 1) return;
  t_seat.slot->store((t_seat.key << kCpuBits) | static_cast<std::uint64_t>(cpu + 1),
                     std::memory_order_relaxed);
  t_seat.board->posted_.store(true, std::memory_order_relaxed);
}

}  // namespace topolab::bench
