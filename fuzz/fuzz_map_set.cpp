// Maps and sets, ordered and unordered, unique and multi.
//
// Besides the round trip, every associative container is checked against the
// sequence of its entries: a map's bytes are exactly the bytes of a
// std::vector<std::pair<K, V>> (a set's, of a std::vector<K>), so
//   - whenever the container decodes, the vector decodes the same bytes, and
//     inserting its entries in order builds an equal container;
//   - the container may refuse bytes the vector accepts only for a duplicate
//     key of a unique-key container (errc::invalid_value);
//   - an ordered container re-encodes to exactly the input when the input
//     listed the keys in order (the re-encoding is sorted, so for other inputs
//     only the length is the same).
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

#include <algorithm>

namespace {

namespace bs = bin_serializer;

template <class C>
concept is_map = requires { typename C::mapped_type; };

template <class C>
concept is_unordered = requires { typename C::hasher; };

template <class C>
struct entries_of_impl {
  using type = std::vector<typename C::key_type>;
};
template <is_map C>
struct entries_of_impl<C> {
  using type = std::vector<std::pair<typename C::key_type, typename C::mapped_type>>;
};
template <class C>
using entries_of = typename entries_of_impl<C>::type;

template <class C>
const auto& key_of(const typename entries_of<C>::value_type& e) {
  if constexpr (is_map<C>)
    return e.first;
  else
    return e;
}

template <bs::options Opts, class C, bool Unique>
void check_container(fuzz::input in, const C& sample) {
  fuzz::checks c;
  c.rule = fuzz::prefix::none;
  c.canonical = !is_unordered<C>;
  const bool ok = fuzz::roundtrip<Opts>(in, sample, c);

  C decoded;
  bs::BufferView view(in);
  FUZZ_CHECK(bs::deserialize<Opts>(view, decoded) == ok);

  entries_of<C> entries;
  bs::BufferView entries_view(in);
  const bool entries_ok = bs::deserialize<Opts>(entries_view, entries);

  if (ok) {
    FUZZ_CHECK(entries_ok);
    FUZZ_CHECK(entries_view.read_position() == view.read_position());
    C built;
    for (const auto& e : entries) {
      const std::size_t before = built.size();
      built.insert(built.end(), e);
      FUZZ_CHECK(built.size() == before + 1); // no duplicate was accepted
    }
    FUZZ_CHECK(built == decoded);
    if constexpr (!is_unordered<C>) {
      const auto in_order = [](const auto& a, const auto& b) {
        return Unique ? key_of<C>(a) < key_of<C>(b) : !(key_of<C>(b) < key_of<C>(a));
      };
      const bool sorted =
          std::adjacent_find(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
            return !in_order(a, b);
          }) == entries.end();
      if (sorted) {
        const fuzz::bytes again = fuzz::encode<Opts>(decoded);
        FUZZ_CHECK(std::equal(again.begin(), again.end(), in.begin()));
      }
    }
  } else if (entries_ok) {
    FUZZ_CHECK(Unique);
    FUZZ_CHECK(view.last_error().code == bs::errc::invalid_value);
    C built;
    bool duplicate = false;
    for (const auto& e : entries) {
      const std::size_t before = built.size();
      built.insert(built.end(), e);
      duplicate = duplicate || built.size() == before;
    }
    FUZZ_CHECK(duplicate);
  }
}

template <class C, bool Unique>
void check_both(fuzz::input in, const C& sample) {
  check_container<bs::native, C, Unique>(in, sample);
  check_container<bs::untrusted, C, Unique>(in, sample);
  check_container<fuzz::portable_untrusted, C, Unique>(in, sample);
  check_container<fuzz::compact_untrusted, C, Unique>(in, sample);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  check_both<std::map<std::string, std::vector<std::int32_t>>, true>(in,
                                                                     {{"a", {1, 2}}, {"b", {}}});
  check_both<std::set<std::string>, true>(in, {"x", "y"});
  check_both<std::map<std::int16_t, bool>, true>(in, {{1, true}, {-2, false}});
  check_both<std::multimap<std::int32_t, std::string>, false>(in, {{1, "a"}, {1, "b"}, {0, ""}});
  check_both<std::multiset<std::uint16_t>, false>(in, {3, 3, 1});
  check_both<std::unordered_map<std::uint32_t, std::string>, true>(in, {{7, "seven"}, {8, ""}});
  check_both<std::unordered_set<std::int64_t>, true>(in, {-1, 1});
  check_both<std::unordered_multimap<std::uint8_t, std::uint8_t>, false>(in, {{1, 1}, {1, 2}});
  return 0;
}
