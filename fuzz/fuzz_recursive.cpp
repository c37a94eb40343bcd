// A recursive type, struct Node { int32_t v; std::vector<Node> children; }:
// the decoder's depth limit is what bounds its stack use on hostile input.
#include "fuzz_common.hpp"
#include "fuzz_types.hpp"

using namespace fuzz_types;

namespace {

namespace bs = bin_serializer;

constexpr bs::options shallow{.max_depth = 8};

// Decodes with Opts; a decoded tree is never deeper than Opts.max_depth, and
// the tree decodes under Opts exactly when it decodes without a tighter limit
// and is shallow enough.
template <bs::options Opts>
bool check_depth(fuzz::input in, bool decodes_at_100, std::size_t height_at_100) {
  const bool ok = fuzz::roundtrip<Opts>(in, sample_tree());
  Node n;
  bs::BufferView view(in);
  FUZZ_CHECK(bs::deserialize<Opts>(view, n) == ok);
  if (ok) FUZZ_CHECK(height(n) <= Opts.max_depth);
  if (decodes_at_100)
    FUZZ_CHECK(ok == (height_at_100 <= Opts.max_depth));
  else
    FUZZ_CHECK(!ok);
  if (!ok && decodes_at_100) FUZZ_CHECK(view.last_error().code == bs::errc::limit_exceeded);
  return ok;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::input in = fuzz::as_input(data, size);
  fuzz::guard_scope guard(size);

  // Default depth limit (100).
  const bool ok = fuzz::roundtrip<bs::native>(in, sample_tree());
  (void)fuzz::roundtrip<bs::untrusted>(in, sample_tree());
  std::size_t h = 0;
  if (ok) {
    Node n;
    bs::BufferView view(in);
    FUZZ_CHECK(bs::deserialize(view, n));
    h = height(n);
    FUZZ_CHECK(h <= bs::native.max_depth);
  }
  (void)check_depth<shallow>(in, ok, h);

  // A forest: one more level of std::vector above the nodes.
  fuzz::roundtrip_all(in, std::vector<Node>{sample_tree(), Node{}});
  return 0;
}
