// Writes the golden vectors: spec/vectors/<format>/<NAME>.bin and <NAME>.json
// for every case of spec/vector_cases.hpp, in the portable, compact and
// native formats.
//
//   make_vectors [--check] [DIR]
//
// DIR defaults to the source tree's spec/vectors. Files of a format directory
// that no case produces any more are removed. With --check nothing is written:
// the program reports every file that is missing, differs or is stale and
// exits with status 1 if there is one.
//
// The native vectors are defined for a little-endian LP64 host with libstdc++
// (x86-64 Linux); elsewhere only the portable and compact ones are written
// (or checked).
#include "spec/vector_cases.hpp"

#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#ifndef BIN_SERIALIZER_SPEC_DIR
#error "compile with -DBIN_SERIALIZER_SPEC_DIR=\"<repo>/spec\""
#endif

namespace {

namespace bs = bin_serializer;
namespace fs = std::filesystem;

constexpr bool native_host = vector_cases::native_vectors_apply;

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

bool write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  return static_cast<bool>(out);
}

struct Run {
  fs::path root;
  bool check = false;
  int problems = 0;
  std::size_t written = 0;
  std::set<std::string> produced; // "<format>/<file name>"

  void emit(std::string_view format, const std::string& file, std::string_view contents) {
    const fs::path path = root / format / file;
    produced.insert(std::string(format) + "/" + file);
    if (check) {
      std::string existing;
      if (!read_file(path, existing)) {
        std::fprintf(stderr, "missing: %s\n", path.string().c_str());
        ++problems;
      } else if (existing != contents) {
        std::fprintf(stderr, "differs: %s\n", path.string().c_str());
        ++problems;
      }
      return;
    }
    std::string existing;
    if (read_file(path, existing) && existing == contents) return; // keep the timestamp
    if (!write_file(path, contents)) {
      std::fprintf(stderr, "error: cannot write %s\n", path.string().c_str());
      ++problems;
      return;
    }
    ++written;
  }

  template <bs::options Opts, class T>
  void one(std::string_view format, std::string_view name, const T& value) {
    bs::Buffer buf;
    if (!bs::serialize<Opts>(buf, value)) {
      const std::string why(buf.last_error().message());
      std::fprintf(stderr, "error: %.*s (%.*s): serialize failed: %s\n",
                   static_cast<int>(name.size()), name.data(), static_cast<int>(format.size()),
                   format.data(), why.c_str());
      ++problems;
      return;
    }
    const auto bytes = buf.bytes();
    const std::string_view data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    emit(format, std::string(name) + ".bin", data);
    emit(format, std::string(name) + ".json", vector_cases::json_document(name, format, value));
  }

  // Removes (or, with --check, reports) vector files no case produced.
  void stale(std::string_view format) {
    std::error_code ec;
    for (fs::directory_iterator it(root / format, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() != ".bin" && p.extension() != ".json") continue;
      if (produced.contains(std::string(format) + "/" + p.filename().string())) continue;
      if (check) {
        std::fprintf(stderr, "stale: %s\n", p.string().c_str());
        ++problems;
      } else {
        std::error_code rm;
        fs::remove(p, rm);
        std::printf("removed stale %s\n", p.string().c_str());
      }
    }
  }
};

// spec/vectors/framed/<format>/: framed messages (a Person; a Quote, whose type
// declares a message type id) and the three versions of an evolvable struct
// (docs/wire-format.md sections 10-11), and two versions of a plain struct
// holding a nested evolvable one. Their JSON adds "kind" ("message" or
// "value") and, for messages, "schema_hash" (16 hex digits) and, for a type
// with an id, "type_id"; a message's "schema" and "value" describe its payload.
template <bs::options Opts>
void framed_cases(Run& run, std::string_view format) {
  const std::string dir = "framed/" + std::string(format);
  const auto emit_bytes = [&](const std::string& name, const bs::Buffer& buf) {
    const auto bytes = buf.bytes();
    run.emit(dir, name + ".bin",
             std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  };
  const auto document = [&](const std::string& name, const std::string& kind,
                            const std::string& extra, const auto& value) {
    using T = std::remove_cvref_t<decltype(value)>;
    std::string out = "{\n  \"name\": \"" + name + "\",\n  \"format\": \"" + std::string(format) +
                      "\",\n  \"kind\": \"" + kind + "\"" + extra;
    out += ",\n  \"schema\": " + vector_cases::schema_of<T>();
    out += ",\n  \"value\": " + vector_cases::value_of(value) + "\n}\n";
    run.emit(dir, name + ".json", out);
  };
  const auto value_case = [&](const std::string& name, const auto& value) {
    bs::Buffer buf;
    if (!bs::serialize<Opts>(buf, value)) ++run.problems;
    emit_bytes(name, buf);
    document(name, "value", "", value);
  };
  {
    const workloads::Person person = workloads::make_person();
    using P = workloads::Person;
    bs::Buffer buf;
    if (!bs::serialize_message<Opts>(buf, person)) ++run.problems;
    emit_bytes("message_person", buf);
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx",
                  static_cast<unsigned long long>(bs::schema_hash_v<P, Opts>));
    document("message_person", "message", ",\n  \"schema_hash\": \"" + std::string(hash) + "\"",
             person);
  }
  {
    // A message with a type id: 32-byte header; the JSON adds "type_id".
    const vector_cases::Quote quote{1700000000123456789ULL, 101.25};
    using Q = vector_cases::Quote;
    bs::Buffer buf;
    if (!bs::serialize_message<Opts>(buf, quote)) ++run.problems;
    emit_bytes("message_quote_id", buf);
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx",
                  static_cast<unsigned long long>(bs::schema_hash_v<Q, Opts>));
    document("message_quote_id", "message",
             ",\n  \"schema_hash\": \"" + std::string(hash) +
                 "\",\n  \"type_id\": " + std::to_string(bs::message_id_v<Q>),
             quote);
  }
  value_case("evolvable_v1", workloads::make_profile_v1());
  value_case("evolvable_v2", workloads::make_profile_v2());
  value_case("evolvable_v3", workloads::make_profile_v3());
  // A plain struct holding two versions of a nested evolvable struct.
  value_case("nested_evolvable_v1", workloads::make_room_v1());
  value_case("nested_evolvable_v2", workloads::make_room_v2());
}

} // namespace

int main(int argc, char** argv) {
  Run run;
  run.root = fs::path(BIN_SERIALIZER_SPEC_DIR) / "vectors";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--check") {
      run.check = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: %s [--check] [DIR]   (DIR default: %s)\n", argv[0],
                  run.root.string().c_str());
      return 0;
    } else if (!arg.empty() && arg.front() == '-') {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    } else {
      run.root = fs::path(arg);
    }
  }

  std::vector<std::string_view> formats{"portable", "compact"};
  if (native_host)
    formats.push_back("native");
  else
    std::fprintf(stderr,
                 "note: not a little-endian LP64 libstdc++ host: native vectors are not %s\n",
                 run.check ? "checked" : "written");

  if (!run.check) {
    for (const std::string_view format : formats) {
      std::error_code ec;
      fs::create_directories(run.root / format, ec);
      if (!ec) fs::create_directories(run.root / "framed" / format, ec);
      if (ec) {
        std::fprintf(stderr, "error: cannot create %s: %s\n", (run.root / format).string().c_str(),
                     ec.message().c_str());
        return 1;
      }
    }
  }

  std::size_t cases = 0;
  vector_cases::for_each_case([&](std::string_view name, const auto& value) {
    ++cases;
    run.one<bs::portable>("portable", name, value);
    run.one<bs::compact>("compact", name, value);
    if constexpr (native_host) run.one<bs::native>("native", name, value);
  });
  framed_cases<bs::portable>(run, "portable");
  framed_cases<bs::compact>(run, "compact");
  if constexpr (native_host) framed_cases<bs::native>(run, "native");
  for (const std::string_view format : formats) run.stale(format);
  for (const std::string_view format : formats) run.stale("framed/" + std::string(format));

  if (run.check) {
    std::printf("%zu cases, %zu files checked, %d problem(s)\n", cases, run.produced.size(),
                run.problems);
  } else {
    std::printf("%zu cases, %zu files in %s (%zu written)\n", cases, run.produced.size(),
                run.root.string().c_str(), run.written);
  }
  return run.problems == 0 ? 0 : 1;
}
