// clstat robust: least trimmed squares and least median of squares regression of a CSV.
#pragma once

namespace clstat_cli {

/// argv holds the arguments after "robust". Returns the process exit status.
int robust_command(int argc, char** argv);

}  // namespace clstat_cli
