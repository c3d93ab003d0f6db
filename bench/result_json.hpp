// The clstat-bench result file: one JSON document per run (tool, version, commit, date, command,
// host, and per device its description, ceilings and rows). The HTML report is made from these
// documents, so a run and earlier files (--compare) are drawn the same way.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report.hpp"

namespace bench {

using Json = nlohmann::ordered_json;

/// The run as a JSON document (keys in a fixed order, so diffs between runs stay readable).
Json result_json(const std::vector<DeviceReport>& devices, const std::string& command);

/// Writes doc to path, indented; throws std::runtime_error when the file cannot be written.
void write_json(const std::string& path, const Json& doc);

/// Reads a result file written by clstat-bench. Throws std::runtime_error naming the file when it
/// cannot be read, is not JSON, or has no "devices" array.
Json read_result(const std::string& path);

}  // namespace bench
