#include "table_input.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cli_common.hpp"

namespace clstat_cli {
namespace {

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
  std::string t = s.substr(a, b - a);
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) t = t.substr(1, t.size() - 2);
  return t;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  std::istringstream in(line);
  while (std::getline(in, cur, ',')) f.push_back(trim(cur));
  if (!line.empty() && line.back() == ',') f.push_back("");
  return f;
}

bool number(const std::string& s, double& v) {
  if (s.empty() || s == "NA" || s == "nan" || s == "NaN") {
    v = std::nan("");
    return true;
  }
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

// Rows [part rows / parts, (part + 1) rows / parts) of a raw file, read from their offset: a
// process of an MPI run reads only its share.
template <class T>
Table read_binary(const std::string& path, std::size_t dims, std::size_t part = 0, std::size_t parts = 1) {
  if (dims == 0) throw std::runtime_error(path + ": raw binary input needs --dims d");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path);
  const auto size = static_cast<std::size_t>(in.tellg());
  if (size % (sizeof(T) * dims) != 0)
    throw std::runtime_error(path + ": " + std::to_string(size) + " bytes is not a whole number of rows of " +
                             std::to_string(dims) + " values of " + std::to_string(sizeof(T)) + " bytes");
  if (size == 0) throw std::runtime_error(path + ": the file is empty (no values)");
  const std::size_t all = size / (sizeof(T) * dims);
  const std::size_t r0 = all * part / parts, r1 = all * (part + 1) / parts;
  std::vector<char> bytes((r1 - r0) * dims * sizeof(T));
  in.seekg(static_cast<std::streamoff>(r0 * dims * sizeof(T)));
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    throw std::runtime_error("cannot read " + path);
  Table t;
  t.cols = dims;
  t.rows = r1 - r0;
  t.values.resize(t.rows * dims);
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));  // the host is little-endian (x86, ARM)
    t.values[i] = static_cast<double>(v);
  }
  for (std::size_t k = 0; k < dims; ++k) t.names.push_back("x" + std::to_string(k + 1));
  return t;
}

}  // namespace

Table read_table(const std::string& path, const std::string& columns, std::size_t dims) {
  if (ends_with(path, ".f64")) return read_binary<double>(path, dims);
  if (ends_with(path, ".f32")) return read_binary<float>(path, dims);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> line_no;
  for (std::size_t ln = 1; std::getline(in, line); ++ln) {
    if (trim(line).empty() || line[0] == '#') continue;
    rows.push_back(split(line));
    line_no.push_back(ln);
  }
  if (rows.empty()) throw std::runtime_error(path + ": no data");
  const std::size_t width = rows[0].size();
  bool header = false;
  for (const auto& f : rows[0]) {
    double v;
    if (!number(f, v) || f.empty()) header = true;
  }
  std::vector<std::string> names;
  for (std::size_t k = 0; k < width; ++k) names.push_back(header ? rows[0][k] : "x" + std::to_string(k + 1));
  std::vector<std::size_t> pick;
  if (columns.empty()) {
    for (std::size_t k = 0; k < width; ++k) pick.push_back(k);
  } else {
    for (const auto& c : split(columns)) {
      std::size_t k = width;
      for (std::size_t j = 0; j < width; ++j)
        if (names[j] == c) {
          if (k != width)
            throw std::runtime_error(path + ": column name '" + c + "' is ambiguous (columns " + std::to_string(k + 1) +
                                     " and " + std::to_string(j + 1) + "); name it by number");
          k = j;
        }
      if (k == width) {
        char* end = nullptr;
        const long idx = std::strtol(c.c_str(), &end, 10);
        if (end && *end == '\0' && idx >= 1 && static_cast<std::size_t>(idx) <= width) k = static_cast<std::size_t>(idx - 1);
      }
      if (k == width) throw std::runtime_error(path + ": no column '" + c + "'");
      pick.push_back(k);
    }
  }
  Table t;
  t.cols = pick.size();
  for (std::size_t k : pick) t.names.push_back(names[k]);
  for (std::size_t r = header ? 1 : 0; r < rows.size(); ++r) {
    if (rows[r].size() != width)
      throw std::runtime_error(path + ":" + std::to_string(line_no[r]) + ": " + std::to_string(rows[r].size()) +
                               " fields, the first row has " + std::to_string(width));
    for (std::size_t k : pick) {
      double v;
      if (!number(rows[r][k], v))
        throw std::runtime_error(path + ":" + std::to_string(line_no[r]) + ": field '" + rows[r][k] + "' in column '" +
                                 names[k] + "' is not a number");
      t.values.push_back(v);
    }
    ++t.rows;
  }
  if (t.rows == 0) throw std::runtime_error(path + ": a header but no data rows");
  return t;
}

Table read_table_part(const std::string& path, const std::string& columns, std::size_t dims, std::size_t part,
                      std::size_t parts) {
  if (parts == 0 || part >= parts) throw std::invalid_argument("read_table_part: part outside 0..parts-1");
  if (ends_with(path, ".f64")) return read_binary<double>(path, dims, part, parts);
  if (ends_with(path, ".f32")) return read_binary<float>(path, dims, part, parts);
  Table t = read_table(path, columns, dims);
  const std::size_t r0 = t.rows * part / parts, r1 = t.rows * (part + 1) / parts;
  t.values = std::vector<double>(t.values.begin() + static_cast<std::ptrdiff_t>(r0 * t.cols),
                                 t.values.begin() + static_cast<std::ptrdiff_t>(r1 * t.cols));
  t.rows = r1 - r0;
  return t;
}

}  // namespace clstat_cli
