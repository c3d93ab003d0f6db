// The finish of spread targets (several quantiles of one array) shaped for CPU devices. The
// bracket pass (radix_select.cl, FILTER with NBR > 1) copied the keys inside every bracket into
// one candidate buffer, the brackets' keys mixed; on a GPU interval passes over those copies then
// narrow each bracket to a group's sort. On a CPU such passes run as loops between barriers (five
// quantiles of 2^24 doubles, 16 Xeon cores, PoCL 5: two passes over 420 000 copies took 5.8 of
// the call's 15 ms). Here work-item j (a group of one) takes bracket j: it gathers the copies in
// [lo_j, hi_j] into its own region of kout, in one sequential read of the copies, and selects its
// ranks there by introselect (introselect.clh), so the brackets run side by side, one a core.
// Options: ELEM_KIND (order_keys.clh).
#define WG 1  // (order_keys.clh's local sort, unused here, is written for a group)
#include "order_keys.clh"

#define IS_SPACE __global
#define IS_NAME(f) f##_global
#include "introselect.clh"

// jobs: 4 ulongs a bracket, {lo, hi, at, rfirst}: its keys' range, the start of its region in
// kout (the copies of the brackets below it) and the index of its first rank in ranks (each
// relative to the bracket's first key, ascending), then a sentinel {-, -, the last region's end,
// the number of ranks}: job j's region and ranks end where job j + 1's begin. Writes the keys of
// the ranks to out, in the ranks' order.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void select_brackets(__global const skey* kin, ulong m, __global const ulong* jobs, __global const uint* ranks,
                     __global skey* kout, __global skey* out) {
  const uint j = get_group_id(0);
  const skey lo = (skey)jobs[4 * j], hi = (skey)jobs[4 * j + 1];
  const ulong at = jobs[4 * j + 2], len = jobs[4 * j + 6] - at;
  const uint r0 = (uint)jobs[4 * j + 3], r1 = (uint)jobs[4 * j + 7];
  // The region holds exactly the bracket's copies: the pass copied the keys in [lo, hi] and
  // counted them, and the host placed the regions by those counts (after checking that they add
  // up to the copies written).
  __global skey* a = kout + at;
  ulong w = 0;
  for (ulong i = 0; i < m; ++i) {
    const skey k = kin[i];
    if (k >= lo && k <= hi && w < len) a[w++] = k;
  }
  select_many_global(a, (uint)w, ranks + r0, r1 - r0, out + r0);
}
