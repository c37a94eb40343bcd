// The hand-written baseline: what a careful programmer writes without a
// library. Trivially copyable values (Tick) are one memcpy each way. Everything
// else is written field by field into a growable byte buffer (u64 length
// prefix + raw bytes for strings and vectors of scalars, trivially copyable
// sub-structs copied whole) and read back with a reader that checks every
// length against the bytes left. Vectors are resized, so a reused value keeps
// its elements' storage. Same host-order, no-schema wire idea as
// bin_serializer's native format, but not byte-identical to it.
#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "peers/harness.hpp"

namespace peers {
namespace {

class writer {
public:
  void clear() noexcept { size_ = 0; }
  bytes_view bytes() const noexcept { return {data_.data(), size_}; }

  void put(const void* src, std::size_t n) {
    if (data_.size() - size_ < n) grow(n);
    if (n != 0) std::memcpy(data_.data() + size_, src, n);
    size_ += n;
  }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void put(const T& v) {
    put(&v, sizeof v);
  }
  void put_len(std::size_t n) { put(static_cast<std::uint64_t>(n)); }
  void put_str(const std::string& s) {
    put_len(s.size());
    put(s.data(), s.size());
  }
  template <class T>
  void put_vec(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put_len(v.size());
    put(v.data(), v.size() * sizeof(T));
  }

private:
  void grow(std::size_t n) { data_.resize(std::max(data_.size() * 2, size_ + n + 256)); }
  std::vector<std::byte> data_;
  std::size_t size_ = 0;
};

class reader {
public:
  explicit reader(bytes_view b) noexcept : p_(b.data()), end_(b.data() + b.size()) {}

  bool get(void* dst, std::size_t n) noexcept {
    if (static_cast<std::size_t>(end_ - p_) < n) return false;
    if (n != 0) std::memcpy(dst, p_, n);
    p_ += n;
    return true;
  }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  bool get(T& v) noexcept {
    return get(&v, sizeof v);
  }
  bool get(bool& v) noexcept {
    std::uint8_t b;
    if (!get(&b, 1)) return false;
    v = b != 0;
    return true;
  }
  bool get_len(std::size_t& n, std::size_t min_item_bytes) noexcept {
    std::uint64_t v;
    if (!get(v)) return false;
    if (v > static_cast<std::size_t>(end_ - p_) / (min_item_bytes == 0 ? 1 : min_item_bytes))
      return false;
    n = static_cast<std::size_t>(v);
    return true;
  }
  bool get_str(std::string& s) {
    std::size_t n;
    if (!get_len(n, 1)) return false;
    s.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  template <class T>
  bool get_vec(std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::size_t n;
    if (!get_len(n, sizeof(T))) return false;
    v.resize(n);
    if (n != 0) std::memcpy(v.data(), p_, n * sizeof(T));
    p_ += n * sizeof(T);
    return true;
  }

private:
  const std::byte* p_;
  const std::byte* end_;
};

// ---- Person ----
void put(writer& w, const workloads::Person& p) {
  w.put_str(p.name);
  w.put(p.id);
  w.put_str(p.email);
  w.put_vec(p.scores);
}
bool get(reader& r, workloads::Person& p) {
  return r.get_str(p.name) && r.get(p.id) && r.get_str(p.email) && r.get_vec(p.scores);
}

// ---- Car ----
void put(writer& w, const workloads::Car& c) {
  w.put(c.timestamp);
  w.put(c.serial_number);
  w.put(c.model_year);
  w.put(static_cast<std::uint8_t>(c.available));
  w.put(c.code);
  w.put(c.some_numbers);
  w.put(c.vehicle_code);
  w.put(static_cast<std::uint8_t>(c.extras.to_ulong()));
  w.put(c.engine); // trivially copyable: one copy
  w.put_len(c.fuel_figures.size());
  for (const auto& f : c.fuel_figures) {
    w.put(f.speed);
    w.put(f.mpg);
    w.put_str(f.usage_description);
  }
  w.put_len(c.performance_figures.size());
  for (const auto& pf : c.performance_figures) {
    w.put(pf.octane_rating);
    w.put_vec(pf.acceleration);
  }
  w.put_str(c.manufacturer);
  w.put_str(c.model);
  w.put_str(c.activation_code);
}
bool get(reader& r, workloads::Car& c) {
  std::uint8_t extras = 0;
  if (!(r.get(c.timestamp) && r.get(c.serial_number) && r.get(c.model_year) && r.get(c.available) &&
        r.get(c.code) && r.get(c.some_numbers) && r.get(c.vehicle_code) && r.get(extras) &&
        r.get(c.engine)))
    return false;
  c.extras = std::bitset<8>(extras);
  std::size_t n;
  if (!r.get_len(n, 2 + 4 + 8)) return false;
  c.fuel_figures.resize(n);
  for (auto& f : c.fuel_figures)
    if (!(r.get(f.speed) && r.get(f.mpg) && r.get_str(f.usage_description))) return false;
  if (!r.get_len(n, 1 + 8)) return false;
  c.performance_figures.resize(n);
  for (auto& pf : c.performance_figures)
    if (!(r.get(pf.octane_rating) && r.get_vec(pf.acceleration))) return false;
  return r.get_str(c.manufacturer) && r.get_str(c.model) && r.get_str(c.activation_code);
}

// ---- Monster ----
void put(writer& w, const workloads::Weapon& x) {
  w.put_str(x.name);
  w.put(x.damage);
}
bool get(reader& r, workloads::Weapon& x) { return r.get_str(x.name) && r.get(x.damage); }

void put(writer& w, const std::vector<workloads::Monster>& ms) {
  w.put_len(ms.size());
  for (const auto& m : ms) {
    w.put(m.pos);
    w.put(m.mana);
    w.put(m.hp);
    w.put_str(m.name);
    w.put_vec(m.inventory);
    w.put(m.color);
    w.put_len(m.weapons.size());
    for (const auto& x : m.weapons) put(w, x);
    put(w, m.equipped);
    w.put_vec(m.path);
  }
}
bool get(reader& r, std::vector<workloads::Monster>& ms) {
  std::size_t n;
  if (!r.get_len(n, 50)) return false; // fewest bytes a monster can take
  ms.resize(n);
  for (auto& m : ms) {
    if (!(r.get(m.pos) && r.get(m.mana) && r.get(m.hp) && r.get_str(m.name) &&
          r.get_vec(m.inventory) && r.get(m.color)))
      return false;
    std::size_t k;
    if (!r.get_len(k, 10)) return false;
    m.weapons.resize(k);
    for (auto& x : m.weapons)
      if (!get(r, x)) return false;
    if (!get(r, m.equipped) || !r.get_vec(m.path)) return false;
  }
  return true;
}

// ---- StructPacker small / large ----
void put(writer& w, const workloads::SmallMessage& m) {
  w.put(m.id);
  w.put(static_cast<std::uint8_t>(m.is_outgoing));
  w.put(m.priority);
  w.put(m.channel);
  w.put(m.flags);
  w.put(m.sequence);
  w.put(m.checksum);
  w.put(m.score);
  w.put(m.balance);
  w.put(m.time_posted);
  w.put(m.time_to_live);
  w.put_str(m.sender);
  w.put_str(m.text);
  w.put_vec(m.recipients);
  w.put_vec(m.readings);
  w.put_len(m.tags.size());
  for (const auto& t : m.tags) w.put_str(t);
}
bool get(reader& r, workloads::SmallMessage& m) {
  if (!(r.get(m.id) && r.get(m.is_outgoing) && r.get(m.priority) && r.get(m.channel) &&
        r.get(m.flags) && r.get(m.sequence) && r.get(m.checksum) && r.get(m.score) &&
        r.get(m.balance) && r.get(m.time_posted) && r.get(m.time_to_live) && r.get_str(m.sender) &&
        r.get_str(m.text) && r.get_vec(m.recipients) && r.get_vec(m.readings)))
    return false;
  std::size_t n;
  if (!r.get_len(n, 8)) return false;
  m.tags.resize(n);
  for (auto& t : m.tags)
    if (!r.get_str(t)) return false;
  return true;
}

void put(writer& w, const workloads::LargeMessage& m) {
  put(w, m.header);
  w.put_vec(m.samples);
  w.put_vec(m.ids);
  w.put_vec(m.weights);
  w.put_len(m.labels.size());
  for (const auto& l : m.labels) w.put_str(l);
  w.put_vec(m.timestamps);
}
bool get(reader& r, workloads::LargeMessage& m) {
  if (!(get(r, m.header) && r.get_vec(m.samples) && r.get_vec(m.ids) && r.get_vec(m.weights)))
    return false;
  std::size_t n;
  if (!r.get_len(n, 8)) return false;
  m.labels.resize(n);
  for (auto& l : m.labels)
    if (!r.get_str(l)) return false;
  return r.get_vec(m.timestamps);
}

// ---- Tick: trivially copyable, one memcpy ----
void put(writer& w, const workloads::Tick& t) { w.put(t); }
bool get(reader& r, workloads::Tick& t) { return r.get(t); }

// ---- Vec, LargeStruct, a batch of 256 ticks: trivially copyable, one memcpy ----
void put(writer& w, const workloads::Vec& v) { w.put(v); }
bool get(reader& r, workloads::Vec& v) { return r.get(v); }
void put(writer& w, const workloads::LargeStruct& s) { w.put(s); }
bool get(reader& r, workloads::LargeStruct& s) { return r.get(s); }
void put(writer& w, const W_TickBatch::value_type& b) { w.put(b); }
bool get(reader& r, W_TickBatch::value_type& b) { return r.get(b); }

template <class T>
struct handwritten {
  writer w;
  bytes_view encode(const T& v) {
    w.clear();
    put(w, v);
    return w.bytes();
  }
  bool decode(bytes_view in, T& out) {
    reader r(in);
    return get(r, out);
  }
};

} // namespace

void register_handwritten() {
  add_cell<W_Person, handwritten<workloads::Person>>("handwritten");
  add_cell<W_CarSequential, handwritten<workloads::Car>>("handwritten");
  add_cell<W_CarRandom, handwritten<workloads::Car>>("handwritten");
  add_cell<W_Monster, handwritten<std::vector<workloads::Monster>>>("handwritten");
  add_cell<W_Small, handwritten<workloads::SmallMessage>>("handwritten");
  add_cell<W_Large, handwritten<workloads::LargeMessage>>("handwritten");
  add_cell<W_Tick, handwritten<workloads::Tick>>("handwritten");
  add_cell<W_Vec, handwritten<workloads::Vec>>("handwritten");
  add_cell<W_LargeStruct, handwritten<workloads::LargeStruct>>("handwritten");
  add_cell<W_TickBatch, handwritten<W_TickBatch::value_type>>("handwritten");
}

} // namespace peers
