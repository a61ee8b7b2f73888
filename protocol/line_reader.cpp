// LineReader (protocol.hpp): splits the byte stream into bounded lines, honouring the sync byte.
#include "protocol/protocol.hpp"

namespace topolab::protocol {

LineReader::LineReader(std::size_t max_line, bool honour_sync_byte)
    : max_line_(max_line), honour_sync_(honour_sync_byte) {}

void LineReader::reset() {
  partial_.clear();
  skipping_ = false;
  queue_.clear();
  head_ = 0;
}

void LineReader::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    std::size_t stop = bytes.find_first_of(honour_sync_ ? std::string_view("\n\xFF", 2) : "\n");
    push_byte_run(bytes.substr(0, stop));
    if (stop == std::string_view::npos) return;
    if (bytes[stop] == '\n') {
      if (skipping_) {
        skipping_ = false;
      } else {
        std::string line = std::move(partial_);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) queue_.push_back(Event{Kind::kLine, std::move(line), 0});
      }
    } else {  // sync byte
      queue_.push_back(Event{Kind::kSync, {}, partial_.size()});
      skipping_ = false;
    }
    partial_.clear();
    bytes.remove_prefix(stop + 1);
  }
}

void LineReader::push_byte_run(std::string_view run) {
  if (skipping_ || run.empty()) return;
  if (partial_.size() + run.size() > max_line_) {
    queue_.push_back(Event{Kind::kOversized, {}, partial_.size() + run.size()});
    partial_.clear();
    partial_.shrink_to_fit();
    skipping_ = true;
    return;
  }
  partial_.append(run);
}

std::optional<LineReader::Event> LineReader::next() {
  if (head_ >= queue_.size()) {
    queue_.clear();
    head_ = 0;
    return std::nullopt;
  }
  Event e = std::move(queue_[head_++]);
  if (head_ == queue_.size()) {
    queue_.clear();
    head_ = 0;
  }
  return e;
}

}  // namespace topolab::protocol
