// Compile-cost probe: one translation unit with 30 message types, each
// serialized and deserialized with the native and the portable format (120
// instantiations of the encoder and decoder). scripts/compile_cost.sh builds it
// with g++ -O2 and reports the compile time and the object's text size; the
// numbers before and after a change of the core are in bench/README.md.
#include <bin_serializer/bin_serializer.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace probe {

struct M0 {
  std::uint64_t id0;
  float ratio1;
  double px2;
};
struct M1 {
  std::optional<std::int64_t> ts0;
  std::uint64_t id1;
  float ratio2;
  double px3;
};
struct M2 {
  bool live0;
  std::optional<std::int64_t> ts1;
  std::uint64_t id2;
  float ratio3;
  double px4;
};
struct M3 {
  std::string name0;
  bool live1;
  std::optional<std::int64_t> ts2;
  std::uint64_t id3;
  float ratio4;
  double px5;
};
struct M4 {
  std::uint8_t side0;
  std::string name1;
  bool live2;
  std::optional<std::int64_t> ts3;
  std::uint64_t id4;
  float ratio5;
  double px6;
  M3 inner;
};
struct M5 {
  std::int32_t qty0;
  std::uint8_t side1;
  std::string name2;
  bool live3;
  std::optional<std::int64_t> ts4;
  std::uint64_t id5;
  float ratio6;
  double px7;
};
struct M6 {
  std::vector<std::string> tags0;
  std::int32_t qty1;
  std::uint8_t side2;
};
struct M7 {
  std::array<float, 3> pos0;
  std::vector<std::string> tags1;
  std::int32_t qty2;
  std::uint8_t side3;
};
struct M8 {
  std::vector<std::uint32_t> ids0;
  std::array<float, 3> pos1;
  std::vector<std::string> tags2;
  std::int32_t qty3;
  std::uint8_t side4;
};
struct M9 {
  std::map<std::uint16_t, std::string> attrs0;
  std::vector<std::uint32_t> ids1;
  std::array<float, 3> pos2;
  std::vector<std::string> tags3;
  std::int32_t qty4;
  std::uint8_t side5;
  M8 inner;
};
struct M10 {
  double px0;
  std::map<std::uint16_t, std::string> attrs1;
  std::vector<std::uint32_t> ids2;
  std::array<float, 3> pos3;
  std::vector<std::string> tags4;
  std::int32_t qty5;
  std::uint8_t side6;
};
struct M11 {
  float ratio0;
  double px1;
  std::map<std::uint16_t, std::string> attrs2;
  std::vector<std::uint32_t> ids3;
  std::array<float, 3> pos4;
  std::vector<std::string> tags5;
  std::int32_t qty6;
  std::uint8_t side7;
};
struct M12 {
  std::uint64_t id0;
  float ratio1;
  double px2;
};
struct M13 {
  std::optional<std::int64_t> ts0;
  std::uint64_t id1;
  float ratio2;
  double px3;
};
struct M14 {
  bool live0;
  std::optional<std::int64_t> ts1;
  std::uint64_t id2;
  float ratio3;
  double px4;
  M13 inner;
};
struct M15 {
  std::string name0;
  bool live1;
  std::optional<std::int64_t> ts2;
  std::uint64_t id3;
  float ratio4;
  double px5;
};
struct M16 {
  std::uint8_t side0;
  std::string name1;
  bool live2;
  std::optional<std::int64_t> ts3;
  std::uint64_t id4;
  float ratio5;
  double px6;
};
struct M17 {
  std::int32_t qty0;
  std::uint8_t side1;
  std::string name2;
  bool live3;
  std::optional<std::int64_t> ts4;
  std::uint64_t id5;
  float ratio6;
  double px7;
};
struct M18 {
  std::vector<std::string> tags0;
  std::int32_t qty1;
  std::uint8_t side2;
};
struct M19 {
  std::array<float, 3> pos0;
  std::vector<std::string> tags1;
  std::int32_t qty2;
  std::uint8_t side3;
  M18 inner;
};
struct M20 {
  std::vector<std::uint32_t> ids0;
  std::array<float, 3> pos1;
  std::vector<std::string> tags2;
  std::int32_t qty3;
  std::uint8_t side4;
};
struct M21 {
  std::map<std::uint16_t, std::string> attrs0;
  std::vector<std::uint32_t> ids1;
  std::array<float, 3> pos2;
  std::vector<std::string> tags3;
  std::int32_t qty4;
  std::uint8_t side5;
};
struct M22 {
  double px0;
  std::map<std::uint16_t, std::string> attrs1;
  std::vector<std::uint32_t> ids2;
  std::array<float, 3> pos3;
  std::vector<std::string> tags4;
  std::int32_t qty5;
  std::uint8_t side6;
};
struct M23 {
  float ratio0;
  double px1;
  std::map<std::uint16_t, std::string> attrs2;
  std::vector<std::uint32_t> ids3;
  std::array<float, 3> pos4;
  std::vector<std::string> tags5;
  std::int32_t qty6;
  std::uint8_t side7;
};
struct M24 {
  std::uint64_t id0;
  float ratio1;
  double px2;
  M23 inner;
};
struct M25 {
  std::optional<std::int64_t> ts0;
  std::uint64_t id1;
  float ratio2;
  double px3;
};
struct M26 {
  bool live0;
  std::optional<std::int64_t> ts1;
  std::uint64_t id2;
  float ratio3;
  double px4;
};
struct M27 {
  std::string name0;
  bool live1;
  std::optional<std::int64_t> ts2;
  std::uint64_t id3;
  float ratio4;
  double px5;
};
struct M28 {
  std::uint8_t side0;
  std::string name1;
  bool live2;
  std::optional<std::int64_t> ts3;
  std::uint64_t id4;
  float ratio5;
  double px6;
};
struct M29 {
  std::int32_t qty0;
  std::uint8_t side1;
  std::string name2;
  bool live3;
  std::optional<std::int64_t> ts4;
  std::uint64_t id5;
  float ratio6;
  double px7;
  M28 inner;
};

template <bin_serializer::options Opts, class T>
bool round_trip(bin_serializer::Buffer& buf, const T& in, T& out) {
  buf.clear();
  return bin_serializer::serialize<Opts>(buf, in) && bin_serializer::deserialize<Opts>(buf, out);
}

} // namespace probe

// Every type in both formats, kept out of line so each instantiation is emitted.
bool probe_all(bin_serializer::Buffer& buf) {
  bool ok = true;
  {
    probe::M0 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M1 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M2 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M3 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M4 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M5 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M6 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M7 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M8 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M9 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M10 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M11 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M12 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M13 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M14 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M15 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M16 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M17 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M18 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M19 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M20 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M21 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M22 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M23 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M24 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M25 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M26 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M27 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M28 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  {
    probe::M29 a{}, b{};
    ok &= probe::round_trip<bin_serializer::native>(buf, a, b) &&
          probe::round_trip<bin_serializer::portable>(buf, a, b);
  }
  return ok;
}
