// Inline SVG charts for the clstat-bench HTML report: a log-log line chart (throughput against
// problem size) and a horizontal bar chart (fraction of a device's ceiling). The output is
// well-formed XML, so the page that holds it parses as XHTML; nothing is fetched or scripted.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace bench::svg {

struct Series {
  std::string label;
  std::string colour;   // any SVG colour, e.g. "#1f77b4"
  bool dashed = false;  // peers are dashed, clstat solid
  std::vector<std::pair<double, double>> points;  // (x, y), both > 0; others are skipped
};

/// A line chart with log2 x and log10 y axes, W x H pixels with the legend below the plot.
/// Series with no positive point are left out; an empty chart says so in its body.
std::string line_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                       const std::vector<Series>& series, int width = 460, int height = 300);

struct Bar {
  std::string colour;
  bool hatched = false;  // peers
  double value = 0;      // bar length, in the chart's unit (drawn from 0)
  std::string text;      // printed after the bar
};
struct BarGroup {
  std::string label;  // the category, printed left of its bars
  std::vector<Bar> bars;
};

/// Horizontal bars, one group per category, from 0 to max(1, largest value) with a dotted line at
/// 1; the legend (label, colour, hatched) is printed above the bars.
std::string bar_chart(const std::string& title, const std::string& axis_label, const std::vector<BarGroup>& groups,
                      const std::vector<std::pair<std::string, Bar>>& legend, int width = 940);

/// Escapes &, <, >, " and ' for XML text and attributes.
std::string xml_escape(const std::string& s);

/// The i-th colour of a palette that tells 10 series apart (then repeats).
std::string palette(std::size_t i);

}  // namespace bench::svg
