#include "orchestrator/results/report/svg_boxes.hpp"

#include <algorithm>

#include "orchestrator/results/report/svg_util.hpp"

namespace topolab::report::svg {
namespace {

constexpr double kLeafW = 40, kLeafH = 30, kPad = 5, kGap = 4, kCaption = 14;

void place(Box& b, double max_width) {
  if (b.leaf) {
    b.w = kLeafW;
    b.h = kLeafH;
    return;
  }
  const double top = b.label.empty() ? kPad : kPad + kCaption;
  const double inner = std::max(max_width - 2 * kPad, kLeafW);
  double x = kPad, y = top, row_h = 0, widest = 0;
  for (auto& c : b.children) {
    place(c, inner);
    if (x > kPad && x + c.w > kPad + inner) {  // wrap to a new row
      x = kPad;
      y += row_h + kGap;
      row_h = 0;
    }
    c.x = x;
    c.y = y;
    x += c.w + kGap;
    row_h = std::max(row_h, c.h);
    widest = std::max(widest, x - kGap);
  }
  // A caption needs room too: about 6 px per character at 11 px.
  const double caption_w =
      2 * kPad + 6.2 * static_cast<double>(std::min<std::size_t>(b.label.size(), kMaxLabelBytes));
  b.w = std::max({widest + kPad, caption_w, 2 * kPad + 10});
  b.h = y + row_h + kPad;
}

void draw(std::ostream& o, const Box& b, double ox, double oy) {
  const double x = ox + b.x, y = oy + b.y;
  o << "<g><rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(b.w)
    << "\" height=\"" << num(b.h) << "\" class=\"" << esc(b.cls) << "\"";
  // A style, not a fill attribute: the class's CSS fill would win over the attribute.
  if (!b.fill.empty()) o << " style=\"fill:" << esc(b.fill) << "\"";
  o << ">";
  if (!b.title.empty()) o << "<title>" << esc(b.title, 400) << "</title>";
  o << "</rect>";
  if (b.leaf) {
    o << "<text x=\"" << num(x + b.w / 2) << "\" y=\"" << num(y + 12)
      << "\" text-anchor=\"middle\" class=\"bx1\">" << esc(b.line1, 12) << "</text>";
    if (!b.line2.empty())
      o << "<text x=\"" << num(x + b.w / 2) << "\" y=\"" << num(y + 25)
        << "\" text-anchor=\"middle\" class=\"bx2\">" << esc(b.line2, 12) << "</text>";
  } else if (!b.label.empty()) {
    o << "<text x=\"" << num(x + kPad) << "\" y=\"" << num(y + 13) << "\" class=\"bxl\">"
      << esc(b.label) << "</text>";
  }
  o << "</g>\n";
  for (const auto& c : b.children) draw(o, c, x, y);
}

}  // namespace

void layout_boxes(Box& root, double max_width) {
  place(root, max_width);
  root.x = 0;
  root.y = 0;
}

void render_boxes(std::ostream& o, const Box& root, double dx, double dy) {
  draw(o, root, dx - root.x, dy - root.y);
}

}  // namespace topolab::report::svg
