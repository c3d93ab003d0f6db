// `clstat kde`: see k_usage in kde_command.cpp (printed by `clstat kde --help`).
#pragma once

namespace clstat_cli {

/// Runs the kde command on the arguments after "kde". Returns the exit status (2: usage error);
/// throws on bad input or device errors (main prints them and exits 1).
int kde_command(int argc, char** argv);

}  // namespace clstat_cli
