// clstat/clstat.hpp: the whole public API.
#pragma once

#include "clstat/ceilings.hpp"
#include "clstat/error.hpp"
#include "clstat/primitives.hpp"
#include "clstat/runtime.hpp"
#include "clstat/version.hpp"
