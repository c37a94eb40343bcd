// cereal's binary archive (Debian libcereal-dev).
//
// Non-member serialize() functions (in namespace cereal, since the workload
// structs are not ours to change) list each struct's fields; cereal's own
// support handles std::string, std::vector, std::array, std::bitset, enums
// and chrono types. Vectors of arithmetic types are written as one binary
// block, sizes as uint64.
//
// The archives write to / read from std::streams; the stream buffers here are
// minimal in-memory ones: the output buffer keeps its storage across messages
// (cleared, not freed), the input buffer points at the received bytes. An
// archive is constructed per message, which is how cereal is meant to be used.
#include <cereal/archives/binary.hpp>
#include <cereal/types/array.hpp>
#include <cereal/types/bitset.hpp>
#include <cereal/types/chrono.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <cstring>
#include <istream>
#include <ostream>
#include <streambuf>

#include "peers/harness.hpp"

namespace wl = workloads;

namespace cereal {

template <class A> void serialize(A& ar, wl::Person& v) { ar(v.name, v.id, v.email, v.scores); }

template <class A> void serialize(A& ar, wl::Booster& v) { ar(v.boost_type, v.horse_power); }
template <class A> void serialize(A& ar, wl::Engine& v) {
  ar(v.capacity, v.num_cylinders, v.max_rpm, v.manufacturer_code, v.booster);
}
template <class A> void serialize(A& ar, wl::FuelFigure& v) {
  ar(v.speed, v.mpg, v.usage_description);
}
template <class A> void serialize(A& ar, wl::Acceleration& v) { ar(v.mph, v.seconds); }
template <class A> void serialize(A& ar, wl::PerformanceFigure& v) {
  ar(v.octane_rating, v.acceleration);
}
template <class A> void serialize(A& ar, wl::Car& v) {
  ar(v.timestamp, v.serial_number, v.model_year, v.available, v.code, v.some_numbers,
     v.vehicle_code, v.extras, v.engine, v.fuel_figures, v.performance_figures, v.manufacturer,
     v.model, v.activation_code);
}

template <class A> void serialize(A& ar, wl::Vec3& v) { ar(v.x, v.y, v.z); }
template <class A> void serialize(A& ar, wl::Weapon& v) { ar(v.name, v.damage); }
template <class A> void serialize(A& ar, wl::Monster& v) {
  ar(v.pos, v.mana, v.hp, v.name, v.inventory, v.color, v.weapons, v.equipped, v.path);
}

template <class A> void serialize(A& ar, wl::SmallMessage& v) {
  ar(v.id, v.is_outgoing, v.priority, v.channel, v.flags, v.sequence, v.checksum, v.score,
     v.balance, v.time_posted, v.time_to_live, v.sender, v.text, v.recipients, v.readings, v.tags);
}
template <class A> void serialize(A& ar, wl::LargeMessage& v) {
  ar(v.header, v.samples, v.ids, v.weights, v.labels, v.timestamps);
}

template <class A> void serialize(A& ar, wl::Tick& v) {
  ar(v.timestamp_ns, v.symbol_id, v.quantity, v.price, v.side);
}

} // namespace cereal

namespace peers {
namespace {

// Appends to storage kept across messages.
class memory_out : public std::streambuf {
public:
  void clear() noexcept { size_ = 0; }
  bytes_view bytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(data_.data()), size_};
  }

protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const auto k = static_cast<std::size_t>(n);
    if (data_.size() - size_ < k) data_.resize(std::max(data_.size() * 2, size_ + k + 256));
    std::memcpy(data_.data() + size_, s, k);
    size_ += k;
    return n;
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    xsputn(&ch, 1);
    return c;
  }

private:
  std::vector<char> data_;
  std::size_t size_ = 0;
};

// Reads bytes owned by someone else.
class memory_in : public std::streambuf {
public:
  void reset(bytes_view b) noexcept {
    char* p = const_cast<char*>(reinterpret_cast<const char*>(b.data()));
    setg(p, p, p + b.size());
  }
};

template <class T>
struct cereal_adapter {
  memory_out out_buf;
  std::ostream out{&out_buf};
  memory_in in_buf;
  std::istream in{&in_buf};

  bytes_view encode(const T& v) {
    out_buf.clear();
    {
      cereal::BinaryOutputArchive ar(out);
      ar(const_cast<T&>(v)); // cereal's serialize() takes non-const; saving does not modify
    }
    return out_buf.bytes();
  }

  bool decode(bytes_view b, T& v) {
    try {
      in_buf.reset(b);
      in.clear();
      cereal::BinaryInputArchive ar(in);
      ar(v);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }
};

} // namespace

void register_cereal() {
  add_cell<W_Person, cereal_adapter<wl::Person>>("cereal");
  add_cell<W_CarSequential, cereal_adapter<wl::Car>>("cereal");
  add_cell<W_CarRandom, cereal_adapter<wl::Car>>("cereal");
  add_cell<W_Monster, cereal_adapter<std::vector<wl::Monster>>>("cereal");
  add_cell<W_Small, cereal_adapter<wl::SmallMessage>>("cereal");
  add_cell<W_Large, cereal_adapter<wl::LargeMessage>>("cereal");
  add_cell<W_Tick, cereal_adapter<wl::Tick>>("cereal");
}

} // namespace peers
