// Links against the installed libclstat.so and sums 1..1000 on the default device.
#include <clstat/clstat.hpp>

#include <cstdio>
#include <vector>

int main() {
  std::vector<float> x(1000);
  for (int i = 0; i < 1000; ++i) x[i] = static_cast<float>(i + 1);
  clstat::Context ctx;
  const float s = clstat::sum(ctx, x.data(), x.size());
  std::printf("clstat %s on %s: sum = %.1f\n", CLSTAT_VERSION_STRING, ctx.info().name.c_str(), s);
  return s == 500500.0f ? 0 : 1;
}
