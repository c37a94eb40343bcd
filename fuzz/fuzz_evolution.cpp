// Evolvable structs: arbitrary bytes decoded by readers of three versions of
// one struct (workloads/evolving.hpp), in the native and portable formats with
// the untrusted checks, and inside a vector. On failure: nothing consumed and
// a decoding reason (schema_mismatch included). On success: the value encodes,
// that encoding decodes to an equal value under the same definition, and
// re-encoding that is byte-identical.
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

template <bs::options Opts>
void all_readers(fuzz::input in) {
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
