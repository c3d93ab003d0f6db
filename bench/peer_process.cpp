#include "peer_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace clstat_bench {

std::optional<double> peer_number(const std::string& out, const std::string& key) {
  const auto doc = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

PeerRun run_peer(const std::string& command) {
  PeerRun r;
  char path[] = "/tmp/clstat-peer-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    r.why = "could not create a file for its stderr";
    return r;
  }
  std::string cmd = command + " 2>'" + path + "'";
  std::FILE* f = popen(cmd.c_str(), "r");
  if (!f) {
    r.why = "could not start: " + command;
  } else {
    char buf[1024];
    while (std::fgets(buf, sizeof buf, f)) r.out += buf;
    const int status = pclose(f);
    r.ok = status == 0;
    if (!r.ok) {
      std::ifstream in(path);
      std::stringstream err;
      err << in.rdbuf();
      // Peers report some failures on stdout (as JSON) and crash on stderr: keep the end of both.
      auto tail = [](std::string e) {
        if (e.size() > 600) e = "..." + e.substr(e.size() - 600);  // the end says what failed
        for (char& c : e)
          if (c == '\n' || c == '\r') c = ' ';  // one line in the log
        return e;
      };
      r.why = "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "; stdout: " +
              tail(r.out) + "; stderr: " + tail(err.str());
    }
  }
  ::close(fd);
  std::remove(path);
  return r;
}

}  // namespace clstat_bench
