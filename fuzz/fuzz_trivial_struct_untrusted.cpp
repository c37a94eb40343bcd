// Trivially copyable structs with bool, ranged-enum and bool-array members and
// padding (fuzz_types::Packet), alone, in a vector, in a std::array and as a
// member of a field-by-field struct; and workloads::Tick.
//
// With the default options such a struct is one unchecked memcpy: decoding
// succeeds whatever its bool bytes hold, so the values are only compared as
// bytes (loading an invalid bool would be UB in the harness itself). With
// `untrusted` every bool / ranged-enum member is checked first: decoding
// succeeds exactly when the default decoding does AND the member bytes are
// valid, and the decoded values are then compared with operator==. The
// portable format (no padding on the wire) is round-tripped too.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

using namespace fuzz_types;

namespace {

namespace bs = bin_serializer;

bool packet_at_padding(std::size_t offset) { return packet_padding(offset % sizeof(Packet)); }
bool vector_padding(std::size_t offset) {
  return offset >= 8 && packet_padding((offset - 8) % sizeof(Packet));
}
// Envelope's packet follows a variable-length string: its offset is set per input.
std::size_t g_envelope_packet_at = 0;
bool envelope_padding_at(std::size_t offset) {
  return offset >= g_envelope_packet_at && offset < g_envelope_packet_at + sizeof(Packet) &&
         packet_padding(offset - g_envelope_packet_at);
}

// Whether `count` packets starting at `at` in the input hold valid member bytes.
bool packets_valid(fuzz::input in, std::size_t at, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t start = at + i * sizeof(Packet);
    if (start + sizeof(Packet) > in.size()) return true; // truncated: decoding fails anyway
    if (!packet_bytes_valid(in.data() + start)) return false;
  }
  return true;
}

template <class T>
void both_modes(fuzz::input in, const T& sample, bool (*padding)(std::size_t),
                std::size_t packets_at, std::size_t packet_count) {
  fuzz::checks native_checks;
  native_checks.rule = fuzz::prefix::except_padding;
  native_checks.is_padding = padding;
  native_checks.compare_values = false;
  const bool native_ok = fuzz::roundtrip<bs::native>(in, sample, native_checks);

  fuzz::checks untrusted_checks = native_checks;
  untrusted_checks.compare_values = true;
  const bool untrusted_ok = fuzz::roundtrip<bs::untrusted>(in, sample, untrusted_checks);

  FUZZ_CHECK(untrusted_ok == (native_ok && packets_valid(in, packets_at, packet_count)));

  // Portable: Packet has padding, so it is encoded field by field (no
  // padding on the wire) and every member is checked as it is decoded.
  fuzz::checks portable_checks;
  (void)fuzz::roundtrip<fuzz::portable_untrusted>(in, sample, portable_checks);
}

std::uint64_t count_prefix(fuzz::input in) {
  std::uint64_t n = 0;
  if (in.size() >= sizeof n) std::memcpy(&n, in.data(), sizeof n);
  return n;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  both_modes(in, sample_packet(), packet_at_padding, 0, 1);
  both_modes(in, std::array<Packet, 2>{sample_packet(), Packet{}}, packet_at_padding, 0, 2);

  // Packets start after the count; a count larger than the input is refused
  // before any packet is looked at.
  const std::uint64_t n = count_prefix(in);
  const std::size_t fitting = in.size() < 8 ? 0 : (in.size() - 8) / sizeof(Packet);
  both_modes(in, std::vector<Packet>{sample_packet()}, vector_padding, 8,
             n <= fitting ? static_cast<std::size_t>(n) : 0);

  // Envelope: [topic string][Packet]; the packet's offset depends on the topic.
  const std::uint64_t topic = count_prefix(in);
  g_envelope_packet_at = topic <= in.size() ? 8 + static_cast<std::size_t>(topic) : in.size();
  both_modes(in, Envelope{"topic", sample_packet()}, envelope_padding_at, g_envelope_packet_at,
             topic <= in.size() ? 1 : 0);

  // Tick: no bool, no enum, 7 bytes of padding; both modes are the same.
  fuzz::checks tick;
  tick.rule = fuzz::prefix::except_padding;
  tick.is_padding = tick_padding;
  fuzz::roundtrip_all(in, workloads::make_tick(3), tick);
  fuzz::roundtrip_all(in, std::vector<workloads::Tick>{workloads::make_tick(1)},
                      fuzz::checks{fuzz::prefix::except_padding, [](std::size_t off) {
                                     return off >= 8 && tick_padding(off - 8);
                                   }});
  return 0;
}
