// The scaling rows of clstat-bench (--suite scaling, with --device naming two or more devices,
// or all): one call split over several devices (clstat/group.hpp) against each device alone.
//  Work: from host arrays, wall clock (uploads included, as a user calls them): KDE 1-d fp32 at
//  n = m (2^22 with a GPU in the list, else 2^14), the median of 2^30 doubles (fewer where a
//  device's largest allocation or a third of the host's memory is smaller; 2^24 without a GPU),
//  stable pdf at 1e8 points of one law (2e4 without a GPU), the two-stage plug-in bandwidth of
//  2^18 doubles (2^13 without a GPU; its tiles of pairs split, n^2 pairs in all).
//  Weights: each device's rate alone, measured on part of the work (1/4096 of the KDE's points,
//  1/256 of the stable points, 1/64 of the median's values, the plug-in of the first 1/16 of the
//  values (1/256 of the pairs), where a GPU is in the list; all of it otherwise); the group splits by
//  those rates, and a device whose share would save less than 3% of the best device's time gets
//  weight 0; a split that is still slower than the best device alone (the passes wait for the
//  slowest member; the rates were judged on part of the work) is reported and then replaced by
//  weights that give the best device everything (a group with one member holding all the data
//  runs that member's own call). The rows give the weights.
//  The best device alone is timed on all the work.
//  Speed-up: the best device's time over the group's. Efficiency ("of ceil"): the ideal time of
//  the devices together, 1 / sum(1 / t_i) with the others' times from their rates, over the
//  group's time.
//  Check: the group's result against the best single device's: equal for the median (and the
//  plug-in on one device type, else within 1e-12); KDE within 2e-5 and stable pdf within 1e-12
//  (one device type) or 1e-9 of the largest value.
#pragma once

#include <vector>

#include "report.hpp"

namespace bench {

std::vector<Row> run_scaling(const std::vector<clstat::Device>& devices, int repeats);

/// --tune group: the device's float 1-d Gaussian KDE rate (Mpairs/s, 2^16 samples at as many
/// points as take 50 ms, the median of `repeats`), stored in the tuning file as "group.rate",
/// which a DeviceGroup made afterwards takes as the device's default weight (clstat/group.hpp).
/// One row: the rate.
std::vector<Row> tune_group(const clstat::Context& ctx, int repeats);

}  // namespace bench
