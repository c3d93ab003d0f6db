// Internal: the device side of the robust fits. Block runs start many fits on at most 2048 rows
// at once (cl/robust/lts_block.cl); full runs C-step a few fits on all n rows
// (cl/robust/lts_full.cl), finding each h-th smallest squared residual in a bracket around the
// last step's, or with clstat::order's selection where there is none or it misses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clstat/runtime.hpp"
#include "robust/across.hpp"
#include "robust/design.hpp"

namespace clstat::robust::detail {

constexpr std::size_t kBlockRows = 2048;  // the largest block a work-group sorts in local memory

/// The chunked Gram kernels' (lts_block, lts_gram, mcd_sums) -DNACC option for work-group size w:
/// each work-item takes ceil(items / w) of the group's accumulators (build::program_for_wg's extra).
struct AccArg {
  std::size_t items;  // accumulators a work-group shares out
};
std::string nacc_option(std::size_t w, const void* arg);

struct Block {
  std::vector<std::uint32_t> rows;  // design rows
  std::size_t h = 0;                // the coverage within the block
};

enum class BlockMode { lts_csteps = 0, lms_adjust = 1, lms_plain = 2 };

struct Runs {
  std::vector<double> beta;  // count x q
  std::vector<double> obj;   // the objective of beta on its block (LTS) or the LMS criterion
  std::vector<std::uint32_t> steps;
  std::vector<char> converged;
};

/// Runs start i from beta[i] on blocks[start_block[i]]: up to max_steps C-steps (lts_csteps) or
/// the LMS criterion of the fit (lms_*). Objectives are in standardised units.
Runs run_blocks(const Context& ctx, const Design& d, const std::vector<Block>& blocks,
                const std::vector<std::uint32_t>& start_block, std::vector<double> beta, unsigned max_steps,
                BlockMode mode, const char* op);

/// C-steps on all n rows from each beta (count x q, count <= 10) until the objective stops
/// decreasing or max_steps refits; ties at the h-th smallest squared residual go to lower rows.
Runs run_full(const Context& ctx, const Design& d, std::size_t h, std::vector<double> beta, unsigned max_steps,
              const char* op);
/// The same on rows spread across processes (robust/across.hpp): d holds this process's rows, h
/// counts over all of them; each C-step's h-th smallest squared residual is selected over every
/// process's rows, the Gram sums are added in rank order and ties at it go to the processes in
/// rank order (lower rows first, as above). Every process returns the same runs. Collective.
Runs run_full(const Context& ctx, const Design& d, std::size_t h, std::vector<double> beta, unsigned max_steps,
              const char* op, const Across& ac);

/// LMS criterion of each fit (count x q) on all n rows: the h-th smallest squared residual, or
/// with adjust the squared half-width of the shortest window of h sorted residuals.
std::vector<double> lms_full(const Context& ctx, const Design& d, std::size_t h, const std::vector<double>& beta,
                             bool adjust, const char* op);

}  // namespace clstat::robust::detail
