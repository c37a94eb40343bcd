// Every std type-family codec, including the core's (string, chrono, bitset).
//
// Include this (or the single family headers) before serializing the types, in
// every translation unit that does: a family whose header is missing falls
// back to whatever the core does with the type (for trivially copyable ones
// such as std::optional<int> or std::span, a memcpy of the object), which is
// a different wire layout.
#pragma once

#include "string.hpp"
#include "string_view.hpp"
#include "vector.hpp"
#include "array.hpp"
#include "span.hpp"
#include "optional.hpp"
#include "variant.hpp"
#include "tuple.hpp"
#include "map.hpp"
#include "set.hpp"
#include "list.hpp"
#include "deque.hpp"
#include "chrono.hpp"
#include "bitset.hpp"
