// clstat/clstat.hpp: the whole public API.
#pragma once

#include "clstat/bandwidth.hpp"
#include "clstat/ceilings.hpp"
#include "clstat/error.hpp"
#include "clstat/exchange.hpp"
#include "clstat/group.hpp"
#include "clstat/kde.hpp"
#include "clstat/kde_grid.hpp"
#include "clstat/order.hpp"
#include "clstat/robust.hpp"
#include "clstat/primitives.hpp"
#include "clstat/runtime.hpp"
#include "clstat/stable.hpp"
#include "clstat/stable_fit.hpp"
#include "clstat/tuning.hpp"
#include "clstat/version.hpp"
