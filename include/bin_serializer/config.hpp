// Compiler glue shared by every header. Nothing here changes behaviour; it only
// tells the optimiser what the hot paths look like.
#pragma once

#include "version.hpp"

#if defined(__GNUC__) || defined(__clang__)
// Forces the per-field steps inline so a reflect() fold collapses into straight
// memcpy sequences even at -O2, where GCC's size heuristics would otherwise stop.
#define BIN_SERIALIZER_INLINE [[gnu::always_inline]] inline
// Keeps cold paths (buffer growth, error reporting) out of the hot loop.
#define BIN_SERIALIZER_NOINLINE [[gnu::noinline]]
// The same for a lambda's call operator (a struct's field visitor):
//   [&](auto&... fields) BIN_SERIALIZER_LAMBDA_INLINE -> bool { ... }
#define BIN_SERIALIZER_LAMBDA_INLINE __attribute__((always_inline))
#else
#define BIN_SERIALIZER_INLINE inline
#define BIN_SERIALIZER_NOINLINE
#define BIN_SERIALIZER_LAMBDA_INLINE
#endif

// Debug checks that cost time but no behaviour: on by default when assertions
// are (no NDEBUG), or set explicitly to 0 or 1. Today: Buffer fills bytes it
// releases (clear, reallocation, destruction) with 0xDD, so a zero-copy view
// left pointing into them reads obvious garbage (docs/zero-copy.md).
#ifndef BIN_SERIALIZER_DEBUG
#ifdef NDEBUG
#define BIN_SERIALIZER_DEBUG 0
#else
#define BIN_SERIALIZER_DEBUG 1
#endif
#endif
