// C++ -> Python: writes three messages in the portable format to a file that
// examples/python_interop.py reads back with the package in python/.
//
//   ./example_python_interop [out.bin]      (default: python_interop.bin in the build dir)
//   python3 examples/python_interop.py out.bin
//
// The portable format is little-endian with fixed widths and no padding, so the
// file reads the same on any host and from any language. Messages carry no
// header: the reader must decode the same types in the same order.
#include <bin_serializer/bin_serializer.hpp>

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

namespace {

constexpr auto format = bin_serializer::portable;

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
  return 0;
}
