// clstat grid: a density estimate on a regular grid, written to a .f64 or .csv file.
#pragma once

namespace clstat_cli {

/// argv holds the arguments after "grid". Returns the process exit status.
int grid_command(int argc, char** argv);

}  // namespace clstat_cli
