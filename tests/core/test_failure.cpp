// The failure contract, exhaustively for one multi-field message:
//   serialize:   false, the buffer exactly as before, buffer_full at a field start
//   deserialize: false, the read position exactly as before, truncated /
//                invalid_value at the offending item, the target still usable.
#include "test_util.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bs = bin_serializer;
using bs::errc;
using bs::error;
using test_util::bytes_of;
using test_util::cat;
using test_util::hex;
using test_util::to_vector;

namespace {

struct Header {
  std::uint16_t code = 0;
  std::string label;
  template <class V> auto reflect(V&& v) { return v(code, label); }
  template <class V> auto reflect(V&& v) const { return v(code, label); }
};

struct Message {
  std::uint32_t id = 0;
  bool urgent = false;
  std::string name;
  Header header;
  double price = 0;
  std::string tags[2];
  bool flags[2] = {};
  template <class V> auto reflect(V&& v) { return v(id, urgent, name, header, price, tags, flags); }
  template <class V> auto reflect(V&& v) const {
    return v(id, urgent, name, header, price, tags, flags);
  }
};

Message sample() {
  Message m;
  m.id = 0x11223344;
  m.urgent = true;
  m.name = "al";
  m.header = {0x0A0B, "hdr"};
  m.price = 99.5;
  m.tags[0] = "t1";
  m.tags[1] = "";
  m.flags[0] = false;
  m.flags[1] = true;
  return m;
}

bool same(const Message& a, const Message& b) {
  return a.id == b.id && a.urgent == b.urgent && a.name == b.name &&
         a.header.code == b.header.code && a.header.label == b.header.label && a.price == b.price &&
         a.tags[0] == b.tags[0] && a.tags[1] == b.tags[1] && a.flags[0] == b.flags[0] &&
         a.flags[1] == b.flags[1];
}

// The items of sample()'s encoding, worked out from the wire table: each is
// written / read as one unit, and a failure inside it is reported at its start.
enum class kind { scalar, boolean, string };
struct Unit {
  std::size_t start;
  std::size_t size;
  kind k;
};

std::vector<Unit> units_of_sample() {
  const Message m = sample();
  const std::pair<std::size_t, kind> sizes[] = {
      {4, kind::scalar},                         // id
      {1, kind::boolean},                        // urgent
      {8 + m.name.size(), kind::string},         // name
      {2, kind::scalar},                         // header.code
      {8 + m.header.label.size(), kind::string}, // header.label
      {8, kind::scalar},                         // price
      {8 + m.tags[0].size(), kind::string},      // tags[0]
      {8 + m.tags[1].size(), kind::string},      // tags[1]
      {2, kind::boolean},                        // flags: one bool[2] copy
  };
  std::vector<Unit> units;
  std::size_t at = 0;
  for (const auto& [size, k] : sizes) {
    units.push_back({at, size, k});
    at += size;
  }
  return units;
}

constexpr std::size_t message_size = 4 + 1 + (8 + 2) + 2 + (8 + 3) + 8 + (8 + 2) + (8 + 0) + 2;

// Where decoding a message cut after `prefix` bytes must report the failure:
// at the start of the item that does not fit, i.e. at a string's length
// prefix when its characters are missing. A source that cannot say how much
// input remains only finds out when it reads the characters, and reports that.
std::size_t truncation_offset(std::size_t prefix, bool source_knows_remaining) {
  for (const Unit& u : units_of_sample()) {
    if (u.start + u.size <= prefix) continue;
    if (u.k == kind::string && !source_knows_remaining && prefix >= u.start + 8) return u.start + 8;
    return u.start;
  }
  ADD_FAILURE() << "prefix " << prefix << " holds the whole message";
  return 0;
}

std::set<std::size_t> unit_starts(std::size_t base) {
  std::set<std::size_t> out;
  for (const Unit& u : units_of_sample()) out.insert(base + u.start);
  return out;
}

std::vector<std::byte> encoded_sample() {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize(buf, sample()));
  return to_vector(buf.bytes());
}

// ---------------------------------------------------------------- serialize

struct Outcome {
  bool ok;
  std::size_t size;
  error err;
};

// One instantiation per capacity; the checks run in a plain loop.
template <std::size_t K>
Outcome serialize_into_fixed_buffer(const Message& m) {
  bs::FixedBuffer<K> buf;
  const bool ok = bs::serialize(buf, m);
  return {ok, buf.size(), buf.last_error()};
}

template <std::size_t... K>
std::vector<Outcome> serialize_into_capacities(const Message& m, std::index_sequence<K...>) {
  return {serialize_into_fixed_buffer<K + 1>(m)...}; // FixedBuffer<0> does not exist
}

// ---------------------------------------------------------------- deserialize

// A source with read() and read_position()/seek() only: the stream path, which
// rewinds a failed call by seeking back.
class SeekableStream {
public:
  explicit SeekableStream(std::span<const std::byte> bytes) : bytes_(bytes) {}
  bool read(void* dst, std::size_t n) {
    if (n > bytes_.size() - pos_) {
      err_ = {errc::truncated, pos_};
      return false;
    }
    if (n != 0) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  [[nodiscard]] std::size_t read_position() const { return pos_; }
  bool seek(std::size_t p) {
    if (p > bytes_.size()) return false;
    pos_ = p;
    return true;
  }
  [[nodiscard]] error last_error() const { return err_; }
  void set_error(error e) { err_ = e; }

private:
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  error err_{};
};

// `input` is [uint32 header][message bytes, possibly cut]. Reads the header,
// then expects the message to fail with `expected` and leave the position at 4.
template <class Source>
void expect_decode_failure(Source& src, error expected, Message& target) {
  std::uint32_t header = 0;
  ASSERT_TRUE(bs::deserialize(src, header));
  ASSERT_EQ(src.read_position(), 4u);
  EXPECT_FALSE(bs::deserialize(src, target));
  EXPECT_EQ(src.read_position(), 4u);
  EXPECT_EQ(src.last_error(), expected);
}

template <class Source>
void expect_decode_success(Source& src, Message& target) {
  std::uint32_t header = 0;
  ASSERT_TRUE(bs::deserialize(src, header));
  ASSERT_TRUE(bs::deserialize(src, target));
}

// Runs `check(source)` once for each kind of input the library accepts.
template <class F>
void for_each_source(const std::vector<std::byte>& input, F&& check) {
  {
    SCOPED_TRACE("BufferView");
    bs::BufferView view(input);
    check(view);
  }
  {
    SCOPED_TRACE("Buffer");
    bs::Buffer buf;
    ASSERT_TRUE(buf.assign(input));
    check(buf);
  }
  {
    SCOPED_TRACE("FixedBuffer");
    bs::FixedBuffer<128> buf;
    ASSERT_TRUE(buf.write(input.data(), input.size()));
    check(buf);
  }
  {
    SCOPED_TRACE("stream source with seek");
    SeekableStream src(input);
    check(src);
  }
}

std::vector<std::byte> with_header(std::span<const std::byte> message) {
  return cat({bytes_of(std::uint32_t{0xABCD1234}), message});
}

} // namespace

TEST(Failure, LayoutOfTheSampleMessage) {
  const auto encoded = encoded_sample();
  const auto units = units_of_sample();
  ASSERT_EQ(units.back().start + units.back().size, message_size);
  ASSERT_EQ(encoded.size(), message_size);
}

TEST(Failure, SerializeIntoEveryTooSmallFixedBuffer) {
  const Message m = sample();
  const auto outcomes = serialize_into_capacities(m, std::make_index_sequence<message_size - 1>{});
  const auto starts = unit_starts(0);
  for (std::size_t k = 1; k < message_size; ++k) {
    SCOPED_TRACE(::testing::Message() << "FixedBuffer<" << k << ">");
    const Outcome& o = outcomes[k - 1];
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.size, 0u);
    EXPECT_EQ(o.err.code, errc::buffer_full);
    EXPECT_LE(o.err.offset, k);
    EXPECT_TRUE(starts.contains(o.err.offset)) << "at the start of a field";
  }

  bs::FixedBuffer<message_size> exact;
  ASSERT_TRUE(bs::serialize(exact, m));
  EXPECT_EQ(hex(exact), hex(encoded_sample()));
}

TEST(Failure, SerializeIntoEveryTooSmallRemainder) {
  // A buffer already holding `used` bytes of earlier messages, with k bytes
  // of room left for every k the message does not fit in.
  const Message m = sample();
  constexpr std::size_t capacity = 2 * message_size;
  for (std::size_t k = 0; k < message_size; ++k) {
    SCOPED_TRACE(::testing::Message() << k << " bytes left");
    const std::size_t used = capacity - k;
    bs::FixedBuffer<capacity> buf;
    for (std::size_t i = 0; i < used; ++i) {
      const auto b = static_cast<std::byte>(i * 7 + 1);
      ASSERT_TRUE(buf.write(&b, 1));
    }
    const std::string before = hex(buf);
    EXPECT_FALSE(bs::serialize(buf, m));
    EXPECT_EQ(buf.size(), used);
    EXPECT_EQ(hex(buf), before);
    EXPECT_EQ(buf.last_error().code, errc::buffer_full);
    EXPECT_GE(buf.last_error().offset, used);
    EXPECT_LE(buf.last_error().offset, capacity);
    EXPECT_TRUE(unit_starts(used).contains(buf.last_error().offset)) << "at the start of a field";

    // Making room lets the same buffer take the message after its old bytes.
    buf.set_size(message_size);
    ASSERT_TRUE(bs::serialize(buf, m));
    EXPECT_EQ(hex(std::span(buf.bytes()).subspan(message_size)), hex(encoded_sample()));
  }
}

TEST(Failure, DeserializeEveryTruncation) {
  const auto encoded = encoded_sample();
  const auto full = with_header(encoded);
  const Message original = sample();
  for (std::size_t cut = 0; cut < encoded.size(); ++cut) {
    SCOPED_TRACE(::testing::Message() << "message cut after " << cut << " bytes");
    {
      SCOPED_TRACE("BufferView over the prefix alone, from position 0");
      bs::BufferView view{std::span(encoded).first(cut)};
      Message target;
      EXPECT_FALSE(bs::deserialize(view, target));
      EXPECT_EQ(view.read_position(), 0u);
      EXPECT_EQ(view.last_error(), (error{errc::truncated, truncation_offset(cut, true)}));
    }
    const auto input = with_header(std::span(encoded).first(cut));
    for_each_source(input, [&](auto& src) {
      constexpr bool knows_remaining =
          !std::is_same_v<std::remove_cvref_t<decltype(src)>, SeekableStream>;
      const error expected{errc::truncated, 4 + truncation_offset(cut, knows_remaining)};
      Message target;
      target.name = "previous contents";
      expect_decode_failure(src, expected, target);
      // The target is still a valid object: it can be copied, assigned, and
      // decoded into again.
      const Message copy = target;
      target = copy;
      target = original;
      target.tags[1] = "reassigned";
      bs::BufferView again(full);
      expect_decode_success(again, target);
      EXPECT_TRUE(same(target, original));
    });
  }
}

TEST(Failure, DeserializeFromNonZeroPositionOfALargerBuffer) {
  // Two messages back to back; the second is cut. The first decodes, the
  // second fails and leaves the position at its start.
  const auto encoded = encoded_sample();
  bs::Buffer buf;
  ASSERT_TRUE(buf.assign(encoded));
  ASSERT_TRUE(buf.write(encoded.data(), encoded.size() - 1));
  Message first, second;
  ASSERT_TRUE(bs::deserialize(buf, first));
  EXPECT_TRUE(same(first, sample()));
  EXPECT_FALSE(bs::deserialize(buf, second));
  EXPECT_EQ(buf.read_position(), encoded.size());
  EXPECT_EQ(buf.last_error(),
            (error{errc::truncated, encoded.size() + truncation_offset(encoded.size() - 1, true)}));
}

TEST(Failure, InvalidBoolByteInEveryBoolPosition) {
  const auto encoded = encoded_sample();
  std::size_t bool_bytes = 0;
  for (const Unit& u : units_of_sample()) {
    if (u.k != kind::boolean) continue;
    for (std::size_t i = u.start; i < u.start + u.size; ++i) {
      ++bool_bytes;
      for (const unsigned bad : {2u, 0xFFu}) {
        SCOPED_TRACE(::testing::Message() << "byte " << i << " = " << bad);
        auto corrupted = encoded;
        corrupted[i] = static_cast<std::byte>(bad);
        for_each_source(with_header(corrupted), [&](auto& src) {
          Message target;
          expect_decode_failure(src, error{errc::invalid_value, 4 + i}, target);
        });
      }
    }
  }
  EXPECT_EQ(bool_bytes, 3u);
}

TEST(Failure, ByteOfTwoOutsideBoolsAndLengthsStillDecodes) {
  // Only bool bytes have invalid values: a 2 anywhere in a number or in string
  // contents is just a different value. (Length prefixes are left alone: they
  // change where everything after them is read from.)
  const auto encoded = encoded_sample();
  for (const Unit& u : units_of_sample()) {
    if (u.k == kind::boolean) continue;
    const std::size_t first = u.k == kind::string ? u.start + 8 : u.start;
    for (std::size_t i = first; i < u.start + u.size; ++i) {
      auto corrupted = encoded;
      corrupted[i] = std::byte{2};
      bs::BufferView view(corrupted);
      Message target;
      EXPECT_TRUE(bs::deserialize(view, target)) << "byte " << i;
      EXPECT_EQ(view.remaining(), 0u);
    }
  }
}

TEST(Failure, ErrorValuesAndMessages) {
  const errc all[] = {errc::ok,        errc::buffer_full,   errc::out_of_memory,
                      errc::truncated, errc::invalid_value, errc::limit_exceeded};
  std::set<std::string_view> texts;
  for (const errc code : all) {
    const error e{code, 3};
    EXPECT_FALSE(e.message().empty());
    EXPECT_EQ(e.message(), bs::to_string(code));
    EXPECT_EQ(static_cast<bool>(e), code != errc::ok);
    texts.insert(bs::to_string(code));
  }
  EXPECT_EQ(texts.size(), std::size(all)) << "each errc has its own text";
  EXPECT_FALSE(bs::to_string(static_cast<errc>(200)).empty());
  EXPECT_FALSE(texts.contains(bs::to_string(static_cast<errc>(200))));

  EXPECT_EQ((error{errc::truncated, 5}), (error{errc::truncated, 5}));
  EXPECT_NE((error{errc::truncated, 5}), (error{errc::truncated, 6}));
  EXPECT_NE((error{errc::truncated, 5}), (error{errc::invalid_value, 5}));
  EXPECT_FALSE(static_cast<bool>(error{}));
  static_assert(error{}.code == errc::ok && error{}.offset == 0);
}
