// vector_verdicts: what the C++ library makes of every golden vector
// (spec/vectors/) damaged at every byte. The Python package decodes the same
// damage in python/tests/test_vectors.py (test_damage_decoded_alike_by_cpp
// _and_python) and must give the same answer: the same value (compared as
// its re-encoding) and bytes consumed, or the same error at the same offset.
// Each damage is also read from a stream (below: verdict), which must agree
// with the read from memory.
//
// Usage: vector_verdicts FORMAT NAME...
//   FORMAT: portable, compact or native (native: x86-64 hosts only, like the
//   vectors). For each vector NAME and each offset k of it, three damages:
//   byte k inverted ("x k"), its lowest bit flipped ("b k": a length, count
//   or tag off by one) and the vector cut to k bytes ("c k"). Each is
//   decoded into a value-initialised object of the case's type:
//
//     compact person x 3 ok 17 0a0b0c...     (consumed, re-encoded hex)
//     compact person c 5 err truncated 5     (errc, offset)
//
//   FORMAT framed/portable, framed/compact or framed/native: the vectors of
//   spec/vectors/framed/. A message (message_person, message_quote_id) is
//   read with deserialize_message and re-encoded with serialize_message; an
//   evolvable struct's bytes (evolvable_v1..3) are read as each of the three
//   versions, the reader named after the vector ("evolvable_v3@v1": version
//   3's bytes read as ProfileV1); nested_evolvable_v1..2 (a plain struct
//   holding two versions of an evolvable one) are read as both versions.
//   The undamaged bytes come first ("i 0"):
//
//     framed/compact evolvable_v3@v1 i 0 ok 35 0400000002000000...
//
//   FORMAT frames/portable, frames/compact or frames/native (NAME: "stream"):
//   three framed messages back to back, walked frame by frame (see
//   walk_frames below), with the same damages:
//
//     frames/compact stream x 30 0:0:66 | bad_header@90
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/stream.hpp>

#include "spec/vector_cases.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <istream>
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

// A streambuf over bytes that shows at most 7 of them at a time (in_avail()
// <= 7), so that the stream reader's block is refilled inside every kind of
// value.
class trickle_buf : public std::streambuf {
public:
  explicit trickle_buf(std::string& bytes) : bytes_(bytes) {}

protected:
  int_type underflow() override {
    if (at_ == bytes_.size()) return traits_type::eof();
    const std::size_t n = std::min<std::size_t>(7, bytes_.size() - at_);
    char* p = bytes_.data() + at_;
    at_ += n;
    setg(p, p, p + n);
    return traits_type::to_int_type(*p);
  }

private:
  std::string& bytes_;
  std::size_t at_ = 0;
};

struct outcome {
  std::string text; // "ok END HEX" or "err CODE OFFSET", as printed
  bs::error error;  // {} when the read succeeded
};

// A value (a message when Message) read from a reader, in the words above.
template <bs::options Opts, class T, bool Message, class R>
outcome read_with(R& reader) {
  T out{};
  bool ok;
  if constexpr (Message)
    ok = bs::deserialize_message<Opts>(reader, out);
  else
    ok = bs::deserialize<Opts>(reader, out);
  if (!ok) {
    const bs::error e = reader.last_error();
    return {"err " + std::string(bs::error_name(e.code)) + " " + std::to_string(e.offset), e};
  }
  bs::Buffer again;
  bool written;
  if constexpr (Message)
    written = bs::serialize_message<Opts>(again, out);
  else
    written = bs::serialize<Opts>(again, out);
  if (!written) return {"reencode-failed", {}};
  return {"ok " + std::to_string(reader.read_position()) + " " +
              hex(again.bytes().data(), again.bytes().size()),
          {}};
}

// Whether a stream's verdict is the one docs/io.md promises, given the
// contiguous reader's: the same value and end, or the same error, with one
// exception. A stream cannot check a length against what is left, so where
// the contiguous reader finds a length longer than the input (truncated, at
// the length's offset), the stream reads on, and fails further on: truncated
// where the input runs out, or invalid_value at a byte no value can have or,
// for a length its contents do not fill (a framed message's payload length,
// an evolvable struct's body length), at the end that length declares, which
// may lie past the input.
bool stream_agrees(const outcome& contiguous, const outcome& streamed, std::size_t size) {
  if (streamed.text == contiguous.text) return true;
  const bs::error c = contiguous.error, s = streamed.error;
  if (c.code != bs::errc::truncated || s.offset <= c.offset) return false;
  return (s.code == bs::errc::truncated && s.offset <= size) || s.code == bs::errc::invalid_value;
}

// The verdict of the contiguous reader (a BufferView over the bytes). The
// stream reader (an istream_reader with a 64-byte block, shown 7 bytes at a
// time) must reach the same one (stream_agrees); where it does not, both are
// printed, which the Python test reports as a difference.
template <bs::options Opts, class T, bool Message = false>
std::string verdict(std::string bytes) {
  bs::BufferView view(bytes.data(), bytes.size());
  const outcome contiguous = read_with<Opts, T, Message>(view);
  trickle_buf buf(bytes);
  std::istream is(&buf);
  bs::basic_istream_reader<64> stream(is);
  const outcome streamed = read_with<Opts, T, Message>(stream);
  if (stream_agrees(contiguous, streamed, bytes.size())) return contiguous.text;
  return contiguous.text + " | stream: " + streamed.text;
}

template <bs::options Format>
constexpr bs::options checked = [] {
  bs::options o = Format;
  o.check_trivial_members = true;
  return o;
}();

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <bs::options Opts>
bool run(std::string_view format, std::string_view wanted) {
  bool found = false;
  vector_cases::for_each_case([&](std::string_view name, const auto& value) {
    if (name != wanted) return;
    found = true;
    using T = std::remove_cvref_t<decltype(value)>;
    const std::string path = std::string(BIN_SERIALIZER_SPEC_DIR "/vectors/") +
                             std::string(format) + "/" + std::string(name) + ".bin";
    std::string file = read_file(path);
    for (std::size_t k = 0; k < file.size(); ++k) {
      const char was = file[k];
      file[k] = static_cast<char>(~was);
      std::printf("%.*s %.*s x %zu %s\n", static_cast<int>(format.size()), format.data(),
                  static_cast<int>(name.size()), name.data(), k, verdict<Opts, T>(file).c_str());
      file[k] = static_cast<char>(was ^ 1);
      std::printf("%.*s %.*s b %zu %s\n", static_cast<int>(format.size()), format.data(),
                  static_cast<int>(name.size()), name.data(), k, verdict<Opts, T>(file).c_str());
      file[k] = was;
      std::printf("%.*s %.*s c %zu %s\n", static_cast<int>(format.size()), format.data(),
                  static_cast<int>(name.size()), name.data(), k,
                  verdict<Opts, T>(file.substr(0, k)).c_str());
    }
  });
  return found;
}

// Prints "FORMAT READER WHAT K VERDICT" for the intact bytes, then the three
// damages of every byte, each read by every reader given.
template <class... Read>
void damage(std::string_view format, std::string file, const Read&... readers) {
  const auto print = [&](const char* what, std::size_t k, const std::string& bytes) {
    (std::printf("%.*s %s %s %zu %s\n", static_cast<int>(format.size()), format.data(),
                 readers.name.c_str(), what, k, readers.read(bytes).c_str()),
     ...);
  };
  print("i", 0, file);
  for (std::size_t k = 0; k < file.size(); ++k) {
    const char was = file[k];
    file[k] = static_cast<char>(~was);
    print("x", k, file);
    file[k] = static_cast<char>(was ^ 1);
    print("b", k, file);
    file[k] = was;
    print("c", k, file.substr(0, k));
  }
}

template <class F>
struct reader {
  std::string name;
  F read;
};
template <class F>
reader(std::string, F) -> reader<F>;

template <bs::options Opts>
bool run_framed(std::string_view format, std::string_view wanted) {
  const std::string path = std::string(BIN_SERIALIZER_SPEC_DIR "/vectors/") + std::string(format) +
                           "/" + std::string(wanted) + ".bin";
  const std::string name(wanted);
  const auto as = [&](auto type, std::string suffix) {
    using T = typename decltype(type)::type;
    return reader{name + suffix, [](const std::string& b) { return verdict<Opts, T>(b); }};
  };
  if (wanted == "message_person") {
    damage(format, read_file(path), reader{name, [](const std::string& b) {
                                             return verdict<Opts, workloads::Person, true>(b);
                                           }});
  } else if (wanted == "message_quote_id") {
    damage(format, read_file(path), reader{name, [](const std::string& b) {
                                             return verdict<Opts, vector_cases::Quote, true>(b);
                                           }});
  } else if (wanted == "evolvable_v1" || wanted == "evolvable_v2" || wanted == "evolvable_v3") {
    damage(format, read_file(path), as(std::type_identity<workloads::ProfileV1>{}, "@v1"),
           as(std::type_identity<workloads::ProfileV2>{}, "@v2"),
           as(std::type_identity<workloads::ProfileV3>{}, "@v3"));
  } else if (wanted == "nested_evolvable_v1" || wanted == "nested_evolvable_v2") {
    damage(format, read_file(path), as(std::type_identity<workloads::RoomV1>{}, "@v1"),
           as(std::type_identity<workloads::RoomV2>{}, "@v2"));
  } else {
    return false;
  }
  return true;
}

// A stream of framed messages walked frame by frame (read_message_header,
// skip_message_payload): "OFFSET:TYPE_ID:PAYLOAD_LENGTH " per frame, then
// "| ERRC@OFFSET" where the walk stopped (end_of_stream at a clean end).
template <class R>
outcome walk_frames(R& r) {
  std::string out;
  for (;;) {
    const std::size_t at = r.read_position();
    bs::message_header h;
    if (!bs::read_message_header(r, h) || !bs::skip_message_payload(r, h)) break;
    out += std::to_string(at) + ":" + std::to_string(h.type_id) + ":" +
           std::to_string(h.payload_length) + " ";
  }
  const bs::error e = r.last_error();
  return {out + "| " + std::string(bs::error_name(e.code)) + "@" + std::to_string(e.offset), e};
}

// FORMAT frames/F: message_person, message_quote_id and message_person of
// spec/vectors/framed/F back to back, intact ("i 0") and damaged at every
// byte, walked in memory and from a stream (which must agree; where it does
// not, both are printed).
bool run_frames(std::string_view format) {
  const std::string dir = std::string(BIN_SERIALIZER_SPEC_DIR "/vectors/framed/") +
                          std::string(format.substr(format.find('/') + 1)) + "/";
  const std::string person = read_file(dir + "message_person.bin");
  const std::string quote = read_file(dir + "message_quote_id.bin");
  if (person.empty() || quote.empty()) return false;
  const auto walk = [](std::string bytes) {
    bs::BufferView view(bytes.data(), bytes.size());
    const outcome in_memory = walk_frames(view);
    trickle_buf buf(bytes);
    std::istream is(&buf);
    bs::basic_istream_reader<64> stream(is);
    const outcome streamed = walk_frames(stream);
    // The same frames, and the same end but for what a stream cannot check.
    const auto frames = [](const std::string& t) { return t.substr(0, t.find('|')); };
    if (frames(streamed.text) == frames(in_memory.text) &&
        stream_agrees(in_memory, streamed, bytes.size()))
      return in_memory.text;
    return in_memory.text + " | stream: " + streamed.text;
  };
  damage(format, person + quote + person, reader{"stream", walk});
  return true;
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
    else if (format == "framed/portable")
      found = run_framed<checked<bs::portable>>(format, argv[i]);
    else if (format == "framed/compact")
      found = run_framed<checked<bs::compact>>(format, argv[i]);
    else if (format == "framed/native")
      found = run_framed<checked<bs::native>>(format, argv[i]);
    else if (format.starts_with("frames/"))
      found = run_frames(format);
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
