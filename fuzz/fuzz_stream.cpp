// The stream reader: decoding from a custom buffer that has only read()
// (fuzz_types::ReadOnlySource: no size, no position, no rollback) and from one
// that also has read_position()/seek() (SeekableSource: rollback, no data()).
//
// Differential: both must accept exactly the inputs that decoding the same
// bytes from a BufferView (the contiguous reader) accepts, consume the same
// number of bytes and produce the same value. On failure the seekable source
// is back at position 0 with a decoding error; the read-only one cannot be
// rewound (documented), but the target must still be a valid object.
//
// Memory: a read-only source cannot say how much input is left, so a count
// prefix cannot be checked against it up front. The library then grows
// strings and vectors in chunks of detail::stream_chunk_bytes (64 KiB) as the
// bytes actually arrive; the guard allows one chunk on top of the usual bound.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

using namespace fuzz_types;

namespace {

namespace bs = bin_serializer;

using fuzz::same_value;

template <class T>
void check(fuzz::input in, const T& sample) {
  T expected{};
  bs::BufferView view(in);
  const bool ok = bs::deserialize(view, expected);

  {
    T value{};
    ReadOnlySource src(in);
    const bool stream_ok = bs::deserialize(src, value);
    FUZZ_CHECK(stream_ok == ok);
    if (ok) {
      FUZZ_CHECK(src.consumed() == view.read_position());
      FUZZ_CHECK(same_value(value, expected));
    } else {
      (void)fuzz::encode<bs::native>(value); // still a valid object
      const fuzz::bytes good = fuzz::encode<bs::native>(sample);
      ReadOnlySource again(good);
      FUZZ_CHECK(bs::deserialize(again, value));
      FUZZ_CHECK(again.consumed() == good.size());
      FUZZ_CHECK(same_value(value, sample));
    }
  }
  {
    T value = sample; // warm target
    SeekableSource src(in);
    const bool stream_ok = bs::deserialize(src, value);
    FUZZ_CHECK(stream_ok == ok);
    if (ok) {
      FUZZ_CHECK(src.read_position() == view.read_position());
      FUZZ_CHECK(same_value(value, expected));
    } else {
      FUZZ_CHECK(src.read_position() == 0);
      FUZZ_CHECK(fuzz::is_decode_error(src.last_error().code));
      FUZZ_CHECK(src.last_error().offset <= in.size());
      (void)fuzz::encode<bs::native>(value);
      value = sample;
      FUZZ_CHECK(same_value(value, sample));
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size, bs::detail::stream_chunk_bytes);

  check(in, std::string("stream"));
  check(in, std::u16string(u"wide"));
  check(in, std::vector<std::int32_t>{1, 2, 3});
  check(in, std::vector<bool>{true, false});
  check(in, std::vector<std::string>{"a", "b"});
  check(in, std::map<std::string, std::vector<std::int32_t>>{{"k", {1}}});
  check(in, std::unordered_set<std::uint32_t>{1, 2});
  check(in, std::list<std::deque<std::uint8_t>>{{1}, {}});
  check(in, std::optional<std::variant<std::int32_t, std::string>>(std::string("v")));
  check(in, workloads::make_person());
  check(in, sample_tree());
  return 0;
}
