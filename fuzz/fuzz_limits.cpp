// Decoding under tight limits:
//   options{.max_string_length = 16, .max_element_count = 16, .max_depth = 4,
//           .max_total_bytes = 256}
// Whatever decodes, from a BufferView or from a read-only stream, respects
// every limit: no string longer than 16, no container with more than 16
// elements, no nesting deeper than 4 containers, at most 256 bytes consumed.
// Every such value re-encodes and decodes again under the same limits.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

#include <algorithm>

using namespace fuzz_types;

namespace {

namespace bs = bin_serializer;

constexpr bs::options limits = tight_limits;

// Each check returns the nesting depth as the decoder counts it: every
// container entered (vector, map, list, deque, optional of a container) is one
// level; strings and scalars are leaves.
struct limit_checker {
  template <class CharT>
  std::size_t operator()(const std::basic_string<CharT>& s) const {
    FUZZ_CHECK(s.size() <= limits.max_string_length);
    return 0;
  }
  std::size_t operator()(std::int32_t) const { return 0; }
  std::size_t operator()(std::uint8_t) const { return 0; }

  template <class C>
  std::size_t elements(const C& c) const {
    FUZZ_CHECK(static_cast<std::size_t>(std::distance(c.begin(), c.end())) <=
               limits.max_element_count);
    std::size_t deepest = 0;
    for (const auto& e : c) deepest = std::max(deepest, (*this)(e));
    return 1 + deepest;
  }
  template <class T> std::size_t operator()(const std::vector<T>& v) const { return elements(v); }
  template <class T> std::size_t operator()(const std::list<T>& v) const { return elements(v); }
  template <class T> std::size_t operator()(const std::deque<T>& v) const { return elements(v); }
  template <class K, class V> std::size_t operator()(const std::map<K, V>& m) const {
    FUZZ_CHECK(m.size() <= limits.max_element_count);
    std::size_t deepest = 0;
    for (const auto& [k, v] : m) deepest = std::max({deepest, (*this)(k), (*this)(v)});
    return 1 + deepest;
  }
  template <class T> std::size_t operator()(const std::optional<T>& o) const {
    return 1 + (o ? (*this)(*o) : 0);
  }
  std::size_t operator()(const Node& n) const { return (*this)(n.children); }
  std::size_t operator()(const LimitsMsg& m) const {
    return std::max({(*this)(m.name), (*this)(m.tags), (*this)(m.index), (*this)(m.blobs),
                     (*this)(m.notes), (*this)(m.wide), (*this)(m.tree)});
  }
};

// `has_map`: the type holds a std::map, whose re-encoding lists the keys
// sorted, so only its length (not its bytes) must match the input.
template <class T>
void check(fuzz::input in, const T& sample, bool has_map = false) {
  fuzz::checks c;
  if (has_map) c.rule = fuzz::prefix::none;
  const bool ok = fuzz::roundtrip<limits>(in, sample, c);
  T value{};
  bs::BufferView view(in);
  FUZZ_CHECK(bs::deserialize<limits>(view, value) == ok);
  if (ok) {
    FUZZ_CHECK(view.read_position() <= limits.max_total_bytes);
    FUZZ_CHECK(limit_checker{}(value) <= limits.max_depth);
  }

  // Read-only stream: same acceptance, same value.
  T streamed{};
  ReadOnlySource src(in);
  FUZZ_CHECK(bs::deserialize<limits>(src, streamed) == ok);
  if (ok) {
    FUZZ_CHECK(src.consumed() == view.read_position());
    FUZZ_CHECK(fuzz::encode<limits>(streamed) == fuzz::encode<limits>(value));
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size, bs::detail::stream_chunk_bytes);

  check(in, sample_limits_msg(), true);
  check(in, std::vector<std::string>{"x"});
  check(in, std::map<std::string, std::vector<std::int32_t>>{{"k", {1}}}, true);
  check(in, sample_tree());
  return 0;
}
