// A check shared by the bad-input tests (doctest; support.hpp stays free of it, the benchmark
// includes that).
#pragma once

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

namespace clstat_test {

/// Checks that f throws std::invalid_argument whose message contains `text`.
template <class F>
void throws_with(F&& f, const char* text) {
  try {
    f();
    FAIL("expected std::invalid_argument mentioning '" << text << "'");
  } catch (const std::invalid_argument& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(text) != std::string::npos);
  }
}

}  // namespace clstat_test
