// compatibility<Old, New, Opts> (frame/compatibility.hpp): a table of changes
// to an evolvable struct, each refused with the field named or accepted, in
// the formats where the answer differs; and the data agrees: where the trait
// says a reader reads the other version's bytes, it does.
#include <gtest/gtest.h>

#include "test_util.hpp"

#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/frame/compatibility.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bs = bin_serializer;
using bs::compact;
using bs::native;
using bs::portable;

namespace {

struct Limits {
  std::uint32_t max_users = 10;
  using bin_serializer_evolution = bs::versions<1>;
};
struct LimitsV2 {
  std::uint32_t max_users = 10;
  std::uint16_t max_rooms = 3;
  using bin_serializer_evolution = bs::versions<1, 2>;
};
struct LimitsNarrowed {
  std::uint16_t max_users = 10;
  using bin_serializer_evolution = bs::versions<1>;
};

// The saved version: 3 fields in version 1, a 4th in version 2.
struct Base {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  Limits limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};

// Base as its first version was published.
struct BaseV1 {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  using bin_serializer_evolution = bs::versions<3>;
};

// Safe changes.
struct Appended {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  Limits limits;
  std::vector<std::string> tags;
  using bin_serializer_evolution = bs::versions<3, 4, 5>;
};
struct RetiredName {
  std::uint32_t id = 1;
  [[no_unique_address]] bs::retired<std::string> name;
  std::int32_t score = 2;
  Limits limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
struct Renamed {
  std::uint32_t id = 1;
  std::string title = "n";
  std::int32_t score = 2;
  Limits limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
struct NestedAppended {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  LimitsV2 limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
struct KeepsUnknown {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  Limits limits;
  bs::unknown_fields unknown;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
struct Widened { // safe in compact only
  std::uint32_t id = 1;
  std::string name = "n";
  std::int64_t score = 2;
  Limits limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};

// Unsafe changes.
struct Retyped {
  std::uint32_t id = 1;
  std::string name = "n";
  float score = 2;
  Limits limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
struct Removed {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  using bin_serializer_evolution = bs::versions<3>;
};
struct Reordered {
  std::uint32_t id = 1;
  std::int32_t score = 2;
  std::string name = "n";
  Limits limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
struct VersionEdited {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  Limits limits;
  using bin_serializer_evolution = bs::versions<2, 4>;
};
struct Narrowed {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int16_t score = 2;
  Limits limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
struct NestedNarrowed {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  LimitsNarrowed limits;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
struct NotEvolvable {
  std::uint32_t id = 1;
  std::string name = "n";
  std::int32_t score = 2;
  Limits limits;
};

struct expect {
  bool reads_old;
  bool reads_new;
  std::string_view field;
  std::string_view why;
};

template <class Old, class New, bs::options Opts>
void check(const expect& e) {
  using c = bs::compatibility<Old, New, Opts>;
  EXPECT_EQ(c::reads_old, e.reads_old);
  EXPECT_EQ(c::reads_new, e.reads_new);
  EXPECT_EQ(c::value, e.reads_old && e.reads_new);
  EXPECT_EQ(c::field, e.field);
  EXPECT_EQ(c::why, e.why);
}

constexpr expect ok{true, true, "", ""};

TEST(Compatibility, SafeChanges) {
  check<Base, Base, portable>(ok);
  check<BaseV1, Base, portable>(ok); // version 2 appended a field
  check<Base, Appended, portable>(ok);
  check<Base, RetiredName, portable>(ok);
  check<RetiredName, Base, portable>(ok); // un-retiring keeps the slot too
  check<Base, Renamed, portable>(ok);
  check<Base, NestedAppended, portable>(ok);
  check<Base, KeepsUnknown, portable>(ok);
  check<Base, Widened, compact>(ok);
  check<Base, Appended, native>(ok);
  check<Base, Appended, compact>(ok);
}

TEST(Compatibility, UnsafeChangesNameTheField) {
  check<Base, Retyped, portable>({false, false, "score", "retyped (another encoding)"});
  check<Base, Removed, portable>(
      {false, false, "limits", "removed (retire it instead: retired<T>)"});
  check<Base, Reordered, portable>({false, false, "name", "reordered (was field 1, now field 2)"});
  check<Base, VersionEdited, portable>(
      {false, false, "score", "version 1's field count edited (3 -> 2)"});
  // Narrowing in compact: New cannot read every value Old wrote; Old reads New.
  check<Base, Narrowed, compact>({false, true, "score", "narrowed (4 -> 2 bytes)"});
  check<Base, NestedNarrowed, compact>(
      {false, true, "limits.max_users", "narrowed (4 -> 2 bytes)"});
  // Fixed-width formats: another width is another encoding.
  check<Base, Widened, portable>({false, false, "score", "retyped (another encoding)"});
  check<Base, Narrowed, native>({false, false, "score", "retyped (another encoding)"});
  check<Base, NotEvolvable, portable>({false, false, "<root>", "retyped (another encoding)"});
}

// The trait's answers agree with what decoding does.
template <class Old, class New, bs::options Opts>
bool decodes(const Old& value) {
  bs::Buffer bytes;
  if (!bs::serialize<Opts>(bytes, value)) return false;
  New got{};
  return bs::deserialize<Opts>(bytes, got);
}

TEST(Compatibility, AgreesWithDecoding) {
  EXPECT_TRUE((decodes<Base, Appended, portable>(Base{})));
  EXPECT_TRUE((decodes<Appended, Base, portable>(Appended{})));
  EXPECT_TRUE((decodes<Base, RetiredName, compact>(Base{})));
  EXPECT_TRUE((decodes<Base, Widened, compact>(Base{})));
  Widened big;
  big.score = std::int64_t{1} << 40;
  EXPECT_FALSE((decodes<Widened, Base, compact>(big))) << "a value Old cannot hold is refused";
  // Data of Base's first version (3 fields) is not a version of VersionEdited.
  EXPECT_TRUE((decodes<BaseV1, Base, portable>(BaseV1{})));
  EXPECT_FALSE((decodes<BaseV1, VersionEdited, portable>(BaseV1{})));
  Base negative;
  negative.score = -100000;
  EXPECT_FALSE((decodes<Base, Narrowed, compact>(negative)));
}

static_assert(bs::check_compatible<Base, Appended>());
static_assert(bs::check_compatible<Base, RetiredName, compact>());
static_assert(bs::compatible_v<Base, Widened, compact>);
static_assert(!bs::compatible_v<Base, Widened, portable>);

} // namespace
