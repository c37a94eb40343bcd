// Framed messages: arbitrary bytes decoded as one framed message of a few
// types, and as a stream of frames (read header, decode what is understood,
// skip the rest). On failure: nothing consumed, a reason from the header or
// decoding checks (end_of_stream exactly when no byte is left). On success:
// exactly header.size() (24, or 32 with a type id) + payload_length bytes
// consumed, the type ids agree, and the value re-frames to a message of that
// size that decodes again.
#include "fuzz_common.hpp"

#include <bin_serializer/frame/message.hpp>

#include "fuzz_types.hpp"
#include "workloads/evolving.hpp"
#include "workloads/workloads.hpp"

namespace {

namespace bs = bin_serializer;

using fuzz_types::IdNote;
using fuzz_types::IdQuote;

bool message_error(bs::errc code) {
  return fuzz::is_decode_error(code) || code == bs::errc::schema_mismatch ||
         code == bs::errc::bad_header || code == bs::errc::end_of_stream;
}

// The type id a header at the start of the input announces (0 if none or short).
std::uint32_t announced_id(fuzz::input in) {
  bs::BufferView view(in);
  bs::message_header h;
  return bs::read_message_header(view, h) ? h.type_id : 0;
}

template <bs::options Opts, class T>
void one(fuzz::input in) {
  bs::BufferView view(in);
  T value{};
  if (!bs::deserialize_message<Opts>(view, value)) {
    FUZZ_CHECK(view.read_position() == 0);
    FUZZ_CHECK(message_error(view.last_error().code));
    FUZZ_CHECK((view.last_error().code == bs::errc::end_of_stream) == in.empty());
    return;
  }
  const std::size_t used = view.read_position();
  FUZZ_CHECK(announced_id(in) == bs::message_id_v<T>);
  FUZZ_CHECK(used >= bs::message_header_size_v<T>);
  bs::Buffer out;
  FUZZ_CHECK(bs::serialize_message<Opts>(out, value));
  T again{};
  FUZZ_CHECK(bs::deserialize_message<Opts>(out, again));
  FUZZ_CHECK(out.read_position() == out.size());
  // Evolvable payloads may drop unknown trailing fields or add defaults, so
  // the size is only preserved for fixed schemas.
  if constexpr (!bs::detail::evolvable_type<T>) FUZZ_CHECK(out.size() == used);
}

// Frames the whole input: each header either decodes (Person, Tick), is
// skipped, or ends the loop; every step makes progress.
template <bs::options Opts>
void stream(fuzz::input in) {
  bs::BufferView view(in);
  bs::message_header h;
  while (view.read_position() < in.size()) {
    const std::size_t before = view.read_position();
    if (!bs::read_message_header(view, h)) {
      FUZZ_CHECK(view.read_position() == before);
      FUZZ_CHECK(view.last_error().code != bs::errc::end_of_stream); // bytes were left
      return;
    }
    FUZZ_CHECK(view.read_position() == before + h.size());
    FUZZ_CHECK((h.type_id != 0) == ((h.flags & bs::message_flag_type_id) != 0));
    bool ok = false;
    if (bs::message_is<workloads::Person, Opts>(h)) {
      workloads::Person p;
      ok = bs::deserialize_message_payload<Opts>(view, h, p);
    } else if (bs::message_is<workloads::Tick, Opts>(h)) {
      workloads::Tick t{};
      ok = bs::deserialize_message_payload<Opts>(view, h, t);
    } else if (bs::message_is<IdQuote, Opts>(h)) {
      IdQuote q{};
      ok = bs::deserialize_message_payload<Opts>(view, h, q);
    } else if (bs::message_is<IdNote, Opts>(h)) {
      IdNote n;
      ok = bs::deserialize_message_payload<Opts>(view, h, n);
    } else {
      ok = bs::skip_message_payload(view, h);
    }
    if (!ok) return;
    FUZZ_CHECK(view.read_position() == before + h.size() + h.payload_length);
  }
}

template <bs::options Opts>
void all(fuzz::input in) {
  one<Opts, workloads::Person>(in);
  one<Opts, workloads::Tick>(in);
  one<Opts, workloads::ProfileV1>(in);
  one<Opts, workloads::ProfileV3>(in);
  one<Opts, std::vector<std::string>>(in);
  one<Opts, IdQuote>(in);
  one<Opts, IdNote>(in);
  stream<Opts>(in);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);
  all<bs::untrusted>(in);
  constexpr auto portable_untrusted =
      bs::options{.format = bs::wire_format::portable, .check_trivial_members = true};
  all<portable_untrusted>(in);
  all<fuzz::compact_untrusted>(in);
  // A skip_message loop over the same bytes.
  bs::BufferView view(in);
  while (bs::skip_message(view)) {
  }
  // The loop ends at the clean end of the input or on a reason, never silently.
  FUZZ_CHECK(view.read_position() != in.size() ||
             view.last_error().code == bs::errc::end_of_stream);
  FUZZ_CHECK(view.last_error().code != bs::errc::end_of_stream ||
             view.read_position() == in.size());
  return 0;
}
