// Runs a peer (a Python script timing what a user would run instead) in its own process, and keeps
// what it said: its stdout for the numbers, and on failure its exit status and stderr, so a peer
// column that comes back empty says why in the bench log and in the JSON row.
#pragma once

#include <optional>
#include <string>

namespace clstat_bench {

struct PeerRun {
  bool ok = false;     // exited with status 0
  std::string out;     // its stdout
  std::string why;     // when not ok: "exit status N: <last lines of stderr>" (or why it could not start)
};

/// The number under `key` in the JSON object a peer printed on stdout (parsed with nlohmann_json,
/// as every result file); nothing when the output is not such an object or the key is absent or
/// not a number.
std::optional<double> peer_number(const std::string& out, const std::string& key);

/// Runs `command` through /bin/sh with stdout and stderr captured separately. Blocks until it
/// exits. Thread-safety: none needed (the bench runs peers one at a time).
PeerRun run_peer(const std::string& command);

}  // namespace clstat_bench
