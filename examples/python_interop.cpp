// C++ -> Python: writes three messages in the portable format to a file that
// examples/python_interop.py reads back with the package in python/.
//
//   ./example_python_interop [out.bin [truncations.txt]]  (default: python_interop.bin in the build dir)
//   python3 examples/python_interop.py out.bin
//
// With a second path it also writes, for a few fixed-size structs in each
// format, the encoding and the offset of the error C++ reports for every
// prefix of it (python/tests/test_cpp_interop.py checks Python reports the
// same: a struct C++ copies as one block fails at its first byte).
//
// The portable format is little-endian with fixed widths and no padding, so the
// file reads the same on any host and from any language. Messages carry no
// header: the reader must decode the same types in the same order.
#include <bin_serializer/bin_serializer.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#ifndef BIN_SERIALIZER_EXAMPLE_OUTPUT_DIR
#define BIN_SERIALIZER_EXAMPLE_OUTPUT_DIR "."
#endif

// A plain aggregate: no reflect() needed, fields go out in declaration order.
// Python side: @dataclass class Person: name: str; id: i32; email: str;
//              scores: list[f32]; active: bool
struct Person {
  std::string name;
  std::int32_t id{};
  std::string email;
  std::vector<float> scores;
  bool active{};

  bool operator==(const Person&) const = default;
};

// Truncation cases (python/tests/test_cpp_interop.py has the same dataclasses).
struct Flat { // no padding: one block in every format without varints
  std::uint32_t a;
  std::uint16_t b;
  std::uint16_t c;
};
struct Padded { // 3 padding bytes in memory: one block in native only
  std::uint8_t a;
  std::uint32_t b;
};
struct Nested {
  Flat x;
  std::uint64_t y;
};
struct FlatArray {
  std::uint8_t h;
  std::array<Flat, 2> arr;
};
struct InString {
  std::string s;
  Flat p;
  std::uint32_t t;
};
struct Floats {
  float a;
  float b;
};

namespace {

constexpr auto format = bin_serializer::portable;

// "<format> <name> <hex of the encoding> <error offset for each prefix length 0..size-1>"
template <auto F, class T>
void truncation_line(std::FILE* out, const char* fmt, const char* name, const T& value) {
  bin_serializer::Buffer buf;
  if (!serialize<F>(buf, value)) return;
  std::fprintf(out, "%s %s ", fmt, name);
  for (std::size_t i = 0; i < buf.size(); ++i)
    std::fprintf(out, "%02x", static_cast<unsigned>(std::to_integer<unsigned char>(buf.data()[i])));
  for (std::size_t cut = 0; cut < buf.size(); ++cut) {
    bin_serializer::BufferView view{std::span(buf.data(), cut)};
    T target{};
    if (deserialize<F>(view, target))
      std::fprintf(out, " ok");
    else
      std::fprintf(out, " %zu", view.last_error().offset);
  }
  std::fprintf(out, "\n");
}

template <auto F>
void truncation_lines(std::FILE* out, const char* fmt) {
  truncation_line<F>(out, fmt, "Flat", Flat{1, 2, 3});
  truncation_line<F>(out, fmt, "Padded", Padded{1, 2});
  truncation_line<F>(out, fmt, "Nested", Nested{{1, 2, 3}, 4});
  truncation_line<F>(out, fmt, "FlatArray", FlatArray{1, {Flat{1, 2, 3}, Flat{4, 5, 6}}});
  truncation_line<F>(out, fmt, "InString", InString{"ab", {1, 2, 3}, 7});
  truncation_line<F>(out, fmt, "Floats", Floats{1.0f, 2.0f});
}

bool write_truncations(const char* path) {
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) return false;
  truncation_lines<bin_serializer::portable>(f, "portable");
  truncation_lines<bin_serializer::native>(f, "native");
  truncation_lines<bin_serializer::compact>(f, "compact");
  return std::fclose(f) == 0;
}

bool write_file(const char* path, const bin_serializer::Buffer& buf) {
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
  return std::fclose(f) == 0 && ok;
}

} // namespace

int main(int argc, char** argv) {
  const std::string path =
      argc > 1 ? std::string(argv[1])
               : std::string(BIN_SERIALIZER_EXAMPLE_OUTPUT_DIR) + "/python_interop.bin";

  const Person person{"Ada Lovelace", 1815, "ada@example.com", {2.5f, -1.0f, 100.25f}, true};
  const std::vector<std::uint16_t> readings{1, 2, 3, 65535};
  const std::map<std::string, std::int64_t> inventory{{"apples", 12}, {"pears", -3}};

  bin_serializer::Buffer buf;
  if (!serialize<format>(buf, person) || !serialize<format>(buf, readings) ||
      !serialize<format>(buf, inventory)) {
    std::fprintf(stderr, "serialize failed: %s\n", buf.last_error().message().data());
    return 1;
  }

  // Read everything back in C++ first: the same bytes Python will see.
  Person p2;
  std::vector<std::uint16_t> r2;
  std::map<std::string, std::int64_t> i2;
  if (!deserialize<format>(buf, p2) || !deserialize<format>(buf, r2) ||
      !deserialize<format>(buf, i2) || buf.remaining() != 0) {
    const auto e = buf.last_error();
    std::fprintf(stderr, "deserialize failed at byte %zu: %s\n", e.offset, e.message().data());
    return 1;
  }
  if (!(p2 == person && r2 == readings && i2 == inventory)) {
    std::fprintf(stderr, "round trip changed the values\n");
    return 1;
  }

  if (!write_file(path.c_str(), buf)) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return 1;
  }
  std::printf("wrote %zu bytes (Person, vector<uint16_t>, map<string, int64_t>) to %s\n",
              buf.size(), path.c_str());
  std::printf("check from Python: python3 examples/python_interop.py %s\n", path.c_str());
  if (argc > 2 && !write_truncations(argv[2])) {
    std::fprintf(stderr, "cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
