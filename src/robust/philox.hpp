// Internal: Philox4x32-10 on the host (the generator of cl/common/philox.clh), for the random
// subsets of the robust fits: drawn on the host, they are the same on every device.
#pragma once

#include <array>
#include <cstdint>

namespace clstat::robust::detail {

inline std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> k) {
  for (int r = 0; r < 10; ++r) {
    const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0], p1 = std::uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  return c;
}

/// A stream of uniform integers for one (seed, stream, item): counter (item, word, stream, 0).
class PhiloxStream {
 public:
  PhiloxStream(std::uint64_t seed, std::uint32_t stream, std::uint64_t item)
      : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}, stream_(stream), item_(item) {}
  /// Uniform on [0, m) by the multiply-shift of a 64-bit word (bias below m / 2^64).
  std::uint64_t below(std::uint64_t m) {
    if (used_ >= 4) {
      block_ = philox4x32_10({static_cast<std::uint32_t>(item_), static_cast<std::uint32_t>(item_ >> 32), stream_,
                              static_cast<std::uint32_t>(ctr_++)},
                             key_);
      used_ = 0;
    }
    const std::uint64_t u = (std::uint64_t{block_[used_]} << 32) | block_[used_ + 1];
    used_ += 2;
    return mul_hi(u, m);
  }

 private:
  // The high 64 bits of a * b, from 32-bit halves (no 128-bit type in ISO C++).
  static std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const std::uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  }
  std::array<std::uint32_t, 2> key_;
  std::uint32_t stream_;
  std::uint64_t item_, ctr_ = 0;
  std::array<std::uint32_t, 4> block_{};
  int used_ = 4;
};

}  // namespace clstat::robust::detail
