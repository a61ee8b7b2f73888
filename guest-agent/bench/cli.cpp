// `topolab-agent run BENCH [--param k=v ...] [--json]`
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "common/exit_code.hpp"
#include "common/terminal_text.hpp"
#include "guest-agent/bench/benchmark.hpp"
#include "guest-agent/bench/benchmark_def.hpp"

namespace topolab::bench {
namespace {

constexpr const char* kUsage =
    "usage: topolab-agent run BENCH [--param k=v ...] [--json] [--no-sampling]\n"
    "       topolab-agent run --list\n";

std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    std::ostringstream s;
    s << std::setprecision(4) << v.get<double>();
    return s.str();
  }
  return v.dump();
}

bool is_table(const nlohmann::json& v) {
  return v.is_array() && !v.empty() && v.front().is_object();
}

// Arrays of objects print as tables of their scalar fields; other values as key: value.
void print_details(std::ostream& out, const nlohmann::json& details) {
  for (const auto& [key, value] : details.items()) {
    if (!is_table(value)) {
      if (value.is_object() && value.size() > 0 && key != "topology") {
        out << key << ":\n";
        for (const auto& [k, v] : value.items()) out << "  " << k << ": " << v.dump() << "\n";
      } else {
        std::string text = value.is_primitive() ? scalar_text(value) : value.dump();
        out << key << ": " << text << "\n";
      }
      continue;
    }
    std::vector<std::string> columns;
    for (const auto& [k, v] : value.front().items()) {
      if (v.is_primitive()) columns.push_back(k);
    }
    out << key << ":\n ";
    for (const auto& c : columns) out << " " << std::setw(12) << c;
    out << "\n";
    for (const auto& row : value) {
      out << " ";
      for (const auto& c : columns) {
        out << " " << std::setw(12) << (row.contains(c) ? scalar_text(row[c]) : "");
      }
      out << "\n";
    }
  }
}

void print_human(std::ostream& out, const nlohmann::json& r) {
  out << "benchmark: " << r["benchmark"].get<std::string>()
      << "  metric: " << r["metric"].get<std::string>() << " [" << r["unit"].get<std::string>()
      << "] (" << (r["lower_is_better"].get<bool>() ? "lower" : "higher") << " is better)\n";
  out << "params: " << r["params"].dump() << "\n";
  const auto& s = r["summary"];
  out << "summary: n=" << s["n"].dump();
  for (const char* k : {"min", "median", "mean", "max", "cv"}) {
    out << "  " << k << "=" << scalar_text(s[k]);
  }
  out << "\nenvironment: " << r["environment"].dump() << "\n";
  print_details(out, r["details"]);
  out << "telemetry: " << r["telemetry"].dump() << "\n";
}

void print_list(std::ostream& out) {
  for (const auto& d : all_benchmarks()) {
    out << d.name << ": " << d.description << "\n";
    for (const auto& p : d.params) {
      out << "    " << std::left << std::setw(12) << p.name << std::right << " "
          << to_string(p.type) << ", default " << p.default_value.dump();
      if (p.max > p.min) out << ", " << p.min << ".." << p.max;
      out << ": " << p.help << "\n";
    }
  }
}

}  // namespace

int run_benchmark_cli(int argc, char** argv) {
  std::string name;
  bool json = false;
  BenchContext ctx;  // --no-sampling: the overhead bench's baseline (bench/telemetry)
  nlohmann::json params = nlohmann::json::object();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json" || arg == "--no-sampling") {
      (arg == "--json" ? json : ctx.sample_telemetry) = arg == "--json";
    } else if (arg == "--list") {
      print_list(std::cout);
      return to_int(ExitCode::ok);
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return to_int(ExitCode::ok);
    } else if (arg == "--param" || arg == "-p" || arg.rfind("--param=", 0) == 0) {
      std::string kv;
      if (arg.rfind("--param=", 0) == 0) {
        kv = arg.substr(8);
      } else if (i + 1 < argc) {
        kv = argv[++i];
      } else {
        std::cerr << "topolab-agent run: --param needs k=v\n";
        return to_int(ExitCode::usage);
      }
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::cerr << "topolab-agent run: --param '" << kv << "' is not k=v\n";
        return to_int(ExitCode::usage);
      }
      params[kv.substr(0, eq)] = parse_cli_value(kv.substr(eq + 1));
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "topolab-agent run: unknown option '" << arg << "'\n" << kUsage;
      return to_int(ExitCode::usage);
    } else if (name.empty()) {
      name = arg;
    } else {
      std::cerr << "topolab-agent run: unexpected argument '" << arg << "'\n" << kUsage;
      return to_int(ExitCode::usage);
    }
  }
  // The tiny program spawn-loop execs: the agent's own binary, `run true`.
  if (name == "true") return to_int(ExitCode::ok);
  if (name.empty()) {
    std::cerr << "topolab-agent run: no benchmark named\n" << kUsage;
    return to_int(ExitCode::usage);
  }
  auto result = run_benchmark(name, params, ctx);
  if (!result) {
    std::cerr << "topolab-agent run: " << terminal_safe(result.error().message) << "\n";
    return to_int(exit_code_for(result.error()));
  }
  if (json) {
    std::cout << result->dump() << "\n";
  } else {
    print_human(std::cout, *result);
  }
  return to_int(ExitCode::ok);
}

}  // namespace topolab::bench
