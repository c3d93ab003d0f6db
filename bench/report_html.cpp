#include "report_html.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "svg_chart.hpp"

namespace bench {
namespace {

using svg::xml_escape;

std::string sig(double v, int digits = 3) {
  std::ostringstream s;
  s << std::setprecision(digits) << v;
  return s.str();
}

// A rate for a label: whole numbers from 100 up, else 3 significant digits.
std::string rate(double v) {
  std::ostringstream s;
  if (v >= 100) s << std::fixed << std::setprecision(0) << v;
  else s << std::setprecision(3) << v;
  return s.str();
}

// A problem size for a label: 2^k when it is a power of two, else its digits.
std::string size(double n) {
  const auto k = static_cast<int>(std::lround(std::log2(std::max(n, 1.0))));
  if (n >= 1024 && std::ldexp(1.0, k) == n) return "2^" + std::to_string(k);
  std::ostringstream s;
  s << std::fixed << std::setprecision(0) << n;
  return s.str();
}

std::string pct(double f) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(f < 0.1 ? 1 : 0) << 100 * f << "%";
  return s.str();
}

bool is_rate(const std::string& unit) { return unit.size() > 2 && unit.compare(unit.size() - 2, 2, "/s") == 0; }

// One device: what the lines and bars are named after. Runs of the same device (same name, driver
// and host) that measured different suites are one series, so a report made of several runs of
// one machine draws each device once; runs that measured the same suite stay apart.
struct DeviceSeries {
  std::string label;
  const Json* dev;  // its description, from the first run that has it
  std::string colour;
  std::vector<const Json*> rows;
  std::set<std::string> suites;
  std::vector<std::string> runs;
};

// A workload at one precision, across every device.
struct Group {
  std::string workload, precision, unit;
  // per DeviceSeries index: rows sorted by n
  std::map<std::size_t, std::vector<const Json*>> rows;
  bool several_sizes() const {
    for (const auto& [i, v] : rows) {
      std::set<std::uint64_t> ns;
      for (const Json* r : v) ns.insert(r->value("n", std::uint64_t{0}));
      if (ns.size() > 1) return true;
    }
    return false;
  }
};

double num(const Json& r, const char* key) {
  const auto it = r.find(key);
  return it != r.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string str(const Json& r, const char* key) {
  const auto it = r.find(key);
  return it != r.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const char* kStyle =
    "body{font-family:sans-serif;margin:24px;max-width:1400px;color:#222}"
    "table{border-collapse:collapse;font-size:12px;margin:8px 0}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".charts{display:flex;flex-wrap:wrap;gap:8px}.chart{border:1px solid #eee}"
    "code{font-size:12px}.fail{color:#b00;font-weight:bold}pre{white-space:pre-wrap;font-size:11px}";

class Page {
 public:
  explicit Page(const std::vector<LabelledResult>& runs) : runs_(runs) {
    auto key = [](const Json& doc, const Json& dev) {
      const std::string host = doc.contains("host") && doc["host"].is_object() ? str(doc["host"], "name") : "";
      return str(dev, "device") + "|" + str(dev, "driver") + "|" + host;
    };
    std::vector<std::string> keys;
    for (const auto& run : runs_)
      for (const auto& dev : run.doc["devices"]) {
        std::set<std::string> suites;
        for (const auto& r : dev["rows"]) suites.insert(str(r, "suite"));
        const std::string k = key(run.doc, dev);
        std::size_t i = 0;
        for (; i < series_.size(); ++i) {
          if (keys[i] != k) continue;
          bool overlap = false;
          for (const auto& x : suites) overlap = overlap || series_[i].suites.count(x);
          if (!overlap) break;
        }
        if (i == series_.size()) {
          series_.push_back({str(dev, "device"), &dev, svg::palette(i), {}, {}, {}});
          keys.push_back(k);
        }
        DeviceSeries& s = series_[i];
        for (const auto& r : dev["rows"]) s.rows.push_back(&r);
        s.suites.insert(suites.begin(), suites.end());
        s.runs.push_back(run.label);
      }
    // A device measured in several series (the same suite in two runs) is told apart by its runs.
    for (auto& s : series_) {
      const auto same = std::count_if(series_.begin(), series_.end(), [&](const DeviceSeries& x) { return x.label == s.label; });
      if (same > 1) {
        std::string runs;
        for (const auto& r : s.runs) runs += (runs.empty() ? "" : ", ") + r;
        s.label += " [" + runs + "]";
      }
    }
    next_colour_ = series_.size();
  }

  std::string html() {
    std::ostringstream o;
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"
      << "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\"><head><meta charset=\"UTF-8\"/>"
      << "<title>clstat-bench report</title><style>" << kStyle << "</style></head><body>\n"
      << "<h1>clstat-bench report</h1>\n";
    runs_table(o);
    devices_table(o);
    for (const auto& suite : suites()) suite_section(o, suite);
    o << "</body></html>\n";
    return o.str();
  }

 private:
  const std::vector<LabelledResult>& runs_;
  std::vector<DeviceSeries> series_;
  std::map<std::string, std::string> peer_colour_;
  std::size_t next_colour_ = 0;

  std::string colour_of_peer(const std::string& key) {
    auto it = peer_colour_.find(key);
    if (it == peer_colour_.end()) it = peer_colour_.emplace(key, svg::palette(next_colour_++)).first;
    return it->second;
  }

  void runs_table(std::ostringstream& o) const {
    o << "<h2>Runs</h2><table><tr><th>run</th><th>date</th><th>clstat</th><th>commit</th><th>host</th>"
         "<th>command</th></tr>\n";
    for (const auto& run : runs_) {
      const Json& d = run.doc;
      std::string host;
      if (d.contains("host") && d["host"].is_object())
        host = str(d["host"], "name") + ", " + str(d["host"], "cpu") + ", " + str(d["host"], "os");
      o << "<tr><td>" << xml_escape(run.label) << "</td><td>" << xml_escape(str(d, "date")) << "</td><td>"
        << xml_escape(str(d, "clstat_version")) << "</td><td><code>" << xml_escape(str(d, "git_commit"))
        << "</code></td><td>" << xml_escape(host) << "</td><td><code>" << xml_escape(str(d, "command"))
        << "</code></td></tr>\n";
    }
    o << "</table>\n";
  }

  void devices_table(std::ostringstream& o) const {
    o << "<h2>Devices</h2><table><tr><th>device</th><th>platform</th><th>driver</th><th>compute units</th>"
         "<th>copy GB/s</th><th>read GB/s</th><th>fp32 FMA GFLOP/s</th><th>fp64 FMA GFLOP/s</th><th>exp32 G/s</th>"
         "<th>native exp2 G/s</th><th>exp64 G/s</th><th>tuning</th><th>runs</th></tr>\n";
    for (const auto& s : series_) {
      const Json& d = *s.dev;
      const Json c = d.value("ceilings", Json::object());
      o << "<tr><td><span style=\"color:" << s.colour << "\">&#9632;</span> " << xml_escape(s.label) << "</td><td>"
        << xml_escape(str(d, "platform")) << "</td><td>" << xml_escape(str(d, "driver")) << "</td><td class=\"num\">"
        << num(d, "compute_units") << "</td>";
      for (const char* k : {"copy_gbs", "read_gbs", "fp32_fma_gflops", "fp64_fma_gflops", "exp32_gps", "native_exp32_gps", "exp64_gps"})
        o << "<td class=\"num\">" << sig(num(c, k), 4) << "</td>";
      std::string runs;
      for (const auto& r : s.runs) runs += (runs.empty() ? "" : ", ") + r;
      o << "<td><code>" << xml_escape(str(d, "tuning")) << "</code></td><td>" << xml_escape(runs) << "</td></tr>\n";
    }
    o << "</table>\n";
  }

  std::vector<std::string> suites() const {
    std::vector<std::string> out;
    for (const auto& s : series_)
      for (const Json* r : s.rows) {
        const std::string name = str(*r, "suite");
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
      }
    return out;
  }

  std::vector<Group> groups(const std::string& suite) const {
    std::vector<Group> out;
    for (std::size_t i = 0; i < series_.size(); ++i)
      for (const Json* rp : series_[i].rows) {
        const Json& r = *rp;
        if (str(r, "suite") != suite) continue;
        const std::string w = str(r, "workload"), p = str(r, "precision");
        auto g = std::find_if(out.begin(), out.end(), [&](const Group& x) { return x.workload == w && x.precision == p; });
        if (g == out.end()) {
          out.push_back({w, p, str(r, "unit"), {}});
          g = out.end() - 1;
        }
        g->rows[i].push_back(&r);
      }
    for (auto& g : out)
      for (auto& [i, v] : g.rows)
        std::stable_sort(v.begin(), v.end(), [](const Json* a, const Json* b) { return num(*a, "n") < num(*b, "n"); });
    return out;
  }

  std::string scaling_chart(const Group& g) {
    std::vector<svg::Series> lines;
    for (const auto& [i, rows] : g.rows) {
      svg::Series s{series_[i].label, series_[i].colour, false, {}};
      std::map<std::string, svg::Series> peers;
      for (const Json* r : rows) {
        s.points.emplace_back(num(*r, "n"), num(*r, "throughput"));
        const double pt = num(*r, "peer_throughput");
        if (pt > 0) {
          const std::string key = str(*r, "peer") + " (beside " + str(*series_[i].dev, "device") + ")";
          auto& ps = peers[key];
          if (ps.label.empty()) ps = {key, colour_of_peer(key), true, {}};
          ps.points.emplace_back(num(*r, "n"), pt);
        }
      }
      lines.push_back(std::move(s));
      for (auto& [k, ps] : peers) lines.push_back(std::move(ps));
    }
    return svg::line_chart(g.workload + " (" + g.precision + ")", "n", g.unit, lines);
  }

  // Bars for each group at its largest measured size: fraction of the ceiling when the rows have
  // one, else throughput over the fastest throughput measured in the group.
  std::string bars(const std::vector<const Group*>& gs, bool by_ceiling) {
    std::vector<svg::BarGroup> out;
    std::vector<std::pair<std::string, svg::Bar>> legend;
    std::set<std::string> in_legend;
    auto add_legend = [&](const std::string& label, const std::string& colour, bool hatched) {
      if (in_legend.insert(label).second) legend.push_back({label, svg::Bar{colour, hatched, 0, ""}});
    };
    for (const Group* g : gs) {
      double best = 0;
      // A peer may have run at fewer sizes than clstat: its bar is from the largest size it ran at.
      auto peer_row = [](const std::vector<const Json*>& rows) -> const Json* {
        for (auto it = rows.rbegin(); it != rows.rend(); ++it)
          if (num(**it, "peer_throughput") > 0) return *it;
        return nullptr;
      };
      for (const auto& [i, rows] : g->rows) {
        best = std::max(best, num(*rows.back(), "throughput"));
        if (const Json* p = peer_row(rows)) best = std::max(best, num(*p, "peer_throughput"));
      }
      svg::BarGroup bg{g->workload + " (" + g->precision + ")", {}};
      for (const auto& [i, rows] : g->rows) {
        const Json& r = *rows.back();
        const Json* pr = peer_row(rows);
        const double t = num(r, "throughput"), c = num(r, "ceiling_value"), pt = pr ? num(*pr, "peer_throughput") : 0;
        const double scale = by_ceiling ? c : best;
        if (scale <= 0) continue;
        bg.bars.push_back({series_[i].colour, false, t / scale,
                           rate(t) + " " + g->unit + (by_ceiling ? ", " + pct(t / c) + " of " + str(r, "ceiling") : "") +
                               ", n = " + size(num(r, "n"))});
        add_legend(series_[i].label, series_[i].colour, false);
        if (pt > 0) {
          const std::string key = str(*pr, "peer") + " (beside " + str(*series_[i].dev, "device") + ")";
          const double pc = by_ceiling ? num(*pr, "ceiling_value") : best;
          if (pc <= 0) continue;
          bg.bars.push_back({colour_of_peer(key), true, pt / pc,
                             str(*pr, "peer") + " " + rate(pt) + " " + g->unit + ", n = " + size(num(*pr, "n"))});
          add_legend(key, colour_of_peer(key), true);
        }
      }
      if (!bg.bars.empty()) out.push_back(std::move(bg));
    }
    if (out.empty()) return "";
    return svg::bar_chart(by_ceiling ? "fraction of the device's ceiling, at the largest size measured"
                                     : "throughput relative to the fastest measured, at the largest size measured",
                          by_ceiling ? "throughput / ceiling (peers on the same device's ceiling)" : "throughput / fastest",
                          out, legend);
  }

  void suite_section(std::ostringstream& o, const std::string& suite) {
    const auto gs = groups(suite);
    o << "<h2 id=\"suite-" << xml_escape(suite) << "\">" << xml_escape(suite) << "</h2>\n";
    std::vector<const Group*> scaling, ceiling, relative;
    for (const auto& g : gs) {
      if (!is_rate(g.unit)) continue;
      if (g.several_sizes()) scaling.push_back(&g);
      bool has_ceiling = false;
      for (const auto& [i, rows] : g.rows) has_ceiling = has_ceiling || num(*rows.back(), "ceiling_value") > 0;
      (has_ceiling ? ceiling : relative).push_back(&g);
    }
    if (!scaling.empty()) {
      o << "<h3>Throughput against problem size</h3><div class=\"charts\">";
      for (const Group* g : scaling) o << scaling_chart(*g);
      o << "</div>\n";
    }
    if (!ceiling.empty()) o << "<div>" << bars(ceiling, true) << "</div>\n";
    if (!relative.empty()) o << "<div>" << bars(relative, false) << "</div>\n";
    rows_table(o, gs);
  }

  void rows_table(std::ostringstream& o, const std::vector<Group>& gs) const {
    std::size_t count = 0;
    std::map<std::string, std::string> peer_errors;
    for (const auto& g : gs)
      for (const auto& [i, rows] : g.rows) count += rows.size();
    o << "<details><summary>all " << count << " rows</summary><table><tr><th>device</th><th>workload</th>"
         "<th>prec</th><th>n</th><th>kernel ms</th><th>spread</th><th>wall ms</th><th>throughput</th><th>unit</th>"
         "<th>of ceiling</th><th>peer</th><th>peer throughput</th><th>check</th><th>error</th></tr>\n";
    for (const auto& g : gs)
      for (const auto& [i, rows] : g.rows)
        for (const Json* rp : rows) {
          const Json& r = *rp;
          const Json k = r.value("kernel_ms", Json::object()), w = r.value("wall_ms", Json::object());
          const bool pass = r.value("pass", true);
          if (r.contains("peer_error")) peer_errors[series_[i].label + ": " + g.workload] = str(r, "peer_error");
          o << "<tr><td>" << xml_escape(series_[i].label) << "</td><td>" << xml_escape(g.workload) << "</td><td>"
            << xml_escape(g.precision) << "</td><td class=\"num\">" << sig(num(r, "n"), 12) << "</td><td class=\"num\">"
            << sig(num(k, "median"), 4) << "</td><td class=\"num\">" << pct(num(k, "spread")) << "</td><td class=\"num\">"
            << sig(num(w, "median"), 4) << "</td><td class=\"num\">" << sig(num(r, "throughput"), 4) << "</td><td>"
            << xml_escape(g.unit) << "</td><td class=\"num\">"
            << (num(r, "ceiling_value") > 0 ? pct(num(r, "fraction_of_ceiling")) : "") << "</td><td>"
            << xml_escape(str(r, "peer")) << "</td><td class=\"num\">"
            << (num(r, "peer_throughput") > 0 ? sig(num(r, "peer_throughput"), 4) : "") << "</td><td"
            << (pass ? "" : " class=\"fail\"") << ">" << (pass ? "" : "FAIL ") << xml_escape(str(r, "check"))
            << "</td><td class=\"num\">" << sig(num(r, "error"), 3) << "</td></tr>\n";
        }
    o << "</table></details>\n";
    if (!peer_errors.empty()) {
      o << "<details><summary>" << peer_errors.size() << " peers gave no number</summary>";
      for (const auto& [where, why] : peer_errors)
        o << "<p>" << xml_escape(where) << "</p><pre>" << xml_escape(why) << "</pre>";
      o << "</details>\n";
    }
  }
};

}  // namespace

void write_html_report(const std::string& path, const std::vector<LabelledResult>& runs) {
  Page page(runs);
  std::ofstream f(path);
  f << page.html();
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace bench
