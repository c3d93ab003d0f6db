// The clstat-bench HTML report: one self-contained page (inline SVG, inline CSS, no script) that
// sets every device of one or more result documents side by side.
#pragma once

#include <string>
#include <vector>

#include "result_json.hpp"

namespace bench {

struct LabelledResult {
  std::string label;  // how the page names the run: "this run" or the file's name
  Json doc;           // as result_json / read_result give it
};

/// Writes the page to path. Per suite: throughput against problem size (log-log, one line per
/// device and one dashed line per peer) for workloads measured at several sizes; the fraction of
/// each device's ceiling at the largest size, with the peers' throughput on the same scale, or
/// the speed relative to the fastest measured where the workload has no ceiling; and every row in
/// a table. Above them: the runs (date, version, commit, command, host) and the devices (driver,
/// ceilings). Only rows whose unit is a rate ("/s") are drawn. The page is well-formed XHTML.
/// Throws std::runtime_error when path cannot be written.
void write_html_report(const std::string& path, const std::vector<LabelledResult>& runs);

}  // namespace bench
