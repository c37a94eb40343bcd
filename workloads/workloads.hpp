// The seed documents' workloads, shared by tests, benchmarks and fuzzers.
// Plain aggregates with no bin_serializer code in them: that they serialize at
// all is the point (aggregate reflection).
#pragma once

#include "car.hpp"
#include "monster.hpp"
#include "person.hpp"
#include "structpacker.hpp"
#include "tick.hpp"
