#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace bench::svg {
namespace {

std::string fmt(double v, int digits = 1) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// A decade's label: plain for 1e-3 .. 1e4, else 1eK.
std::string decade_label(int k) {
  if (k >= -3 && k <= 4) {
    std::ostringstream s;
    s << std::pow(10.0, k);
    return s.str();
  }
  return "1e" + std::to_string(k);
}

// The decades [lo, hi] that enclose [min, max] (at least one decade wide).
std::pair<int, int> decades(double min, double max) {
  int lo = static_cast<int>(std::floor(std::log10(min) + 1e-9));
  int hi = static_cast<int>(std::ceil(std::log10(max) - 1e-9));
  if (hi <= lo) hi = lo + 1;
  return {lo, hi};
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text; the JSON they come from may hold them.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') o += c;
    }
  }
  return o;
}

std::string palette(std::size_t i) {
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                  "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
  return colours[i % 10];
}

std::string line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                       const std::vector<Series>& series, int width, int height) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = 0, ymin = xmin, ymax = 0;
  std::vector<const Series*> shown;
  for (const auto& s : series) {
    bool any = false;
    for (auto [x, y] : s.points)
      if (x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y)) {
        any = true;
        xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
      }
    if (any) shown.push_back(&s);
  }
  const int legend_rows = static_cast<int>(shown.size());
  const int left = 64, right = 14, top = 26, bottom = 40;
  const int total_h = height + legend_rows * 15 + 4;
  const int pw = width - left - right, ph = height - top - bottom;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << width << "\" height=\"" << total_h
    << "\" viewBox=\"0 0 " << width << ' ' << total_h << "\" font-family=\"sans-serif\" font-size=\"11\">"
    << "<text x=\"" << width / 2 << "\" y=\"16\" text-anchor=\"middle\" font-weight=\"bold\">" << xml_escape(title)
    << "</text>";
  o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"#999\"/>";
  if (shown.empty()) {
    o << "<text x=\"" << left + pw / 2 << "\" y=\"" << top + ph / 2 << "\" text-anchor=\"middle\">no data</text></svg>";
    return o.str();
  }
  const auto [xl, xh] = decades(xmin, xmax);
  const auto [yl, yh] = decades(ymin, ymax);
  auto px = [&](double x) { return left + pw * (std::log10(x) - xl) / (xh - xl); };
  auto py = [&](double y) { return top + ph * (1 - (std::log10(y) - yl) / (yh - yl)); };
  for (int k = xl; k <= xh; ++k) {
    const double X = px(std::pow(10.0, k));
    o << "<line x1=\"" << fmt(X) << "\" y1=\"" << top << "\" x2=\"" << fmt(X) << "\" y2=\"" << top + ph
      << "\" stroke=\"#e4e4e4\"/><text x=\"" << fmt(X) << "\" y=\"" << top + ph + 14 << "\" text-anchor=\"middle\">"
      << decade_label(k) << "</text>";
  }
  for (int k = yl; k <= yh; ++k) {
    const double Y = py(std::pow(10.0, k));
    o << "<line x1=\"" << left << "\" y1=\"" << fmt(Y) << "\" x2=\"" << left + pw << "\" y2=\"" << fmt(Y)
      << "\" stroke=\"#e4e4e4\"/><text x=\"" << left - 4 << "\" y=\"" << fmt(Y + 4)
      << "\" text-anchor=\"end\">" << decade_label(k) << "</text>";
  }
  o << "<text x=\"" << left + pw / 2 << "\" y=\"" << top + ph + 32 << "\" text-anchor=\"middle\">"
    << xml_escape(x_label) << "</text><text transform=\"translate(14," << top + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << xml_escape(y_label) << "</text>";
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const Series& s = *shown[i];
    auto pts = s.points;
    std::sort(pts.begin(), pts.end());
    std::ostringstream line;
    for (auto [x, y] : pts)
      if (x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y)) line << fmt(px(x)) << ',' << fmt(py(y)) << ' ';
    o << "<polyline fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"1.8\""
      << (s.dashed ? " stroke-dasharray=\"5,3\"" : "") << " points=\"" << line.str() << "\"/>";
    for (auto [x, y] : pts)
      if (x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y))
        o << "<circle cx=\"" << fmt(px(x)) << "\" cy=\"" << fmt(py(y)) << "\" r=\"2.5\" fill=\"" << s.colour
          << "\"><title>" << xml_escape(s.label) << ": n = " << x << ", " << y << "</title></circle>";
    const int lx = left, ly = height + static_cast<int>(i) * 15;
    o << "<line x1=\"" << lx << "\" y1=\"" << ly - 4 << "\" x2=\"" << lx + 18 << "\" y2=\"" << ly - 4
      << "\" stroke=\"" << s.colour << "\" stroke-width=\"2\"" << (s.dashed ? " stroke-dasharray=\"5,3\"" : "")
      << "/><text x=\"" << lx + 22 << "\" y=\"" << ly << "\">" << xml_escape(s.label) << "</text>";
  }
  o << "</svg>";
  return o.str();
}

std::string bar_chart(const std::string& title, const std::string& axis_label, const std::vector<BarGroup>& groups,
                      const std::vector<std::pair<std::string, Bar>>& legend, int width) {
  const int label_w = 250, text_w = 250, bar_h = 10, gap = 7, top = 26 + 15 * static_cast<int>(legend.size()) + 8;
  double vmax = 1;
  int rows = 0;
  for (const auto& g : groups) {
    rows += static_cast<int>(g.bars.size());
    for (const auto& b : g.bars) vmax = std::max(vmax, b.value);
  }
  vmax *= 1.05;
  const int pw = width - label_w - text_w;
  const int ph = rows * bar_h + static_cast<int>(groups.size()) * gap;
  const int height = top + ph + 34;
  auto px = [&](double v) { return label_w + pw * std::max(0.0, v) / vmax; };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << ' ' << height << "\" font-family=\"sans-serif\" font-size=\"11\">"
    << "<text x=\"" << width / 2 << "\" y=\"16\" text-anchor=\"middle\" font-weight=\"bold\">" << xml_escape(title)
    << "</text>";
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const int lx = label_w, ly = 34 + static_cast<int>(i) * 15;
    const Bar& b = legend[i].second;
    o << "<rect x=\"" << lx << "\" y=\"" << ly - 9 << "\" width=\"14\" height=\"10\" fill=\"" << b.colour << "\""
      << (b.hatched ? " fill-opacity=\"0.3\" stroke-dasharray=\"3,2\"" : "") << " stroke=\"" << b.colour
      << "\"/><text x=\"" << lx + 18 << "\" y=\"" << ly << "\">" << xml_escape(legend[i].first) << "</text>";
  }
  for (double t = 0; t <= vmax + 1e-12; t += vmax > 4 ? 1 : 0.25) {
    const double X = px(t);
    o << "<line x1=\"" << fmt(X) << "\" y1=\"" << top << "\" x2=\"" << fmt(X) << "\" y2=\"" << top + ph
      << "\" stroke=\"" << (t == 1 ? "#555" : "#e4e4e4") << "\"" << (t == 1 ? " stroke-dasharray=\"2,2\"" : "")
      << "/><text x=\"" << fmt(X) << "\" y=\"" << top + ph + 13 << "\" text-anchor=\"middle\">" << t << "</text>";
  }
  o << "<text x=\"" << label_w + pw / 2 << "\" y=\"" << top + ph + 28 << "\" text-anchor=\"middle\">"
    << xml_escape(axis_label) << "</text>";
  int y = top;
  for (const auto& g : groups) {
    y += gap / 2;
    std::string shown = g.label.size() > 48 ? g.label.substr(0, 46) + "..." : g.label;
    o << "<text x=\"" << label_w - 6 << "\" y=\"" << y + static_cast<int>(g.bars.size()) * bar_h / 2 + 4
      << "\" text-anchor=\"end\"><title>" << xml_escape(g.label) << "</title>" << xml_escape(shown) << "</text>";
    for (const auto& b : g.bars) {
      o << "<rect x=\"" << label_w << "\" y=\"" << y + 1 << "\" width=\"" << fmt(px(b.value) - label_w)
        << "\" height=\"" << bar_h - 2 << "\" fill=\"" << b.colour << "\""
        << (b.hatched ? " fill-opacity=\"0.3\" stroke-dasharray=\"3,2\" stroke=\"" + b.colour + "\"" : "")
        << "><title>" << xml_escape(b.text) << "</title></rect><text x=\"" << fmt(px(b.value) + 4) << "\" y=\""
        << y + bar_h - 1 << "\" font-size=\"9\">" << xml_escape(b.text) << "</text>";
      y += bar_h;
    }
    y += gap - gap / 2;
  }
  o << "</svg>";
  return o.str();
}

}  // namespace bench::svg
