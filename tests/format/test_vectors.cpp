// The golden vectors in spec/vectors/ against the library, on this host.
//
// For every case of spec/vector_cases.hpp (values built here, not read from
// the generator's output):
//   Json             every <NAME>.json file is what the case describes
//   Portable         serialize<portable>(value) == portable/<NAME>.bin, and
//                    that file decodes to an equal value (every host: this is
//                    the cross-architecture and cross-language check)
//   Compact          the same with compact/<NAME>.bin (every host)
//   NativeBytes      the same with native/<NAME>.bin (little-endian LP64
//                    libstdc++ hosts only: the native vectors are x86-64 bytes)
//   NativeRoundTrip  native serialize + deserialize gives an equal value (every host)
#include <gtest/gtest.h>

#include "spec/vector_cases.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#ifndef BIN_SERIALIZER_SPEC_DIR
#error "compile with -DBIN_SERIALIZER_SPEC_DIR=\"<repo>/spec\""
#endif

namespace {

namespace bs = bin_serializer;

std::string vector_path(std::string_view format, std::string_view name, std::string_view ext) {
  std::string path = BIN_SERIALIZER_SPEC_DIR "/vectors/";
  path.append(format).append("/").append(name).append(ext);
  return path;
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

std::string hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += digits[b >> 4];
    out += digits[b & 0xF];
  }
  return out;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  vector_cases::for_each_case(
      [&](std::string_view name, const auto&) { names.emplace_back(name); });
  return names;
}

// Runs check(value) on the case called `wanted`.
template <class Check>
void with_case(const std::string& wanted, Check&& check) {
  bool found = false;
  vector_cases::for_each_case([&](std::string_view name, const auto& value) {
    if (name != wanted) return;
    found = true;
    check(value);
  });
  ASSERT_TRUE(found) << "no case " << wanted;
}

template <bs::options Opts, class T>
std::string encode(const T& value) {
  bs::Buffer buf;
  EXPECT_TRUE(bs::serialize<Opts>(buf, value)) << buf.last_error().message();
  const auto bytes = buf.bytes();
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// `bytes` must decode to exactly `value`, consuming all of them.
template <bs::options Opts, class T>
void expect_decodes_to(std::string_view bytes, const T& value) {
  bs::BufferView view(bytes.data(), bytes.size());
  T out{};
  ASSERT_TRUE(bs::deserialize<Opts>(view, out)) << view.last_error().message();
  EXPECT_EQ(view.remaining(), 0u) << "bytes left after the value";
  EXPECT_TRUE(vector_cases::same_value(out, value)) << "decoded value differs from the case";
}

template <bs::options Opts>
void check_file(std::string_view format, const std::string& name) {
  with_case(name, [&](const auto& value) {
    std::string file;
    const std::string path = vector_path(format, name, ".bin");
    ASSERT_TRUE(read_file(path, file))
        << "cannot read " << path << " (regenerate with tools/make_vectors)";
    const std::string bytes = encode<Opts>(value);
    EXPECT_EQ(hex(bytes), hex(file)) << "serialize<" << format << "> differs from " << path;
    expect_decodes_to<Opts>(file, value);
  });
}

class Vector : public ::testing::TestWithParam<std::string> {};

TEST_P(Vector, Json) {
  with_case(GetParam(), [&](const auto& value) {
    for (const std::string_view format : {"portable", "compact", "native"}) {
      std::string file;
      const std::string path = vector_path(format, GetParam(), ".json");
      ASSERT_TRUE(read_file(path, file)) << "cannot read " << path;
      EXPECT_EQ(file, vector_cases::json_document(GetParam(), format, value))
          << path << " is not what the case describes (regenerate with tools/make_vectors)";
    }
  });
}

TEST_P(Vector, Portable) { check_file<bs::portable>("portable", GetParam()); }

TEST_P(Vector, Compact) { check_file<bs::compact>("compact", GetParam()); }

TEST_P(Vector, NativeBytes) {
  if constexpr (!vector_cases::native_vectors_apply) {
    GTEST_SKIP() << "the native vectors are x86-64 bytes (little-endian, LP64, libstdc++); this "
                    "host's native format differs (its round trip is NativeRoundTrip)";
  }
  check_file<bs::native>("native", GetParam());
}

TEST_P(Vector, NativeRoundTrip) {
  with_case(GetParam(), [&](const auto& value) {
    expect_decodes_to<bs::native>(encode<bs::native>(value), value);
  });
}

INSTANTIATE_TEST_SUITE_P(Spec, Vector, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

TEST(VectorCases, NamesAreUniqueIdentifiers) {
  std::vector<std::string> names = case_names();
  ASSERT_FALSE(names.empty());
  for (const std::string& n : names) {
    EXPECT_FALSE(n.empty());
    for (const char c : n)
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << n;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "duplicate case name";
}

} // namespace
