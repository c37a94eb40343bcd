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

} // namespace

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
