#pragma once
// The HTML report's picture sections (html_reporter.cpp calls these; kept apart so that the
// tables and the pictures can change independently).
#include <ostream>

#include "orchestrator/results/report/report_data.hpp"

namespace topolab::report::svg {

// CSS for the pictures, to go inside the page's <style>.
extern const char* const kPictureStyle;

// "Scaling": one chart per benchmark and numeric factor; nothing when no factor is numeric.
void write_scaling_section(std::ostream& o, const ReportData& data);
// "Placement on the host" and "Topology the guest saw", one picture per configuration.
void write_topology_sections(std::ostream& o, const ReportData& data);
// The heat map of one c2c matrix (drawn by `heat_map`) with its class summary beside it.
void write_c2c_with_classes(std::ostream& o, const LatencyMatrix& m,
                            void (*heat_map)(std::ostream&, const LatencyMatrix&));

}  // namespace topolab::report::svg
