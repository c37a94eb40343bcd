// Evolvable structs: arbitrary bytes decoded by readers of three versions of
// one struct (workloads/evolving.hpp), in the native and portable formats with
// the untrusted checks, and inside a vector. On failure: nothing consumed and
// a decoding reason (schema_mismatch included). On success: the value encodes,
// that encoding decodes to an equal value under the same definition, and
// re-encoding that is byte-identical; and older versions read that encoding
// (newer_read_by_older).
#include "fuzz_common.hpp"

#include <bin_serializer/frame/message.hpp>

#include "workloads/evolving.hpp"

namespace {

namespace bs = bin_serializer;

bool evolution_error(bs::errc code) {
  return fuzz::is_decode_error(code) || code == bs::errc::schema_mismatch;
}

template <bs::options Opts, class T>
void check(fuzz::input in) {
  bs::BufferView view(in);
  T value{};
  if (!bs::deserialize<Opts>(view, value)) {
    FUZZ_CHECK(view.read_position() == 0);
    FUZZ_CHECK(evolution_error(view.last_error().code));
    FUZZ_CHECK(view.last_error().offset <= in.size());
    return;
  }
  FUZZ_CHECK(view.read_position() <= in.size());
  const fuzz::bytes once = fuzz::encode<Opts>(value);
  bs::BufferView again_view(once);
  T again{};
  FUZZ_CHECK(bs::deserialize<Opts>(again_view, again));
  FUZZ_CHECK(again_view.read_position() == once.size());
  FUZZ_CHECK(fuzz::encode<Opts>(again) == once);
}

// Whatever a newer version decodes, an older one reads from its encoding,
// the fields they share equal: the logged struct (ProfileV3 read as V1 and
// V2) and a nested evolvable struct of numbers between fixed-size fields, as
// a vector's elements and in an optional (workloads::RoomV2 read as RoomV1:
// read once through a window of the older version's largest encoding, which
// refused every newer value).
template <bs::options Opts, class Old, class New>
bool older_reads(const New& value, Old& old) {
  const fuzz::bytes encoded = fuzz::encode<Opts>(value);
  bs::BufferView view(encoded);
  return bs::deserialize<Opts>(view, old) && view.read_position() == encoded.size();
}

template <bs::options Opts>
void newer_read_by_older(fuzz::input in) {
  bs::BufferView view(in);
  if (workloads::ProfileV3 v3{}; bs::deserialize<Opts>(view, v3)) {
    workloads::ProfileV1 v1;
    FUZZ_CHECK((older_reads<Opts>(v3, v1)));
    FUZZ_CHECK(v1.name == v3.name && v1.id == v3.id);
    workloads::ProfileV2 v2;
    FUZZ_CHECK((older_reads<Opts>(v3, v2)));
    FUZZ_CHECK(v2.email == v3.email && v2.scores.size() == v3.scores.size());
  }
  bs::BufferView again(in);
  if (workloads::RoomV2 h{}; bs::deserialize<Opts>(again, h)) {
    workloads::RoomV1 old;
    FUZZ_CHECK((older_reads<Opts>(h, old)));
    FUZZ_CHECK(old.id == h.id && old.limits.max_users == h.limits.max_users &&
               old.history.size() == h.history.size() && old.cap.has_value() == h.cap.has_value() &&
               old.flag == h.flag && old.tail == h.tail);
  }
}

template <bs::options Opts>
void all_readers(fuzz::input in) {
  newer_read_by_older<Opts>(in);
  check<Opts, workloads::ProfileV1>(in);
  check<Opts, workloads::ProfileV2>(in);
  check<Opts, workloads::ProfileV3>(in);
  check<Opts, workloads::Limits>(in);
  check<Opts, std::vector<workloads::ProfileV3>>(in);
  check<Opts, std::vector<workloads::ProfileV1>>(in);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);
  all_readers<bs::untrusted>(in);
  constexpr auto portable_untrusted =
      bs::options{.format = bs::wire_format::portable, .check_trivial_members = true};
  all_readers<portable_untrusted>(in);
  all_readers<fuzz::compact_untrusted>(in);
  return 0;
}
