// Zero-copy views (docs/zero-copy.md): workloads::PersonView and MonsterView
// (array_view and sequence_view members)
// and a struct of every view kind (string_view, optional<string_view>, byte
// span, array_view, vector<string_view>), decoded from arbitrary bytes. Besides
// the common round-trip contract (fuzz_common.hpp: on success the value
// re-encodes to exactly the consumed bytes), a view type must accept exactly
// the inputs its owning twin accepts, consume as many bytes, fail with the same
// error, and every view must point inside the input.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

#include <bin_serializer/view/array_view.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/views.hpp"

namespace {

namespace bs = bin_serializer;

struct AllViews {
  std::string_view title;
  std::optional<std::string_view> note;
  std::span<const std::byte> blob;
  bs::array_view<std::int32_t> numbers;
  bs::array_view<bool> flags;
  std::vector<std::string_view> tags;
};

struct AllOwned {
  std::string title;
  std::optional<std::string> note;
  std::vector<std::byte> blob;
  std::vector<std::int32_t> numbers;
  std::vector<bool> flags;
  std::vector<std::string> tags;
};

const float sample_scores[] = {1.5f, 2.5f};
const std::int32_t sample_numbers[] = {-1, 7};
const bool sample_flags[] = {true, false};
const std::byte sample_blob[] = {std::byte{1}, std::byte{2}};

workloads::PersonView sample_person() { return {"name", 3, "mail", sample_scores}; }

// A sequence_view is decode-only, so the sample is decoded from the bytes of
// its owning twin, kept alive for the whole run.
template <bs::options Opts>
workloads::BasicMonsterView<Opts.format> sample_monster() {
  static const fuzz::bytes bytes = [] {
    workloads::Monster m;
    m.pos = {1, 2, 3};
    m.name = "orc";
    m.inventory = {9, 8, 7};
    m.weapons = {{"axe", 5}, {"bow", 2}};
    m.equipped = {"axe", 5};
    m.path = {{1, 2, 3}};
    return fuzz::encode<Opts>(m);
  }();
  workloads::BasicMonsterView<Opts.format> view;
  bs::BufferView in(bytes);
  FUZZ_CHECK(bs::deserialize<Opts>(in, view));
  return view;
}

AllViews sample_views() {
  return {"t", std::string_view("n"), sample_blob, sample_numbers, sample_flags, {"a", "bc"}};
}

bool inside(const void* p, std::size_t n, fuzz::input in) {
  const auto* b = static_cast<const std::byte*>(p);
  return n == 0 || (b >= in.data() && b + n <= in.data() + in.size());
}
bool inside(std::string_view s, fuzz::input in) { return inside(s.data(), s.size(), in); }
template <class T>
bool inside(const bs::array_view<T>& v, fuzz::input in) {
  return inside(v.bytes().data(), v.size_bytes(), in);
}

bool views_inside(const workloads::PersonView& p, fuzz::input in) {
  return inside(p.name, in) && inside(p.email, in) && inside(p.scores, in);
}
template <bs::wire_format Format>
bool views_inside(const workloads::BasicMonsterView<Format>& m, fuzz::input in) {
  if (!inside(m.weapons.bytes().data(), m.weapons.bytes().size(), in)) return false;
  for (const auto& w : m.weapons)
    if (!inside(w.name, in)) return false;
  return inside(m.name, in) && inside(m.inventory, in) && inside(m.equipped.name, in) &&
         inside(m.path, in);
}
bool views_inside(const AllViews& v, fuzz::input in) {
  for (const auto s : v.tags)
    if (!inside(s, in)) return false;
  return inside(v.title, in) && (!v.note || inside(*v.note, in)) &&
         inside(v.blob.data(), v.blob.size(), in) && inside(v.numbers, in) && inside(v.flags, in);
}

// The view type and the owning type accept the same inputs, the same way.
template <bs::options Opts, class View, class Owned>
void same_as_owned(fuzz::input in) {
  View view{};
  Owned owned{};
  bs::BufferView a(in);
  bs::BufferView b(in);
  const bool ok = bs::deserialize<Opts>(a, view);
  FUZZ_CHECK(ok == bs::deserialize<Opts>(b, owned));
  FUZZ_CHECK(a.read_position() == b.read_position());
  FUZZ_CHECK(a.last_error() == b.last_error());
  if (!ok) return;
  FUZZ_CHECK(views_inside(view, in));
  FUZZ_CHECK(fuzz::encode<Opts>(view) == fuzz::encode<Opts>(owned));
}

template <bs::options Opts>
void run(fuzz::input in) {
  (void)fuzz::roundtrip<Opts>(in, sample_person());
  (void)fuzz::roundtrip<Opts>(in, sample_views());
  same_as_owned<Opts, workloads::PersonView, workloads::Person>(in);
  same_as_owned<Opts, AllViews, AllOwned>(in);
  // array_view<Vec3> is not viewable in the portable format on a big-endian host.
  if constexpr (Opts.format == bs::wire_format::native || bs::detail::little_endian_host) {
    (void)fuzz::roundtrip<Opts>(in, sample_monster<Opts>());
    same_as_owned<Opts, workloads::BasicMonsterView<Opts.format>, workloads::Monster>(in);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);
  run<bs::untrusted>(in);
  run<fuzz::portable_untrusted>(in);
  return 0;
}
