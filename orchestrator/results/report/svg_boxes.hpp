#pragma once
// Nested labelled boxes, lstopo style: containers (package, die, L3, core) flow their children
// left to right and wrap at a maximum width; leaves are CPU squares with two short text lines.
// Used by the placement diagram and the guest-seen topology (svg_topology.cpp).
#include <ostream>
#include <string>
#include <vector>

namespace topolab::report::svg {

struct Box {
  std::string label;  // container caption (escaped when drawn)
  std::string cls;    // CSS class of the frame: tpkg, tdie, tl3, tcore, tcpu, temu, tfloat, tidle
  bool leaf = false;
  std::string line1, line2;  // leaf text: CPU id, then what runs there ("v3", "emu")
  std::string fill;          // leaf fill colour; empty: the class's own
  std::string title;         // tooltip
  std::vector<Box> children;
  double x = 0, y = 0, w = 0, h = 0;  // set by layout_boxes
};

// Computes sizes and positions (relative to the root's top-left at 0,0).
void layout_boxes(Box& root, double max_width);
// Writes the laid-out tree as SVG elements (no <svg> wrapper), offset by (dx, dy).
void render_boxes(std::ostream& o, const Box& root, double dx, double dy);

}  // namespace topolab::report::svg
