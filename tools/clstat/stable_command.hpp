// clstat stable: alpha-stable pdf, cdf, sf, quantiles and random numbers from the command line.
#pragma once

namespace clstat_cli {

/// argv holds the arguments after "stable". Returns the process exit status.
int stable_command(int argc, char** argv);

}  // namespace clstat_cli
