// std::chrono::duration and time_point: the tick count, as its Rep.
//
// Layout: duration<Rep, Period> -> Rep; time_point<Clock, Dur> -> Dur. The
// Period (and Clock) are part of the type, not the wire: both ends must agree
// on them, as on every other part of the schema. In the native format these
// are the same bytes the object holds, so vectors of them still go out as one
// block (.object_bytes in the facts below).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "../core/field.hpp"
#include "../core/size.hpp"
#include "../core/schema_tokens.hpp"

namespace bin_serializer {

template <class Rep, class Period>
struct codec<std::chrono::duration<Rep, Period>> {

  // Fingerprint (core/schema_tokens.hpp): DURATION, the period, then the count.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_duration);
    h.param(static_cast<std::uint64_t>(Period::num));
    h.param(static_cast<std::uint64_t>(Period::den));
    h.template type<Rep>();
  }
  using duration = std::chrono::duration<Rep, Period>;

  // What the library knows of the encoding (core/codec_facts.hpp): the
  // count's bounds; where the count is its object bytes, so is the duration.
  template <options Opts>
  static constexpr codec_facts facts{.min_size = detail::shape<Opts, Rep>::min_size(),
                                     .max_size = detail::max_size_of<Opts, Rep>(),
                                     .object_bytes = detail::bulk_copyable<Opts, Rep> &&
                                                     sizeof(duration) == sizeof(Rep),
                                     .has_size = true,
                                     .trusted_size = true};

  template <class W>
  static bool write(W& w, const duration& d) {
    const Rep count = d.count();
    return serialize_field(w, count);
  }
  template <class R>
  static bool read(R& r, duration& d) {
    Rep count{};
    if (!deserialize_field(r, count)) return false;
    d = duration(count);
    return true;
  }
  template <options Opts>
  static constexpr std::size_t size(const duration& d) noexcept {
    return detail::size_of<Opts>(d.count()); // the count's size in this format
  }
};

template <class Clock, class Duration>
struct codec<std::chrono::time_point<Clock, Duration>> {

  // Fingerprint (core/schema_tokens.hpp): TIME_POINT, then the duration.
  template <class H>
  static constexpr void schema(H& h) {
    h.token(detail::schema::t_time_point);
    h.template type<Duration>();
  }
  using time_point = std::chrono::time_point<Clock, Duration>;

  // The duration's facts (core/codec_facts.hpp); object bytes when the
  // duration's are and the time point holds nothing else.
  template <options Opts>
  static constexpr codec_facts facts = [] {
    codec_facts f = detail::facts_of_codec<Opts, Duration>;
    if (sizeof(time_point) != sizeof(Duration)) {
      f.object_bytes = false;
      f.run_size = 0;
    }
    return f;
  }();

  template <class W>
  static bool write(W& w, const time_point& t) {
    return codec<Duration>::write(w, t.time_since_epoch());
  }
  template <class R>
  static bool read(R& r, time_point& t) {
    Duration d{};
    if (!codec<Duration>::read(r, d)) return false;
    t = time_point(d);
    return true;
  }
  template <options Opts>
  static constexpr std::size_t size(const time_point& t) noexcept {
    return codec<Duration>::template size<Opts>(t.time_since_epoch());
  }
};

} // namespace bin_serializer
