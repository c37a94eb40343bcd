// The life of a field: a settings record through five program versions, the
// first and four changes (docs/evolution.md):
//
//   v1  id, user, locale                      versions<3>
//   v2  + volume (appended)                   versions<3, 4>
//   v3  user retired: its wire slot stays     versions<3, 4>
//   v4  + theme (appended)                    versions<3, 4, 5>
//   v5  locale renamed language               versions<3, 4, 5>
//
// Every version keeps the fields it does not know (unknown_fields), so an old
// program's read-modify-write gives newer data back intact. The program
//   - proves at compile time that each version reads every other one's data
//     (check_compatible, both directions);
//   - writes one file per version and format (portable, compact) with the
//     description of that version next to it (settings.vN.FORMAT.bin/.json);
//   - reads every file with every version and checks each field;
//   - lets v1 edit v5's data and checks that v5 still finds its fields.
// python/examples/evolution.py does the same from the descriptions.
//
//   example_evolution [DIR]     (default: a fresh directory under /tmp)
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/frame/compatibility.hpp>
#include <bin_serializer/frame/schema_json.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace bs = bin_serializer;

namespace v1 {
struct Settings {
  std::uint32_t id = 0;
  std::string user;
  std::string locale = "en_US";
  bs::unknown_fields unknown;
  using bin_serializer_evolution = bs::versions<3>;
};
} // namespace v1

namespace v2 {
struct Settings {
  std::uint32_t id = 0;
  std::string user;
  std::string locale = "en_US";
  std::uint16_t volume = 5; // appended: version 2 of the record
  bs::unknown_fields unknown;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
} // namespace v2

namespace v3 {
struct Settings {
  std::uint32_t id = 0;
  [[no_unique_address]] bs::retired<std::string> user; // retired: written as ""
  std::string locale = "en_US";
  std::uint16_t volume = 5;
  bs::unknown_fields unknown;
  using bin_serializer_evolution = bs::versions<3, 4>;
};
} // namespace v3

namespace v4 {
struct Settings {
  std::uint32_t id = 0;
  [[no_unique_address]] bs::retired<std::string> user;
  std::string locale = "en_US";
  std::uint16_t volume = 5;
  std::string theme = "light"; // appended: version 3 of the record
  bs::unknown_fields unknown;
  using bin_serializer_evolution = bs::versions<3, 4, 5>;
};
} // namespace v4

namespace v5 {
struct Settings {
  std::uint32_t id = 0;
  [[no_unique_address]] bs::retired<std::string> user;
  std::string language = "en_US"; // renamed: names are not on the wire
  std::uint16_t volume = 5;
  std::string theme = "light";
  bs::unknown_fields unknown;
  using bin_serializer_evolution = bs::versions<3, 4, 5>;
};
} // namespace v5

// Each version is a safe change of the one before it, in both formats: a
// reader of either reads the other's data (compatibility<Old, New>'s
// reads_old and reads_new).
template <class Old, class New>
constexpr bool safe_change() {
  return bs::check_compatible<Old, New, bs::portable>() &&
         bs::check_compatible<Old, New, bs::compact>();
}
static_assert(safe_change<v1::Settings, v2::Settings>() &&
              safe_change<v2::Settings, v3::Settings>() &&
              safe_change<v3::Settings, v4::Settings>() &&
              safe_change<v4::Settings, v5::Settings>() &&
              safe_change<v1::Settings, v5::Settings>());
// Changing the schema otherwise is caught; e.g. dropping `user` instead of retiring it:
namespace dropped {
struct Settings {
  std::uint32_t id = 0;
  std::string locale = "en_US";
  std::uint16_t volume = 5;
  using bin_serializer_evolution = bs::versions<2, 3>;
};
} // namespace dropped
static_assert(!bs::compatible_v<v2::Settings, dropped::Settings>);

// The fields of any version, as one record (what a version lacks: absent).
struct Fields {
  std::uint32_t id = 0;
  std::string user;   // live in v1, v2
  std::string locale; // locale / language
  int volume = -1;    // v2 on
  std::string theme;  // v4 on
  bool operator==(const Fields&) const = default;
};

// Version V's type.
template <int V>
using settings = std::tuple_element_t<
    static_cast<std::size_t>(V - 1),
    std::tuple<v1::Settings, v2::Settings, v3::Settings, v4::Settings, v5::Settings>>;

// A version's value as Fields, and the value version V writes.
template <int V>
Fields fields_of(const settings<V>& s) {
  Fields f;
  f.id = s.id;
  if constexpr (V <= 2) f.user = s.user;
  if constexpr (V <= 4)
    f.locale = s.locale;
  else
    f.locale = s.language;
  if constexpr (V >= 2) f.volume = s.volume;
  if constexpr (V >= 4) f.theme = s.theme;
  return f;
}

template <int V>
settings<V> written_by() {
  settings<V> s;
  s.id = 100 + V;
  if constexpr (V <= 2) s.user = "user of v" + std::to_string(V);
  if constexpr (V <= 4)
    s.locale = "fr_FR";
  else
    s.language = "fr_FR";
  if constexpr (V >= 2) s.volume = 7;
  if constexpr (V >= 4) s.theme = "dark";
  return s;
}

// What reader R finds in writer W's data: W's values for the fields both
// have; "" for a field W retired; R's defaults for fields W never had.
Fields expected(int r, int w) {
  Fields f;
  f.id = static_cast<std::uint32_t>(100 + w);
  if (r <= 2) f.user = w <= 2 ? "user of v" + std::to_string(w) : "";
  f.locale = "fr_FR";
  if (r >= 2) f.volume = w >= 2 ? 7 : 5;
  if (r >= 4) f.theme = w >= 4 ? "dark" : "light";
  return f;
}

template <bs::options Opts>
constexpr const char* format_name() {
  return Opts.format == bs::wire_format::compact ? "compact" : "portable";
}

std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

bool write_file(const std::filesystem::path& p, const void* data, std::size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  return static_cast<bool>(out.flush());
}

std::filesystem::path file_of(const std::filesystem::path& dir, int v, const char* format,
                              const char* ext) {
  return dir / ("settings.v" + std::to_string(v) + "." + format + ext);
}

template <bs::options Opts, int W>
bool write_version(const std::filesystem::path& dir) {
  bs::Buffer out;
  if (!bs::serialize<Opts>(out, written_by<W>())) return false;
  const std::string description = bs::schema_json<settings<W>, Opts>();
  return write_file(file_of(dir, W, format_name<Opts>(), ".bin"), out.data(), out.size()) &&
         write_file(file_of(dir, W, format_name<Opts>(), ".json"), description.data(),
                    description.size());
}

template <bs::options Opts, int R>
int read_all(const std::filesystem::path& dir) {
  int failures = 0;
  std::printf("  v%d reads", R);
  for (int w = 1; w <= 5; ++w) {
    const std::vector<std::byte> bytes = read_file(file_of(dir, w, format_name<Opts>(), ".bin"));
    bs::BufferView in(bytes);
    settings<R> got;
    const bool ok = bs::deserialize<Opts>(in, got) && fields_of<R>(got) == expected(R, w);
    std::printf("  v%d:%s", w, ok ? "ok" : "FAILED");
    failures += ok ? 0 : 1;
  }
  std::printf("\n");
  return failures;
}

// v1 edits v5's data; v5 finds its own fields unchanged.
template <bs::options Opts>
int old_program_edits_new_data() {
  bs::Buffer bytes;
  v1::Settings old;
  if (!bs::serialize<Opts>(bytes, written_by<5>()) || !bs::deserialize<Opts>(bytes, old)) return 1;
  old.id = 999;
  bs::Buffer edited;
  v5::Settings back;
  if (!bs::serialize<Opts>(edited, old) || !bs::deserialize<Opts>(edited, back)) return 1;
  v5::Settings want = written_by<5>();
  want.id = 999;
  const bool ok = fields_of<5>(back) == fields_of<5>(want);
  std::printf("  v1 edits v5's data, v5 reads it back: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

template <bs::options Opts>
int run(const std::filesystem::path& dir) {
  std::printf("%s:\n", format_name<Opts>());
  if (!(write_version<Opts, 1>(dir) && write_version<Opts, 2>(dir) && write_version<Opts, 3>(dir) &&
        write_version<Opts, 4>(dir) && write_version<Opts, 5>(dir))) {
    std::fprintf(stderr, "could not write the files in %s\n", dir.c_str());
    return 1;
  }
  return read_all<Opts, 1>(dir) + read_all<Opts, 2>(dir) + read_all<Opts, 3>(dir) +
         read_all<Opts, 4>(dir) + read_all<Opts, 5>(dir) + old_program_edits_new_data<Opts>();
}

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? std::filesystem::path(argv[1])
                                             : std::filesystem::temp_directory_path() /
                                                   ("bs_evolution_" + std::to_string(::getpid()));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const int failures = run<bs::portable>(dir) + run<bs::compact>(dir);
  if (argc <= 1) std::filesystem::remove_all(dir, ec);
  std::printf("%s\n", failures == 0 ? "every version reads every version" : "FAILED");
  return failures == 0 ? 0 : 1;
}
