// Reading numeric tables for the CLI: CSV (header detected), or raw little-endian .f64 / .f32.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace clstat_cli {

struct Table {
  std::vector<std::string> names;  // column names (x1, x2, ... when the file has no header)
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;      // row-major rows x cols
};

/// Reads `path`. A .f64 / .f32 file is raw little-endian values, `dims` per row (dims > 0
/// required). Otherwise CSV: fields split on commas (spaces around them ignored, quotes around
/// names stripped); the first row is a header when any of its fields is not a number. Without
/// `columns` every column must be numeric; with `columns` ("a,b" by header name, or "1,3" by
/// 1-based position) only those are read, in that order. Empty fields, "NA" and "nan" read as NaN
/// (the library then rejects them by row and column). Throws std::runtime_error naming the file,
/// line and field on anything else.
Table read_table(const std::string& path, const std::string& columns, std::size_t dims);

/// Part `part` of `parts` of the rows, as read_table reads them (rows [part rows / parts,
/// (part + 1) rows / parts)): a raw file is read from that offset only; a CSV is read whole.
Table read_table_part(const std::string& path, const std::string& columns, std::size_t dims, std::size_t part,
                      std::size_t parts);

}  // namespace clstat_cli
