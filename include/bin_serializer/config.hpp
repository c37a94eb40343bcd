// Compiler glue shared by every header. Nothing here changes behaviour; it only
// tells the optimiser what the hot paths look like.
#pragma once

#include "version.hpp"

// Whether the hot path's steps are forced inline: by default only when the
// compiler optimises (__OPTIMIZE__: -O1 and up). An unoptimised build gains
// nothing from it; forced inlining there costs clang most of its compile
// time (a test of the golden vectors, -O0 with the sanitizers: 196 s with
// it, 24 s without) and gives a debugger one giant function per message.
// Define it to 0 or 1 to choose.
#ifndef BIN_SERIALIZER_FORCE_INLINE
#if defined(__OPTIMIZE__)
#define BIN_SERIALIZER_FORCE_INLINE 1
#else
#define BIN_SERIALIZER_FORCE_INLINE 0
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#if BIN_SERIALIZER_FORCE_INLINE
// Forces the per-field steps inline so a reflect() fold collapses into straight
// memcpy sequences even at -O2, where GCC's size heuristics would otherwise stop.
#define BIN_SERIALIZER_INLINE [[gnu::always_inline]] inline
// The same for a lambda's call operator (a struct's field visitor):
//   [&](auto&... fields) BIN_SERIALIZER_LAMBDA_INLINE -> bool { ... }
#define BIN_SERIALIZER_LAMBDA_INLINE __attribute__((always_inline))
#else
#define BIN_SERIALIZER_INLINE inline
#define BIN_SERIALIZER_LAMBDA_INLINE
#endif
// Keeps cold paths (buffer growth, error reporting) out of the hot loop.
#define BIN_SERIALIZER_NOINLINE [[gnu::noinline]]
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
