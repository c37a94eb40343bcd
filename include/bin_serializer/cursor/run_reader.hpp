// A reader over bytes already known to be present: what a struct's run of
// fields (core/read_fields.hpp) and a container's bounded elements
// (std/codec_support.hpp) are decoded through after one bounds check, so the
// reads inside check nothing more and the cursor stays in a register.
//
// In a format whose leaves vary in size (compact's varints), a run or an
// element holding exactly one such leaf is first read in short form
// (core/read_fields.hpp, std/codec_support.hpp decide which): the leaf must
// take its fewest bytes (a one-byte varint), so each field lies at a constant
// offset from the run's start and the cursor moves by a constant. What
// follows the run (a string's length, the next element) is then read at a
// fixed offset instead of waiting on the varint's length, and the compiler
// folds the cursor's steps into addressing. A leaf that takes more ends the
// short-form pass without recording anything; the run is read again the
// ordinary way, which also reports any error with its offset.
#pragma once

#include <cstddef>
#include <cstring>

#include "../config.hpp"
#include "../error.hpp"
#include "../options.hpp"
#include "../format/access.hpp"
#include "../format/copy.hpp"
#include "reader.hpp"

namespace bin_serializer::detail {

// A reader over the run's bytes, all present (checked once by the caller).
// Failures (a bad value inside the run) are recorded in the outer reader with
// absolute offsets.
// Checked: whether every read re-checks the run's remaining bytes. Runs made
// only of types whose sizes the library computes (presizable) cannot read
// past their end, so only debug builds check them; a run holding a user
// codec's run_size (core/codec_facts.hpp) is checked every time.
// Short: the short-form pass (above); its failures are not recorded.
template <class Outer, bool Checked = true, bool Short = false>
class run_reader {
public:
  static constexpr options opts = Outer::opts;
  static constexpr bool contiguous = true;
  static constexpr bool in_run = true;
  static constexpr bool short_form = Short;

  BIN_SERIALIZER_INLINE run_reader(Outer& outer, const std::byte* p, std::size_t n,
                                   std::size_t at) noexcept
      : outer_(outer), start_(p), cur_(p), end_(p + n), at_(at) {}

  BIN_SERIALIZER_INLINE bool read_bytes(void* dst, std::size_t n) noexcept {
    if (!fits(n)) [[unlikely]]
      return fail(errc::truncated, position());
    std::memcpy(dst, cur_, n);
    cur_ += n;
    return true;
  }
  BIN_SERIALIZER_INLINE const std::byte* take(std::size_t n) noexcept {
    if (!fits(n)) [[unlikely]] {
      fail(errc::truncated, position());
      return nullptr;
    }
    const std::byte* p = cur_;
    cur_ += n;
    return p;
  }
  // N bytes at once (adjacent fields, see read_span).
  template <std::size_t N>
  BIN_SERIALIZER_INLINE bool read_fixed(void* dst) noexcept {
    if (!fits(N)) [[unlikely]]
      return fail(errc::truncated, position());
    copy_fixed<N>(dst, cur_);
    cur_ += N;
    return true;
  }
  // No read_length(): run members have no length prefixes.
  bool enter() noexcept { return outer_.enter(); }
  void leave() noexcept { outer_.leave(); }

  [[nodiscard]] BIN_SERIALIZER_INLINE std::size_t remaining() const noexcept {
    return static_cast<std::size_t>(end_ - cur_);
  }
  [[nodiscard]] BIN_SERIALIZER_INLINE std::size_t position() const noexcept {
    return at_ + static_cast<std::size_t>(cur_ - start_);
  }
  [[nodiscard]] bool finished() const noexcept { return cur_ == end_; }
  // Moves the cursor to p, the end of what a short-form reader over the bytes
  // from here on has read (read_short_first below).
  BIN_SERIALIZER_INLINE void advance_to(const std::byte* p) noexcept { cur_ = p; }
  [[nodiscard]] BIN_SERIALIZER_INLINE const std::byte* cursor() const noexcept { return cur_; }
  // Whether n more bytes are present: known without looking when the run's
  // largest encoding was checked once for all (has_room in reader.hpp).
  static constexpr bool room_proven = !Checked && !BIN_SERIALIZER_DEBUG;

private:
  BIN_SERIALIZER_INLINE bool fits(std::size_t n) const noexcept {
    if constexpr (Checked || BIN_SERIALIZER_DEBUG)
      return n <= remaining();
    else
      return true;
  }

public:
  bool fail(errc code, std::size_t at) noexcept {
    if constexpr (Short) {
      (void)code; // the ordinary pass that follows reports it
      (void)at;
      return false;
    } else {
      return outer_.fail(code, at);
    }
  }
  bool fail(const error& e) noexcept {
    if constexpr (Short) {
      (void)e;
      return false;
    } else {
      return outer_.fail(e);
    }
  }

private:
  Outer& outer_;
  const std::byte* start_;
  const std::byte* cur_;
  const std::byte* end_;
  std::size_t at_;
};

template <class Outer, bool Checked, bool Short>
inline constexpr bool is_reader_v<run_reader<Outer, Checked, Short>> = true;

// Whether bytes read from R can be checked once and then read through a
// run_reader: a contiguous reader that is not one already, and that takes
// the run's cursor back when the run is done.
template <class R>
concept run_capable = R::contiguous && !requires { R::in_run; } &&
                      requires(R& r, const std::byte* p) { r.advance_to(p); };

// Reads through f the next `bytes` bytes at most, known to be there: f gets
// a run_reader over them (Checked: whether its reads check again, see above)
// and the input moves on by what f took. Failures inside are reported to r
// with their absolute offsets. The caller has checked r.remaining() >= bytes.
template <bool Checked, class R, class F>
BIN_SERIALIZER_INLINE bool read_present(R& r, std::size_t bytes, F&& f) {
  run_reader<R, Checked> rr(r, take_counted(r, 0), bytes, r.position());
  const bool ok = f(rr);
  r.advance_to(rr.cursor()); // the run's cursor as it is: nothing on the chain
  return ok;
}

// The short-form pass over the next `bytes` bytes of r (known to be there):
// f(short-form reader); r moves on by what it took only if it succeeded,
// else r is as it was and nothing is recorded.
template <bool Checked, class R, class F>
BIN_SERIALIZER_INLINE bool try_short_form(R& r, std::size_t bytes, F&& f) {
  run_reader<R, Checked, true> rs(r, take_counted(r, 0), bytes, r.position());
  if (!f(rs)) [[unlikely]]
    return false;
  r.advance_to(rs.cursor());
  return true;
}

// The same bytes read first in short form, then, if that fails, through an
// ordinary run_reader (read_present), which decides and reports. f is called
// with both reader types (a generic lambda).
template <bool Checked, class R, class F>
BIN_SERIALIZER_INLINE bool read_short_first(R& r, std::size_t bytes, F&& f) {
  return try_short_form<Checked>(r, bytes, f) || read_present<Checked>(r, bytes, f);
}

} // namespace bin_serializer::detail
