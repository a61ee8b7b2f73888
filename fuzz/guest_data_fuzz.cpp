// Fuzzes the host side of guest data end to end (issue 12, class 1): guest lines -> decode ->
// hello/result validation -> results store (a temp SQLite file) -> report data -> every
// reporter. Each line is also stored raw, as an older or hostile build could have written it,
// so the report's typed re-read of stored rows is fuzzed too.
// Beyond "no crash, no exception": a validated result is always accepted by the store and
// validates again from its stored form; a report of the store always loads; the console table
// never carries a raw ESC byte.
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "common/json_text.hpp"
#include "orchestrator/results/report/reporter.hpp"
#include "orchestrator/results/store/result_store.hpp"
#include "protocol/protocol.hpp"

namespace {

namespace proto = topolab::protocol;
namespace store = topolab::store;
using nlohmann::json;

constexpr int kMaxLines = 32;

const std::string& db_path() {
  static const std::string path = "/dev/shm/topolab-fuzz-guest-data-" + std::to_string(getpid());
  return path;
}

void remove_db() {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_path() + suffix);
}

// What a hostile or older build could have stored: the line's text as the run's result.
void store_raw(const std::string& text, int repetition) {
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path().c_str(), &db) != SQLITE_OK) std::abort();
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db,
                     "INSERT OR REPLACE INTO runs(cell_id, boot_id, benchmark_index, benchmark, "
                     "repetition, params, result, started) VALUES(1, 1, 0, 'raw', ?1, '{}', ?2, "
                     "'now')",
                     -1, &s, nullptr);
  sqlite3_bind_int(s, 1, repetition);
  sqlite3_bind_text(s, 2, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  sqlite3_step(s);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

void report_everything(store::ResultStore& st) {
  auto data = topolab::report::load_report(st, "");
  if (!data.ok()) std::abort();  // one experiment, readable store: it always loads
  for (const auto& format : topolab::report::report_formats()) {
    std::ostringstream out;
    auto reporter = topolab::report::make_reporter(format, out);
    if (!reporter.ok()) std::abort();
    (*reporter)->report(*data);
    if ((format == "table" || format == "markdown") && out.str().find('\x1b') != std::string::npos)
      std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  remove_db();
  auto st = store::ResultStore::open(db_path());
  if (!st.ok()) std::abort();
  auto exp = (*st)->begin_experiment("fuzz", {{"benchmarks", {{{"name", "b"}}}}}, nullptr, {});
  if (!exp.ok()) std::abort();
  json factors = {{"x", "1"}};
  auto cell =
      (*st)->upsert_cell(*exp, {factors.dump(), factors.dump(), factors, "x=1", 0, nullptr, ""});
  if (!cell.ok()) std::abort();
  store::BootRecord boot;
  boot.experiment_id = *exp;
  boot.config_key = factors.dump();
  boot.mismatches = json::array();

  int repetition = 0;
  std::istringstream lines(input);
  std::string line;
  for (int n = 0; n < kMaxLines && std::getline(lines, line); ++n) {
    auto msg = proto::decode(line);
    if (msg.ok() && msg->type == proto::type::kHello) {
      auto hello = proto::parse_hello(*msg);
      if (hello.ok()) {  // the typed hello is what the host stores (versions, seen topology)
        boot.seen = hello->topology;
        boot.versions = {{"agent", hello->agent_version}, {"kernel", hello->kernel}};
        // The report's context reader (issue 18) gets whatever the line carried as the boot's
        // context, timings and intended topology: shapes no topolab build writes.
        boot.context = boot.timings = boot.intended = msg->body;
        auto boot_id = (*st)->add_boot(boot);
        if (!boot_id.ok()) std::abort();
        if (!(*st)->set_cell_status(*cell, "done", "", msg->body, *boot_id).ok()) std::abort();
      }
    } else if (msg.ok() && msg->type == proto::type::kResult) {
      auto result = proto::parse_result(*msg);
      if (result.ok()) {
        const json stored = proto::result_to_json(*result);
        if (!proto::validate_result(stored).ok()) std::abort();
        store::RunRecord run{*cell, 1, 0, "b", ++repetition, json::object(), stored, 1.0};
        if (!(*st)->add_run(run).ok()) std::abort();  // validated data is always storable
      }
    }
    const json* raw = msg.ok() && msg->body.contains("result") ? &msg->body["result"] : nullptr;
    store_raw(raw ? topolab::json_line(*raw) : line, ++repetition);
  }
  report_everything(**st);
  st->reset();
  remove_db();
  return 0;
}
