// std::list / std::forward_list / std::deque (the bytes of a std::vector of the
// same elements) and std::tuple / std::pair (the members in order, no prefix).
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

#include <algorithm>
#include <iterator>

namespace {

namespace bs = bin_serializer;

// A sequence container and std::vector of its elements accept the same bytes
// and hold the same elements.
template <bs::options Opts, class Seq>
void same_as_vector(fuzz::input in, const Seq& sample) {
  const bool ok = fuzz::roundtrip<Opts>(in, sample);
  Seq seq;
  bs::BufferView seq_view(in);
  FUZZ_CHECK(bs::deserialize<Opts>(seq_view, seq) == ok);
  std::vector<typename Seq::value_type> vec;
  bs::BufferView vec_view(in);
  const bool vec_ok = bs::deserialize<Opts>(vec_view, vec);
  FUZZ_CHECK(vec_ok == ok);
  if (ok) {
    FUZZ_CHECK(vec_view.read_position() == seq_view.read_position());
    FUZZ_CHECK(std::equal(vec.begin(), vec.end(), seq.begin(), seq.end()));
  } else {
    FUZZ_CHECK(vec_view.last_error() == seq_view.last_error());
  }
}

template <class Seq>
void sequence(fuzz::input in, const Seq& sample) {
  same_as_vector<bs::native>(in, sample);
  same_as_vector<bs::untrusted>(in, sample);
  same_as_vector<fuzz::portable_untrusted>(in, sample);
  same_as_vector<fuzz::compact_untrusted>(in, sample);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  sequence(in, std::list<std::deque<std::int32_t>>{{1, 2}, {}, {3}});
  sequence(in, std::deque<std::string>{"front", "back"});
  sequence(in, std::forward_list<std::int16_t>{1, 2, 3});
  sequence(in, std::list<bool>{true, false});
  fuzz::roundtrip_all(in, std::tuple<std::int32_t, std::string, std::list<std::uint8_t>, bool>{
                              7, "seven", {7}, true});
  fuzz::roundtrip_all(in, std::pair<std::uint16_t, std::optional<std::string>>{1, "one"});
  fuzz::roundtrip_all(in, std::tuple<>{});
  fuzz::roundtrip_all(in, std::vector<std::tuple<bool, std::int8_t>>{{true, 1}, {false, -1}});
  return 0;
}
