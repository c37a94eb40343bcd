// Record logs across versions of their types (docs/logs.md, "Versions of a
// type"): a log written with one version of an evolvable struct read by a
// program with an older or newer one, in another type order, with types the
// file lacks; appending by an older version (accepted) and by a newer one
// than the header describes (refused: the header could not describe its
// records), through a Buffer and through open_log_for_append.
#include "test_util.hpp"

#include <bin_serializer/log/fd.hpp>
#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "workloads/evolving.hpp"
#include "workloads/market.hpp"

namespace bs = bin_serializer;
using bs::errc;
using bs::log_end;
using workloads::ProfileV1;
using workloads::ProfileV2;
using workloads::ProfileV3;

namespace {

using Tick = workloads::Trade; // a type that stays as it is
struct Halt {                  // a type the old logs never held
  std::uint64_t ts = 0;
  std::string reason;
  bool operator==(const Halt&) const = default;
};

template <bs::options Opts>
using v1_log = bs::log_schema<Opts, ProfileV1, Tick>;
template <bs::options Opts>
using v3_log = bs::log_schema<Opts, ProfileV3, Tick>;
// A later program: the types in another order, and one more.
template <bs::options Opts>
using v3_later = bs::log_schema<Opts, Halt, Tick, ProfileV3>;

template <class Schema, class... Records>
bs::Buffer write_log(bs::log_write_options o, const Records&... records) {
  bs::Buffer buf;
  bs::log_writer<Schema, bs::Buffer> w(buf, o);
  EXPECT_TRUE((w.write(records) && ...));
  EXPECT_TRUE(w.close());
  return buf;
}

template <class Schema>
struct any_of;
template <bs::options Opts, class... Ts>
struct any_of<bs::log_schema<Opts, Ts...>> {
  using type = std::variant<Ts...>;
};
template <class Schema>
using any_record = typename any_of<Schema>::type;

// Every record of a log, each as the reader's type; the log must end cleanly.
template <class Schema>
std::vector<any_record<Schema>> read_all(std::span<const std::byte> bytes) {
  bs::log_reader<Schema> r(bytes);
  EXPECT_TRUE(r.ok()) << bs::error_name(r.last_error().code);
  std::vector<any_record<Schema>> out;
  while (r.visit([&out](const auto& v) { out.emplace_back(v); })) {
  }
  EXPECT_EQ(r.end(), log_end::clean) << bs::error_name(r.last_error().code);
  return out;
}

ProfileV3 as_v3(const ProfileV1& p) {
  ProfileV3 out;
  out.name = p.name;
  out.id = p.id;
  return out;
}
ProfileV1 as_v1(const ProfileV3& p) { return {.name = p.name, .id = p.id}; }

// An evolvable struct nested in a logged type: LimitsV1 is the first version
// of workloads::Limits, which adds max_rooms in a second. Their holders have
// one fingerprint (a fingerprint counts an evolvable struct's first version).
struct LimitsV1 {
  std::uint16_t max_users = 10;
  using bin_serializer_evolution = bs::versions<1>;
  bool operator==(const LimitsV1&) const = default;
};
struct Room { // the log's first program
  std::uint32_t id = 0;
  LimitsV1 limits;
  std::vector<LimitsV1> history;
  bool operator==(const Room&) const = default;
};
struct RoomLater { // Limits gained a version, in the field and in the elements
  std::uint32_t id = 0;
  workloads::Limits limits;
  std::vector<workloads::Limits> history;
  bool operator==(const RoomLater&) const = default;
};
struct RoomHalf { // the field's type newer, the elements' not yet
  std::uint32_t id = 0;
  workloads::Limits limits;
  std::vector<LimitsV1> history;
  bool operator==(const RoomHalf&) const = default;
};
template <bs::options Opts>
inline constexpr bool one_fingerprint =
    bs::schema_hash_v<Room, Opts> == bs::schema_hash_v<RoomLater, Opts> &&
    bs::schema_hash_v<Room, Opts> == bs::schema_hash_v<RoomHalf, Opts>;
static_assert(one_fingerprint<bs::compact> && one_fingerprint<bs::portable> &&
              one_fingerprint<bs::native>);
template <bs::options Opts, class R>
using room_log = bs::log_schema<Opts, R, Tick>;

template <bs::options Opts>
void old_log_read_by_a_later_program() {
  const ProfileV1 a{"Ann", 1}, b{"Zed", 9};
  const bs::Buffer log = write_log<v1_log<Opts>>({}, a, Tick{1, 25, 3, 'B'}, b);
  bs::log_reader<v3_later<Opts>> r(log.bytes());
  ASSERT_TRUE(r.ok());
  // File types by fingerprint: ProfileV3's is its first version's, V1's.
  EXPECT_EQ(r.schema_index(0), 2U);
  EXPECT_EQ(r.schema_index(1), 1U);
  const auto got = read_all<v3_later<Opts>>(log.bytes());
  using R = any_record<v3_later<Opts>>;
  // The fields V1 did not have read as V3's defaults (Limits{10, 3} included).
  EXPECT_EQ(got, (std::vector<R>{as_v3(a), Tick{1, 25, 3, 'B'}, as_v3(b)}));
}

template <bs::options Opts>
void new_log_read_by_an_older_program() {
  const ProfileV3 c = workloads::make_profile_v3();
  const bs::Buffer log = write_log<v3_log<Opts>>({}, Tick{7, 10, 1, 'S'}, c);
  const auto got = read_all<v1_log<Opts>>(log.bytes());
  using R = any_record<v1_log<Opts>>;
  EXPECT_EQ(got,
            (std::vector<R>{Tick{7, 10, 1, 'S'}, as_v1(c)})); // the fields it does not know skipped
  // A typed read too.
  bs::log_reader<v1_log<Opts>> r(log.bytes());
  Tick t;
  ProfileV1 p;
  EXPECT_TRUE(r.read(t));
  EXPECT_TRUE(r.read(p));
  EXPECT_EQ(p, as_v1(c));
}

// A nested evolvable struct newer than the file describes: the holder's
// fingerprint is the same, the description's node is not (described.hpp).
template <bs::options Opts>
void nested_evolvable_appends() {
  const Room room{.id = 1, .limits = {5}, .history = {{1}, {2}}};
  bs::Buffer log = write_log<room_log<Opts, Room>>({}, room);
  const std::vector<std::byte> before(log.bytes().begin(), log.bytes().end());
  auto refused = [](bs::Buffer& buf, auto value, std::uint64_t described, std::uint64_t writes) {
    bs::log_writer<room_log<Opts, decltype(value)>, bs::Buffer> w(buf, bs::log_append);
    EXPECT_FALSE(w.write(value));
    const bs::error e = w.last_error();
    EXPECT_EQ(e.code, errc::schema_mismatch);
    EXPECT_EQ(e.what(), bs::mismatch::field_count);
    EXPECT_EQ(e.offset, bs::log_header_size);
    EXPECT_EQ(e.expected(), described);
    EXPECT_EQ(e.found(), writes);
  };
  auto appends = [](bs::Buffer& buf, auto value) {
    bs::log_writer<room_log<Opts, decltype(value)>, bs::Buffer> w(buf, bs::log_append);
    EXPECT_TRUE(w.write(value)) << bs::error_name(w.last_error().code);
    EXPECT_TRUE(w.close());
  };
  // The file describes Limits with one version (one field); these write two.
  refused(log, RoomLater{}, 1, 2);
  refused(log, RoomHalf{}, 1, 2);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), log.bytes().begin(), log.bytes().end()));
  // A file that describes the field's Limits as newer but not the elements'.
  bs::Buffer half = write_log<room_log<Opts, RoomHalf>>({}, RoomHalf{});
  refused(half, RoomLater{}, 1, 2);
  appends(half, room); // older everywhere
  appends(half, RoomHalf{.id = 2, .limits = {}, .history = {}});
  // Older writers append to a newer description, and every reader reads them.
  bs::Buffer later =
      write_log<room_log<Opts, RoomLater>>({}, RoomLater{.id = 3, .limits = {}, .history = {}});
  appends(later, room);
  appends(later, RoomHalf{.id = 4, .limits = {}, .history = {}});
  const auto got = read_all<room_log<Opts, Room>>(later.bytes());
  ASSERT_EQ(got.size(), 3U);
  EXPECT_EQ(std::get<Room>(got[1]), room);
  // Without descriptions there is nothing to contradict.
  bs::Buffer bare = write_log<room_log<Opts, Room>>({.descriptions = false}, room);
  appends(bare, RoomLater{});
}

} // namespace

TEST(LogEvolution, AppendingANestedEvolvableStructNewerThanTheHeaderDescribesIsRefused) {
  nested_evolvable_appends<bs::compact>();
  nested_evolvable_appends<bs::portable>();
  nested_evolvable_appends<bs::native>();
  // Through a file descriptor the same.
  const auto path = std::filesystem::temp_directory_path() /
                    ("bs_log_nested_" + std::to_string(::getpid()) + ".bsl");
  {
    bs::error e;
    const int fd = bs::open_log_for_append<room_log<bs::compact, Room>>(path.c_str(), e);
    ASSERT_GE(fd, 0);
    bs::fd_writer out(fd);
    bs::log_writer<room_log<bs::compact, Room>, bs::fd_writer> w(out, bs::log_append);
    ASSERT_TRUE(w.write(Room{}));
    ASSERT_TRUE(w.close());
    ::close(fd);
  }
  const auto size = std::filesystem::file_size(path);
  bs::error e;
  EXPECT_EQ((bs::open_log_for_append<room_log<bs::compact, RoomLater>>(path.c_str(), e)), -1);
  EXPECT_EQ(e.code, errc::schema_mismatch);
  EXPECT_EQ(e.what(), bs::mismatch::field_count);
  EXPECT_EQ(std::filesystem::file_size(path), size);
  std::filesystem::remove(path);
}

// The description reader: the evolvable nodes and their paths whatever the
// whitespace; anything not JSON within the limits gives up, in linear time.
TEST(LogDescribed, EvolvableNodesOfADescription) {
  using bs::detail::log::evolvable_node;
  using bs::detail::log::evolvable_scan;
  auto nodes = [](std::string_view text, bool& ok) {
    std::vector<evolvable_node> out;
    ok = evolvable_scan(text).run(out);
    std::string s;
    for (const auto& n : out) {
      s += n.path + "=";
      for (const auto v : n.versions) s += std::to_string(v) + ",";
      s += ";";
    }
    return s;
  };
  bool ok = false;
  const std::string mine = bs::schema_json<RoomHalf, bs::compact>();
  EXPECT_EQ(nodes(mine, ok), "/type/fields/1/type=1,2,;/type/fields/2/type/element=1,;");
  EXPECT_TRUE(ok);
  // Compact JSON, keys in another order, escapes, numbers: the same nodes.
  EXPECT_EQ(
      nodes(
          R"({"a":[1,-2.5e3,true,null,"x\"y"],"type":{"versions":[3, 4],)" R"("kind":"evolvable","name":"q\\\"","fields":[{"type":{"kind":"evolvable",)" R"("versions":[2]}}]}})",
          ok),
      "/type/fields/0/type=2,;/type=3,4,;");
  EXPECT_TRUE(ok);
  // Versions that are not counts are no node; another kind is none either.
  EXPECT_EQ(nodes(R"({"kind":"evolvable","versions":[1,"2"]})", ok), "");
  EXPECT_TRUE(ok);
  EXPECT_EQ(nodes(R"({"kind":"struct","versions":[1]})", ok), "");
  EXPECT_TRUE(ok);
  // A key given twice: the last one counts.
  EXPECT_EQ(nodes(R"({"kind":"evolvable","versions":[1],"versions":[2,3]})", ok), "=2,3,;");
  EXPECT_EQ(nodes(R"({"kind":"evolvable","versions":[1],"versions":"x"})", ok), "");
  EXPECT_EQ(nodes(R"({"kind":"evolvable","kind":1,"versions":[1]})", ok), "");
  EXPECT_EQ(nodes(R"({"kind":"x","kind":"evolvable","versions":[4]})", ok), "=4,;");
  EXPECT_TRUE(ok);
  // Escapes are checked.
  (void)nodes(R"(["\q"])", ok);
  EXPECT_FALSE(ok);
  (void)nodes(R"(["\u12"])", ok);
  EXPECT_FALSE(ok);
  (void)nodes(R"(["\u12aF\n\t\/"])", ok);
  EXPECT_TRUE(ok);
  // Not JSON: cut anywhere, trailing bytes, a control character in a string.
  for (std::size_t k = 0; k < mine.size(); ++k) {
    if (mine.find_first_not_of(" \n", k) == std::string::npos) break;
    (void)nodes(std::string_view(mine).substr(0, k), ok);
    EXPECT_FALSE(ok) << k;
  }
  (void)nodes(mine + "x", ok);
  EXPECT_FALSE(ok);
  (void)nodes("{\"a\":\"\x01\"}", ok);
  EXPECT_FALSE(ok);
  (void)nodes("\"\\", ok);
  EXPECT_FALSE(ok);
  // Nesting: up to the limit, not past it; a million brackets fail fast.
  const int d = evolvable_scan::max_depth;
  (void)nodes(std::string(d + 1, '[') + std::string(d + 1, ']'), ok);
  EXPECT_TRUE(ok);
  (void)nodes(std::string(d + 2, '[') + std::string(d + 2, ']'), ok);
  EXPECT_FALSE(ok);
  (void)nodes(std::string(1'000'000, '['), ok);
  EXPECT_FALSE(ok);
  // Many nodes under one long path: their copies have a budget.
  std::string wide = "{\"" + std::string(65536, 'k') + "\":[";
  for (int k = 0; k < 300; ++k) wide += R"({"kind":"evolvable","versions":[1]},)";
  wide.back() = ']';
  wide += '}';
  (void)nodes(wide, ok);
  EXPECT_FALSE(ok);
  std::string narrow = wide;
  narrow.replace(2, 65536, "k"); // the same nodes under a short path: kept
  std::vector<evolvable_node> kept;
  EXPECT_TRUE(evolvable_scan(narrow).run(kept));
  EXPECT_EQ(kept.size(), 300U);
  // A description that is not JSON leaves the append to the fingerprints.
  std::uint64_t described = 0, writes = 0;
  EXPECT_TRUE(bs::detail::log::describes_evolvable_nodes("not json", mine, described, writes));
  EXPECT_FALSE(bs::detail::log::describes_evolvable_nodes(bs::schema_json<Room, bs::compact>(),
                                                          mine, described, writes));
  EXPECT_EQ(described, 1U);
  EXPECT_EQ(writes, 2U);
  // A path given twice in the file (a key repeated): the last one counts.
  const std::string two = R"({"kind":"evolvable","versions":[1,2]})";
  const std::string one = R"({"kind":"evolvable","versions":[1]})";
  EXPECT_TRUE(
      bs::detail::log::describes_evolvable_nodes(R"({"type":)" + one + R"(,"type":)" + two + "}",
                                                 R"({"type":)" + two + "}", described, writes));
  EXPECT_FALSE(
      bs::detail::log::describes_evolvable_nodes(R"({"type":)" + two + R"(,"type":)" + one + "}",
                                                 R"({"type":)" + two + "}", described, writes));
}

TEST(LogEvolution, OldLogReadByALaterProgram) {
  old_log_read_by_a_later_program<bs::compact>();
  old_log_read_by_a_later_program<bs::portable>();
  old_log_read_by_a_later_program<bs::native>();
}

TEST(LogEvolution, NewLogReadByAnOlderProgram) {
  new_log_read_by_an_older_program<bs::compact>();
  new_log_read_by_an_older_program<bs::portable>();
  new_log_read_by_an_older_program<bs::native>();
}

// A writer whose type is newer than the header's description: its records
// would hold fields no description in the file names, which a reader with no
// code could not show. Refused, naming the first version the log does not
// describe; nothing is written.
TEST(LogEvolution, AppendingANewerVersionThanTheHeaderDescribesIsRefused) {
  bs::Buffer log = write_log<v1_log<bs::compact>>({}, ProfileV1{"Ann", 1});
  const std::vector<std::byte> before(log.bytes().begin(), log.bytes().end());
  {
    bs::log_writer<v3_log<bs::compact>, bs::Buffer> w(log, bs::log_append);
    EXPECT_FALSE(w.write(workloads::make_profile_v3()));
    const bs::error e = w.last_error();
    EXPECT_EQ(e.code, errc::schema_mismatch);
    EXPECT_EQ(e.what(), bs::mismatch::fingerprint);
    EXPECT_EQ(e.offset, bs::log_header_size);
    EXPECT_EQ(e.expected(), (bs::detail::schema_hash_upto<ProfileV3, bs::compact, 2>));
    EXPECT_EQ(e.found(), (bs::schema_hash_v<ProfileV3, bs::compact>));
  }
  EXPECT_TRUE(std::equal(before.begin(), before.end(), log.bytes().begin(), log.bytes().end()));

  // Version 2 of three is not enough either.
  bs::Buffer v2 = write_log<bs::log_schema<bs::compact, ProfileV2, Tick>>({}, Tick{});
  {
    bs::log_writer<v3_log<bs::compact>, bs::Buffer> w(v2, bs::log_append);
    EXPECT_FALSE(w.write(Tick{}));
    EXPECT_EQ(w.last_error().expected(), (bs::detail::schema_hash_upto<ProfileV3, bs::compact, 3>));
  }

  // Through a file descriptor: open_log_for_append refuses it, file untouched.
  const auto path = std::filesystem::temp_directory_path() /
                    ("bs_log_evolution_" + std::to_string(::getpid()) + ".bsl");
  {
    bs::error e;
    const int fd = bs::open_log_for_append<v1_log<bs::compact>>(path.c_str(), e);
    ASSERT_GE(fd, 0);
    bs::fd_writer out(fd);
    bs::log_writer<v1_log<bs::compact>, bs::fd_writer> w(out, bs::log_append);
    ASSERT_TRUE(w.write(ProfileV1{"Ann", 1}));
    ASSERT_TRUE(w.close());
    ::close(fd);
  }
  const auto size = std::filesystem::file_size(path);
  {
    bs::error e;
    EXPECT_EQ(bs::open_log_for_append<v3_log<bs::compact>>(path.c_str(), e), -1);
    EXPECT_EQ(e.code, errc::schema_mismatch);
    EXPECT_EQ(e.what(), bs::mismatch::fingerprint);
  }
  EXPECT_EQ(std::filesystem::file_size(path), size);
  std::filesystem::remove(path);
}

// An older version appending to a log that describes a newer one: every
// version it writes is described (V3's description lists V1's), so it goes
// on; a reader of either version reads both writers' records.
TEST(LogEvolution, AppendingAnOlderVersionIsAccepted) {
  const ProfileV3 c = workloads::make_profile_v3();
  bs::Buffer log = write_log<v3_log<bs::compact>>({}, c);
  {
    bs::log_writer<v1_log<bs::compact>, bs::Buffer> w(log, bs::log_append);
    ASSERT_TRUE(w.write(ProfileV1{"Old", 2})) << bs::error_name(w.last_error().code);
    ASSERT_TRUE(w.close());
  }
  using R3 = any_record<v3_log<bs::compact>>;
  EXPECT_EQ(read_all<v3_log<bs::compact>>(log.bytes()),
            (std::vector<R3>{c, as_v3(ProfileV1{"Old", 2})}));
  using R1 = any_record<v1_log<bs::compact>>;
  EXPECT_EQ(read_all<v1_log<bs::compact>>(log.bytes()),
            (std::vector<R1>{as_v1(c), ProfileV1{"Old", 2}}));

  // The same version appends as always.
  {
    bs::log_writer<v3_log<bs::compact>, bs::Buffer> w(log, bs::log_append);
    ASSERT_TRUE(w.write(c));
    ASSERT_TRUE(w.close());
  }
  EXPECT_EQ(read_all<v3_log<bs::compact>>(log.bytes()).size(), 3U);
}

// A log written without descriptions has none to contradict: a newer
// version appends by fingerprint alone (its readers need the types' code).
TEST(LogEvolution, WithoutDescriptionsAppendGoesByFingerprint) {
  bs::Buffer log = write_log<v1_log<bs::compact>>({.descriptions = false}, ProfileV1{"Ann", 1});
  {
    bs::log_writer<v3_log<bs::compact>, bs::Buffer> w(log, bs::log_append);
    ASSERT_TRUE(w.write(workloads::make_profile_v3()));
    ASSERT_TRUE(w.close());
  }
  using R = any_record<v3_log<bs::compact>>;
  EXPECT_EQ(read_all<v3_log<bs::compact>>(log.bytes()),
            (std::vector<R>{as_v3(ProfileV1{"Ann", 1}), workloads::make_profile_v3()}));
}
