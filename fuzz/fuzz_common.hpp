// Shared harness of the fuzz targets (fuzz/fuzz_*.cpp).
//
// Every target is a round-trip fuzzer. For each type T it tests, the input is
// decoded as T (fuzz::roundtrip<Opts>), in each of the modes of roundtrip_all
// (default options, `untrusted`, portable and compact formats with the
// untrusted checks),
// and then:
//
//   on failure   deserialize returned false, the read position did not move,
//                last_error() names a decoding reason (truncated, invalid_value,
//                limit_exceeded) at an offset inside the input, and the target
//                object is still a valid object: it can be copied, encoded,
//                re-decoded from a valid encoding (giving exactly that value)
//                and assigned to.
//   on success   the value re-encodes to exactly as many bytes as were consumed,
//                to the very same bytes where the format makes that a property
//                (see fuzz::prefix), and decoding that re-encoding gives back
//                the same value: the same encoding again (for types whose
//                encoding is canonical), and operator== for types that have it
//                (only when the value equals itself, i.e. holds no NaN).
//   always       decoding into an object that already holds a value gives the
//                same outcome (success, error, bytes) as decoding into a fresh
//                one: the decoder must not depend on the target's old state.
//
// Memory: alloc_guard.cpp replaces the global operator new for the fuzz
// binaries; a single allocation larger than fuzz::allocation_bound(input size)
// aborts (reported by libFuzzer as a crash). See allocation_bound below for the
// factor.
#pragma once

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/std/all.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

namespace fuzz {

namespace bs = ::bin_serializer;
using bytes = std::vector<std::byte>;
using input = std::span<const std::byte>;

// ---- failure reporting ---------------------------------------------------------

[[noreturn]] inline void die(const char* file, int line, const char* what) {
  std::fprintf(stderr, "\n*** fuzz check failed at %s:%d: %s\n", file, line, what);
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(cond)                                 \
  do {                                                   \
    if (!(cond)) ::fuzz::die(__FILE__, __LINE__, #cond); \
  } while (false)

// ---- per-allocation guard (implemented in alloc_guard.cpp) ---------------------

// Why 64 bytes of memory per input byte, plus a constant:
//
// Decoding may legitimately need more memory than the input has bytes. A
// container's count prefix is only accepted if that many elements fit in the
// rest of the input at their minimum encoded size (read_length), and the
// decoder then reserves at most that many elements (reserve_hint) and grows
// geometrically (up to 2x what is needed). So one allocation is at most
//     2 * sizeof(element) / min_encoded_size(element) * input bytes.
// For the element types these targets decode that factor is at most 8:
//   std::string / std::vector elements: 8-byte prefix -> 24-32 byte object (x4, x8 with growth)
//   workloads::Person 96 B / 28 B, Monster ~176 B / 59 B, Node 32 B / 12 B (x3.5, x7 with growth)
//   std::optional<std::int16_t> 4 B / 1 B (x4, x8 with growth)
//   map / set / list entries: one node per entry (<= ~90 bytes), separate small allocations
//   strings, std::vector<bool>, vectors of trivially copyable elements: 1:1 or less
// 64 leaves 8x headroom over that (another standard library's node and
// growth policy must not trip it) and is still ~2^30 times smaller than what a
// single unchecked count prefix would request. Types with a larger factor exist
// (std::optional<std::string> in a vector: 40 bytes per flag byte, x80 with
// growth; see docs/security.md), which is why no target decodes them.
// The constant covers allocations that do not depend on the input size at
// all: a std::deque's 512-byte block and 64-byte map, Buffer's first block,
// libstdc++ hash-table bucket arrays for tiny inputs.
inline constexpr std::size_t bytes_per_input_byte = 64;
inline constexpr std::size_t constant_slack = 4096;

inline constexpr std::size_t allocation_bound(std::size_t input_size,
                                              std::size_t extra = 0) noexcept {
  return bytes_per_input_byte * input_size + constant_slack + extra;
}

// Any single allocation larger than `limit` bytes aborts; 0 switches the check off.
void set_allocation_limit(std::size_t limit) noexcept;
[[nodiscard]] std::size_t allocation_limit() noexcept;

// Arms the guard for one input; the stream-reader target passes `extra` for the
// library's documented chunked growth (stream_chunk_bytes per step).
class guard_scope {
public:
  explicit guard_scope(std::size_t input_size, std::size_t extra = 0) noexcept {
    set_allocation_limit(allocation_bound(input_size, extra));
  }
  ~guard_scope() { set_allocation_limit(0); }
  guard_scope(const guard_scope&) = delete;
  guard_scope& operator=(const guard_scope&) = delete;
};

// ---- helpers ----------------------------------------------------------------------

inline input as_input(const std::uint8_t* data, std::size_t size) noexcept {
  return {reinterpret_cast<const std::byte*>(data), size};
}

// The encoding of a value. Encoding a valid object can only fail for lack of
// memory, which the guard would have reported first.
template <bs::options Opts, class T>
bytes encode(const T& value) {
  bs::Buffer buffer;
  FUZZ_CHECK(bs::serialize<Opts>(buffer, value));
  FUZZ_CHECK(buffer.size() == bs::serialized_size<Opts>(value));
  const auto out = buffer.bytes();
  return bytes(out.begin(), out.end());
}

[[nodiscard]] inline bool is_decode_error(bs::errc code) noexcept {
  return code == bs::errc::truncated || code == bs::errc::invalid_value ||
         code == bs::errc::limit_exceeded;
}

// Which bytes of the input the re-encoding of a decoded value must reproduce.
enum class prefix {
  exact,          // every consumed byte (the native format is a function of the value)
  except_padding, // all but padding bytes of trivially copyable structs (is_padding)
  none,           // only the length (e.g. an ordered container re-sorts its entries)
};

struct checks {
  prefix rule = prefix::exact;
  // For prefix::except_padding: is byte `offset` of the message a padding byte?
  bool (*is_padding)(std::size_t offset) = nullptr;
  // encode(decode(encode(v))) == encode(v). False only for unordered containers,
  // whose iteration order may depend on insertion history.
  bool canonical = true;
  // Compare decoded values with operator== (when T has it). Off for types whose
  // members may legitimately hold unchecked values in the chosen mode (a bool
  // inside a trivially copyable struct under `native`): reading them is UB.
  bool compare_values = true;
};

template <class T>
[[nodiscard]] bool equal_values(const T& a, const T& b) {
  if constexpr (std::equality_comparable<T>)
    return a == b;
  else
    return true;
}

// Two values are "the same": equal encodings for types whose encoding is
// canonical, operator== for the others (unordered containers).
template <bs::options Opts, class T>
[[nodiscard]] bool same(const T& a, const T& b, const checks& c) {
  if (c.canonical) return encode<Opts>(a) == encode<Opts>(b);
  return equal_values(a, b);
}

// Equal values for the differential stream/adapter targets: by native
// encoding, except for unordered containers, whose encoding follows their
// iteration order (which depends on their history).
template <class T>
[[nodiscard]] bool same_value(const T& a, const T& b) {
  if constexpr (requires { typename T::hasher; })
    return a == b;
  else
    return encode<bs::native>(a) == encode<bs::native>(b);
}

// After a failed decode: the contract's checks on the buffer and the target.
template <bs::options Opts, class T>
void check_failed_decode(const bs::BufferView& view, std::size_t input_size, T& target,
                         const T& sample, const checks& c) {
  FUZZ_CHECK(view.read_position() == 0);
  const bs::error e = view.last_error();
  FUZZ_CHECK(is_decode_error(e.code));
  FUZZ_CHECK(static_cast<bool>(e));
  FUZZ_CHECK(!e.message().empty());
  FUZZ_CHECK(e.offset <= input_size);

  // The partly decoded target is a valid object: copy it and encode the copy
  // (this reads every element that was decoded so far).
  {
    const T copy = target;
    (void)encode<Opts>(copy);
  }
  // It can be re-decoded in place from a valid encoding...
  const bytes good = encode<Opts>(sample);
  bs::BufferView again(good);
  FUZZ_CHECK(bs::deserialize<Opts>(again, target));
  FUZZ_CHECK(again.read_position() == good.size());
  FUZZ_CHECK(same<Opts>(target, sample, c));
  // ...and assigned to.
  target = sample;
  FUZZ_CHECK(same<Opts>(target, sample, c));
}

// After a successful decode of `consumed` bytes of `in` into `value`.
template <bs::options Opts, class T>
void check_decoded(input in, std::size_t consumed, const T& value, const checks& c) {
  FUZZ_CHECK(consumed <= in.size());
  const bytes first = encode<Opts>(value);
  FUZZ_CHECK(first.size() == consumed);
  if (c.rule != prefix::none) {
    for (std::size_t i = 0; i < consumed; ++i) {
      if (first[i] == in[i]) continue;
      FUZZ_CHECK(c.rule == prefix::except_padding && c.is_padding != nullptr && c.is_padding(i));
    }
  }

  T second{};
  bs::BufferView view(first);
  FUZZ_CHECK(bs::deserialize<Opts>(view, second));
  FUZZ_CHECK(view.read_position() == first.size());
  const bytes again = encode<Opts>(second);
  if (c.canonical)
    FUZZ_CHECK(again == first);
  else
    FUZZ_CHECK(again.size() == first.size());
  if (c.compare_values && equal_values(value, value)) FUZZ_CHECK(equal_values(value, second));
}

// Decodes `in` as T with options Opts and checks everything above. Returns
// whether decoding succeeded (targets use it for cross-type properties).
template <bs::options Opts, class T>
bool roundtrip(input in, const T& sample, const checks& c = {}) {
  // Fresh target.
  T value{};
  bs::BufferView view(in);
  const bool ok = bs::deserialize<Opts>(view, value);

  // Warm target: one that already holds a value (owned storage, an engaged
  // optional, a variant alternative) must decode to the same outcome.
  T warm = sample;
  bs::BufferView warm_view(in);
  const bool warm_ok = bs::deserialize<Opts>(warm_view, warm);
  FUZZ_CHECK(ok == warm_ok);
  FUZZ_CHECK(view.read_position() == warm_view.read_position());

  if (!ok) {
    FUZZ_CHECK(view.last_error() == warm_view.last_error());
    check_failed_decode<Opts>(view, in.size(), value, sample, c);
    check_failed_decode<Opts>(warm_view, in.size(), warm, sample, c);
    return false;
  }
  FUZZ_CHECK(same<Opts>(value, warm, c));
  check_decoded<Opts>(in, view.read_position(), value, c);
  return true;
}

// The decoding modes every target runs: the default options, the preset for
// untrusted peers, and the portable format with the same checks (the format
// meant for bytes that cross machines, i.e. the one most exposed to hostile
// input).
inline constexpr bs::options portable_untrusted{.format = bs::wire_format::portable,
                                                .check_trivial_members = true};
// The compact format, the same way: its varints have one encoding per value,
// so a decoded value re-encodes to exactly the bytes it came from.
inline constexpr bs::options compact_untrusted{.format = bs::wire_format::compact,
                                               .check_trivial_members = true};

// The portable format has no padding on the wire: where the native format's
// re-encoding may differ from the input in padding bytes, the portable one
// must match exactly.
inline checks for_portable(checks c) {
  if (c.rule == prefix::except_padding) {
    c.rule = prefix::exact;
    c.is_padding = nullptr;
  }
  return c;
}

// Types with no portable encoding (std::wstring: wchar_t's size differs
// between platforms) are decoded in the two native modes only.
template <class T>
void roundtrip_native_modes(input in, const T& sample, const checks& c = {}) {
  (void)roundtrip<bs::native>(in, sample, c);
  (void)roundtrip<bs::untrusted>(in, sample, c);
}

template <class T>
void roundtrip_all(input in, const T& sample, const checks& c = {}) {
  roundtrip_native_modes(in, sample, c);
  (void)roundtrip<portable_untrusted>(in, sample, for_portable(c));
  (void)roundtrip<compact_untrusted>(in, sample, for_portable(c));
}

} // namespace fuzz
