// vector_verdicts: what the C++ library makes of every golden vector
// (spec/vectors/) damaged at every byte. The Python package decodes the same
// damage in python/tests/test_vectors.py (test_damage_decoded_alike_by_cpp
// _and_python) and must give the same answer: the same value (compared as
// its re-encoding) and bytes consumed, or the same error at the same offset.
//
// Usage: vector_verdicts FORMAT NAME...
//   FORMAT: portable, compact or native (native: x86-64 hosts only, like the
//   vectors). For each vector NAME and each offset k of it, two damages:
//   byte k inverted ("x k") and the vector cut to k bytes ("c k"). Each is
//   decoded into a value-initialised object of the case's type:
//
//     compact person x 3 ok 17 0a0b0c...     (consumed, re-encoded hex)
//     compact person c 5 err truncated 5     (errc, offset)
#include <bin_serializer/bin_serializer.hpp>

#include "spec/vector_cases.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#ifndef BIN_SERIALIZER_SPEC_DIR
#error "compile with -DBIN_SERIALIZER_SPEC_DIR=\"<repo>/spec\""
#endif

namespace bs = bin_serializer;

namespace {

std::string hex(const std::byte* p, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<unsigned char>(p[i]);
    out += digits[b >> 4];
    out += digits[b & 0xF];
  }
  return out;
}

template <bs::options Opts, class T>
std::string verdict(const std::string& bytes) {
  bs::BufferView view(bytes.data(), bytes.size());
  T out{};
  if (!bs::deserialize<Opts>(view, out)) {
    const bs::error e = view.last_error();
    return "err " + std::string(bs::error_name(e.code)) + " " + std::to_string(e.offset);
  }
  bs::Buffer again;
  if (!bs::serialize<Opts>(again, out)) return "reencode-failed";
  return "ok " + std::to_string(bytes.size() - view.remaining()) + " " +
         hex(again.bytes().data(), again.bytes().size());
}

// Every value checked, also the bool and ranged-enum members of trivially
// copyable structs (bs::untrusted's check_trivial_members): as the Python
// package always checks.
template <bs::options Format>
constexpr bs::options checked = [] {
  bs::options o = Format;
  o.check_trivial_members = true;
  return o;
}();

template <bs::options Opts>
bool run(std::string_view format, std::string_view wanted) {
  bool found = false;
  vector_cases::for_each_case([&](std::string_view name, const auto& value) {
    if (name != wanted) return;
    found = true;
    using T = std::remove_cvref_t<decltype(value)>;
    const std::string path = std::string(BIN_SERIALIZER_SPEC_DIR "/vectors/") +
                             std::string(format) + "/" + std::string(name) + ".bin";
    std::ifstream in(path, std::ios::binary);
    std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::size_t k = 0; k < file.size(); ++k) {
      const char was = file[k];
      file[k] = static_cast<char>(~was);
      std::printf("%.*s %.*s x %zu %s\n", static_cast<int>(format.size()), format.data(),
                  static_cast<int>(name.size()), name.data(), k, verdict<Opts, T>(file).c_str());
      file[k] = was;
      std::printf("%.*s %.*s c %zu %s\n", static_cast<int>(format.size()), format.data(),
                  static_cast<int>(name.size()), name.data(), k,
                  verdict<Opts, T>(file.substr(0, k)).c_str());
    }
  });
  return found;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: vector_verdicts FORMAT NAME...\n");
    return 2;
  }
  const std::string_view format = argv[1];
  for (int i = 2; i < argc; ++i) {
    bool found;
    if (format == "portable")
      found = run<checked<bs::portable>>(format, argv[i]);
    else if (format == "compact")
      found = run<checked<bs::compact>>(format, argv[i]);
    else if (format == "native")
      found = run<checked<bs::native>>(format, argv[i]);
    else {
      std::fprintf(stderr, "unknown format %s\n", argv[1]);
      return 2;
    }
    if (!found) {
      std::fprintf(stderr, "no case %s\n", argv[i]);
      return 2;
    }
  }
  return 0;
}
