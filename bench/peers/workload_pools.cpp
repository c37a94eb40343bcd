#include "peers/workload_pools.hpp"

#include <random>

namespace peers {

namespace {
constexpr std::size_t kVarying = 16;
} // namespace

const std::vector<workloads::Person>& W_Person::pool() {
  static const std::vector<value_type> p{workloads::make_person()};
  return p;
}

const std::vector<workloads::Car>& W_CarSequential::pool() {
  static const std::vector<value_type> p = [] {
    std::vector<value_type> v;
    for (std::size_t i = 0; i < kVarying; ++i) v.push_back(workloads::make_car_sequential(i));
    return v;
  }();
  return p;
}

const std::vector<workloads::Car>& W_CarRandom::pool() {
  static const std::vector<value_type> p = [] {
    std::mt19937_64 rng(20240611);
    std::vector<value_type> v;
    for (std::size_t i = 0; i < kVarying; ++i) v.push_back(workloads::make_car_random(rng));
    return v;
  }();
  return p;
}

const std::vector<std::vector<workloads::Monster>>& W_Monster::pool() {
  static const std::vector<value_type> p{workloads::make_monsters()};
  return p;
}

const std::vector<workloads::SmallMessage>& W_Small::pool() {
  static const std::vector<value_type> p{workloads::make_small_message()};
  return p;
}

const std::vector<workloads::LargeMessage>& W_Large::pool() {
  static const std::vector<value_type> p{workloads::make_large_message()};
  return p;
}

const std::vector<workloads::Tick>& W_Tick::pool() {
  static const std::vector<value_type> p = [] {
    std::vector<value_type> v;
    for (std::size_t i = 0; i < kVarying; ++i) v.push_back(workloads::make_tick(i));
    return v;
  }();
  return p;
}

const std::vector<workloads::Vec>& W_Vec::pool() {
  static const std::vector<value_type> p{workloads::Vec{1.5f, -2.25f, 3.125f}};
  return p;
}

const std::vector<workloads::LargeStruct>& W_LargeStruct::pool() {
  static const std::vector<value_type> p{workloads::make_large_struct()};
  return p;
}

const std::vector<std::array<workloads::Tick, 256>>& W_TickBatch::pool() {
  static const std::vector<value_type> p = [] {
    value_type batch{};
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = workloads::make_tick(i);
    return std::vector<value_type>{batch};
  }();
  return p;
}

const std::vector<std::string>& W_String0::pool() {
  static const std::vector<value_type> p{std::string()};
  return p;
}

const std::vector<std::string>& W_String8::pool() {
  static const std::vector<value_type> p{std::string("abcdefgh")};
  return p;
}

const std::vector<std::string>& W_String128::pool() {
  static const std::vector<value_type> p{std::string(128, 'x')};
  return p;
}

} // namespace peers
