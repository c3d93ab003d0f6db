// `clstat bandwidth`: see k_usage in bandwidth_command.cpp (printed by `clstat bandwidth --help`).
#pragma once

namespace clstat_cli {

/// Runs the bandwidth command on the arguments after "bandwidth". Returns the exit status (2: usage
/// error); throws on bad input or device errors (main prints them and exits 1).
int bandwidth_command(int argc, char** argv);

}  // namespace clstat_cli
