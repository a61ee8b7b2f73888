#pragma once
// `topolab xml --base FILE`: the base is found as a path, else by name in the templates'
// domains/ folder (`--base windows-vfio.xml`), and what it says about the accelerator
// (<domain type>) and the CPU (<cpu mode>, <model>) is kept unless --accel / --set cpu.model
// say otherwise: a gaming template must not silently become type='qemu' with a TCG model.
#include <filesystem>
#include <optional>
#include <pugixml.hpp>
#include <string>

#include "common/file_io.hpp"
#include "common/result.hpp"
#include "orchestrator/planning/domain/domain_xml_writer.hpp"

namespace topolab::cli {

struct BaseTemplate {
  std::filesystem::path file;
  std::optional<Accelerator> accel;  // from <domain type='kvm'|'qemu'>
  std::string cpu_model;             // "host-passthrough" or the <model> of mode='custom'
  std::string accel_text, cpu_text;  // what the base said, for the message
};

inline Result<std::filesystem::path> find_base_template(const std::string& name) {
  std::error_code ec;
  const std::filesystem::path p(name);
  if (std::filesystem::exists(p, ec)) return p;
  // A path with a folder in it is a path: the reader names what is wrong with it.
  if (p.filename() != p) return p;
  const auto in_templates = templates_dir() / "domains" / p.filename();
  if (std::filesystem::exists(in_templates, ec)) return in_templates;
  std::string names;
  for (const auto& e : std::filesystem::directory_iterator(templates_dir() / "domains", ec)) {
    if (e.path().extension() == ".xml")
      names += (names.empty() ? "" : ", ") + e.path().filename().string();
  }
  return make_error(ErrorKind::input, "--base " + name + ": No such file, and not a template in " +
                                          (templates_dir() / "domains").string() + " (" + names +
                                          ")");
}

inline Result<BaseTemplate> read_base_template(const std::string& name) {
  BaseTemplate out;
  TL_ASSIGN(out.file, find_base_template(name));
  TL_ASSIGN(const std::string text, read_file(out.file, 4u << 20));
  pugi::xml_document doc;
  if (!doc.load_buffer(text.data(), text.size()) || !doc.child("domain")) {
    return out;  // the writer reports the XML error with its offset
  }
  const auto domain = doc.child("domain");
  const std::string type = domain.attribute("type").value();
  if (type == "kvm") out.accel = Accelerator::kKvm;
  if (type == "qemu") out.accel = Accelerator::kTcg;
  if (out.accel) out.accel_text = "<domain type='" + type + "'>";
  const auto cpu = domain.child("cpu");
  const std::string mode = cpu.attribute("mode").value();
  if (mode == "host-passthrough") out.cpu_model = mode;
  if (mode == "custom" && *cpu.child_value("model")) out.cpu_model = cpu.child_value("model");
  if (!out.cpu_model.empty()) out.cpu_text = "<cpu mode='" + mode + "'>";
  return out;
}

}  // namespace topolab::cli
