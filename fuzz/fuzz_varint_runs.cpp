// Compact vectors and arrays of integers: decoded in bulk (the SSE2 blocks
// and groups of format/leb128_blocks.hpp, a run_reader for what fits, and
// format/leb128_avx512.hpp where the CPU has AVX-512) against the same bytes
// decoded one element at a time (a vector or array of one-field structs,
// which std/vector.hpp reads element by element: the unit tests' reference,
// tests/support/varint_reference.hpp). Differential: the same
// result, error and offset, read position and, for vectors, the elements
// kept, whatever the vector held before. Each input runs on both paths where
// this CPU has AVX-512, and through fuzz::roundtrip's checks (rollback,
// re-encoding to the very bytes consumed).
//
// Input: one byte choosing how many elements the target vector holds before
// decoding (0-47), then the bytes to decode.
#include "fuzz_common.hpp"
#include "tests/support/varint_reference.hpp"

#include <bin_serializer/format/leb128_avx512.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

namespace bs = bin_serializer;
using compact_vector_reference::as_ones;
using compact_vector_reference::One;
constexpr bs::options opts = fuzz::compact_untrusted;

template <class T>
void same_as_one_by_one(fuzz::input in, std::size_t old_size) {
  const std::vector<T> old(old_size, static_cast<T>(old_size * 37 + 5));
  bs::BufferView bulk_view(in), ref_view(in);
  std::vector<T> bulk = old;
  std::vector<One<T>> ref = as_ones(old);
  const bool ok = bs::deserialize<opts>(bulk_view, bulk);
  FUZZ_CHECK(bs::deserialize<opts>(ref_view, ref) == ok);
  FUZZ_CHECK(bulk_view.last_error() == ref_view.last_error());
  FUZZ_CHECK(bulk_view.read_position() == ref_view.read_position());
  FUZZ_CHECK(as_ones(bulk) == ref); // the elements kept on failure too

  constexpr std::size_t n = 24;
  bs::BufferView array_view(in), array_ref_view(in);
  std::array<T, n> array{};
  std::array<One<T>, n> array_ref{};
  const bool array_ok = bs::deserialize<opts>(array_view, array);
  FUZZ_CHECK(bs::deserialize<opts>(array_ref_view, array_ref) == array_ok);
  FUZZ_CHECK(array_view.last_error() == array_ref_view.last_error());
  FUZZ_CHECK(array_view.read_position() == array_ref_view.read_position());
  if (array_ok)
    for (std::size_t i = 0; i < n; ++i) FUZZ_CHECK(array[i] == array_ref[i].v);
}

void all_types(fuzz::input in, std::size_t old_size) {
  same_as_one_by_one<std::uint16_t>(in, old_size);
  same_as_one_by_one<std::int16_t>(in, old_size);
  same_as_one_by_one<std::uint32_t>(in, old_size);
  same_as_one_by_one<std::int32_t>(in, old_size);
  same_as_one_by_one<std::uint64_t>(in, old_size);
  same_as_one_by_one<std::int64_t>(in, old_size);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const fuzz::input in = fuzz::as_input(data + 1, size - 1);
  const std::size_t old_size = data[0] % 48;
  fuzz::guard_scope guard(size);

#if BIN_SERIALIZER_LEB128_AVX512
  namespace runs = bs::detail::leb128::avx512;
  const bool has_runs = runs::detect();
  for (const bool on : {true, false}) {
    if (on && !has_runs) continue;
    runs::enabled = on;
    all_types(in, old_size);
  }
  runs::enabled = has_runs;
#else
  all_types(in, old_size);
#endif

  (void)fuzz::roundtrip<opts>(in, std::vector<std::uint32_t>{1, 300, 70000});
  (void)fuzz::roundtrip<opts>(in, std::vector<std::int32_t>{-1, 300, -70000});
  (void)fuzz::roundtrip<opts>(in, std::vector<std::uint64_t>{1, 1ULL << 40});
  (void)fuzz::roundtrip<opts>(in, std::vector<std::int16_t>{-1, 200});
  return 0;
}
