// transpose: row-major n x d points (point i's coordinate a at src[offset + i * d + a]) to the
// dimension-major layout the pairwise kernels read (dst[a * n + i]), so their device-buffer forms
// take the library's one layout. One work-item per element; a copy, so no rounding.
// Options: REAL (float or double).
#include "real.clh"

__kernel void to_columns(__global const REAL* src, ulong offset, uint n, uint d, __global REAL* dst) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)n * d) return;
  const ulong i = g / d, a = g - i * d;
  dst[a * n + i] = src[offset + g];
}
