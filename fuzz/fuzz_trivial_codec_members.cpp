// A trivially copyable struct whose members have validating codecs of their
// own: std::optional (presence flag 0/1), std::variant (index in range),
// std::array<bool, N>, plus a ranged enum (fuzz_types::CodecMembers); and one
// whose only such members are std::array<bool, 2> and std::array<Level, 2>
// (fuzz_types::ArrayMembers).
//
// Such a struct used to be copied as one block of object bytes, so those
// codecs never ran: a variant index of 200 or an optional flag of 2 was
// accepted (found by this target; regression inputs in
// fuzz/regressions/fuzz_trivial_codec_members). Since 5592a34 a trivially
// copyable type that holds a member with a layout codec is encoded field by
// field, in every mode. This target keeps that honest: on every successful
// decode it uses the value the way a program would (index(), std::visit,
// has_value(), the bools, ==), and first checks the object bytes of the flag
// and the bools, so that a regression is caught without UBSan too.
//
// ArrayMembers has no member with a layout codec, so it is still one block of
// object bytes; with `untrusted` (check_trivial_members) its bool and
// ranged-enum array elements must be checked like bool[2] members are. They
// were not until 3ba8b7d (detail/validate.hpp did not look inside
// std::array): reproducers fuzz/regressions/fuzz_trivial_codec_members/array_members_*.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

using namespace fuzz_types;

namespace {

namespace bs = bin_serializer;

// The object representation of a CodecMembers (reading bytes is always
// defined, even where the bool they hold is not 0 or 1).
using repr = std::array<unsigned char, sizeof(CodecMembers)>;
repr bytes_of(const CodecMembers& m) {
  repr r{};
  std::memcpy(r.data(), static_cast<const void*>(&m), sizeof m);
  return r;
}

// Where std::optional keeps its engaged flag: the first byte that differs
// between an all-zero (disengaged) object and the same object engaged.
std::size_t optional_flag_offset() {
  static const std::size_t offset = [] {
    CodecMembers off;
    std::memset(static_cast<void*>(&off), 0, sizeof off);
    CodecMembers on = off;
    on.maybe = 0;
    const repr a = bytes_of(off);
    const repr b = bytes_of(on);
    std::size_t i = 0;
    while (i < a.size() && a[i] == b[i]) ++i;
    return i;
  }();
  return offset;
}

void use(const CodecMembers& m) {
  const repr r = bytes_of(m);
  FUZZ_CHECK(r[optional_flag_offset()] <= 1);
  FUZZ_CHECK(r[offsetof(CodecMembers, pair)] <= 1 && r[offsetof(CodecMembers, pair) + 1] <= 1);
  FUZZ_CHECK(r[offsetof(CodecMembers, level)] <= static_cast<unsigned>(Level::High));
  FUZZ_CHECK(m.either.index() < 2);

  double sum = std::visit([](auto v) { return static_cast<double>(v); }, m.either);
  sum += m.maybe.has_value() ? *m.maybe : 0;
  sum += (m.pair[0] ? 1 : 0) + (m.pair[1] ? 2 : 0);
  const CodecMembers copy = m;
  FUZZ_CHECK(copy == m || sum != sum); // == visits the variant and reads the flag
}

// With check_trivial_members, a decoded ArrayMembers holds only valid bools
// and Levels (checked as bytes: never loads an invalid bool).
template <bs::options Opts>
void check_arrays(fuzz::input in) {
  ArrayMembers m{};
  bs::BufferView view(in);
  const bool ok = bs::deserialize<Opts>(view, m);
  if (ok && Opts.check_trivial_members) {
    unsigned char b[sizeof m];
    std::memcpy(b, static_cast<const void*>(&m), sizeof m);
    FUZZ_CHECK(b[4] <= 1 && b[5] <= 1);
    FUZZ_CHECK(b[6] <= static_cast<unsigned>(Level::High) &&
               b[7] <= static_cast<unsigned>(Level::High));
  }
  fuzz::checks c;
  c.compare_values = Opts.check_trivial_members; // == reads the bools
  (void)fuzz::roundtrip<Opts>(in, ArrayMembers{7, {true, false}, {Level::Low, Level::High}}, c);
}

template <bs::options Opts>
void check(fuzz::input in, const CodecMembers& sample) {
  CodecMembers m{};
  bs::BufferView view(in);
  if (bs::deserialize<Opts>(view, m)) use(m);
  (void)fuzz::roundtrip<Opts>(in, sample);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  CodecMembers sample{};
  sample.id = 9;
  sample.maybe = 3;
  sample.either = 1.5f;
  sample.pair = {true, false};
  sample.level = Level::High;
  check<bs::untrusted>(in, sample);
  check<bs::native>(in, sample);
  check<fuzz::portable_untrusted>(in, sample);

  check_arrays<bs::untrusted>(in);
  check_arrays<bs::native>(in);
  check_arrays<fuzz::portable_untrusted>(in);
  return 0;
}
