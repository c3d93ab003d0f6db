// clstat select: exact order statistics (median, k-th smallest, sample quantiles) of a column.
#pragma once

namespace clstat_cli {

/// argv holds the arguments after "select". Returns the process exit status.
int select_command(int argc, char** argv);

}  // namespace clstat_cli
