// benchmark_grpc: the same echo service over gRPC on loopback, once with
// protobuf messages (bench/schemas/grpc_bench.proto, protoc + grpc_cpp_plugin)
// and once with bin_serializer structs (bin_serializer/io/grpc.hpp, no schema
// file), on the same payloads: Person, Car, a batch of 256 Ticks.
//
// One call: the client encodes the request, the server decodes it, copies it
// into the response and encodes that, the client decodes the response. So
// each call runs the codec four times on top of gRPC's own work.
//
// Measured per (payload, library), synchronous unary calls from one client
// thread to a server in the same process (127.0.0.1, ephemeral port):
//   calls/s      calls divided by the wall time they took
//   p50 / p99    latency of one call (steady_clock around the call)
//   wire bytes   size of the request message as gRPC sends it
//   codec ns     the four codec steps of one call without gRPC (same process,
//                same messages), to show how much of a call is serialization
// The two libraries are run in alternating rounds so both see the same noise.
//
// Options: --calls=N (per round, default 2000) --rounds=N (default 5)
//          --out=FILE (JSON)
#include <bin_serializer/io/grpc.hpp>
#include <workloads/workloads.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "grpc_bench.grpc.pb.h"

namespace {

namespace wl = workloads;
namespace pb = bench::pb;
using steady = std::chrono::steady_clock;

// ---------------------------------------------------------------------------
// Payloads, as structs and as protobuf messages (filled once, not timed: the
// protobuf side uses the generated classes as its data, its best case).
// ---------------------------------------------------------------------------
using TickBatch = std::vector<wl::Tick>;

TickBatch make_batch() {
  TickBatch b;
  for (std::uint64_t i = 0; i < 256; ++i) b.push_back(wl::make_tick(i));
  return b;
}

pb::Person to_pb(const wl::Person& p) {
  pb::Person m;
  m.set_name(p.name);
  m.set_id(p.id);
  m.set_email(p.email);
  for (float s : p.scores) m.add_scores(s);
  return m;
}

pb::Car to_pb(const wl::Car& c) {
  pb::Car m;
  m.set_timestamp(c.timestamp);
  m.set_serial_number(c.serial_number);
  m.set_model_year(c.model_year);
  m.set_available(c.available);
  m.set_code(static_cast<std::uint8_t>(c.code));
  for (auto n : c.some_numbers) m.add_some_numbers(n);
  m.set_vehicle_code(c.vehicle_code.data(), c.vehicle_code.size());
  m.set_extras(static_cast<std::uint32_t>(c.extras.to_ulong()));
  auto* e = m.mutable_engine();
  e->set_capacity(c.engine.capacity);
  e->set_num_cylinders(c.engine.num_cylinders);
  e->set_max_rpm(c.engine.max_rpm);
  e->set_manufacturer_code(c.engine.manufacturer_code.data(), c.engine.manufacturer_code.size());
  e->mutable_booster()->set_boost_type(static_cast<std::uint8_t>(c.engine.booster.boost_type));
  e->mutable_booster()->set_horse_power(c.engine.booster.horse_power);
  for (const auto& f : c.fuel_figures) {
    auto* x = m.add_fuel_figures();
    x->set_speed(f.speed);
    x->set_mpg(f.mpg);
    x->set_usage_description(f.usage_description);
  }
  for (const auto& pf : c.performance_figures) {
    auto* x = m.add_performance_figures();
    x->set_octane_rating(pf.octane_rating);
    for (const auto& a : pf.acceleration) {
      auto* y = x->add_acceleration();
      y->set_mph(a.mph);
      y->set_seconds(a.seconds);
    }
  }
  m.set_manufacturer(c.manufacturer);
  m.set_model(c.model);
  m.set_activation_code(c.activation_code);
  return m;
}

pb::TickBatch to_pb(const TickBatch& b) {
  pb::TickBatch m;
  for (const auto& t : b) {
    auto* x = m.add_ticks();
    x->set_timestamp_ns(t.timestamp_ns);
    x->set_symbol_id(t.symbol_id);
    x->set_quantity(t.quantity);
    x->set_price(t.price);
    x->set_side(t.side);
  }
  return m;
}

// ---------------------------------------------------------------------------
// Servers
// ---------------------------------------------------------------------------
class PbEcho final : public pb::Echo::Service {
  grpc::Status EchoPerson(grpc::ServerContext*, const pb::Person* in, pb::Person* out) override {
    *out = *in;
    return grpc::Status::OK;
  }
  grpc::Status EchoCar(grpc::ServerContext*, const pb::Car* in, pb::Car* out) override {
    *out = *in;
    return grpc::Status::OK;
  }
  grpc::Status EchoTicks(grpc::ServerContext*, const pb::TickBatch* in,
                         pb::TickBatch* out) override {
    *out = *in;
    return grpc::Status::OK;
  }
};

constexpr const char* bin_person = "/bench.bin.Echo/EchoPerson";
constexpr const char* bin_car = "/bench.bin.Echo/EchoCar";
constexpr const char* bin_ticks = "/bench.bin.Echo/EchoTicks";

class BinEcho final : public bin_serializer::grpc_service {
public:
  BinEcho() {
    add<wl::Person>(bin_person);
    add<wl::Car>(bin_car);
    add<TickBatch>(bin_ticks);
  }

private:
  template <class T>
  void add(const char* path) {
    add_unary<T, T>(path, [](grpc::ServerContext*, const T& in, T& out) {
      out = in;
      return grpc::Status::OK;
    });
  }
};

// ---------------------------------------------------------------------------
// Measurement
// ---------------------------------------------------------------------------
struct result {
  std::string payload, library;
  std::vector<double> latencies_us;
  double seconds = 0;
  std::size_t calls = 0;
  std::size_t wire_bytes = 0;
  double codec_ns = 0;
  std::string error;
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  return v[i];
}

// Runs `calls` calls of `call` (returns false on a failed call) into r.
void run_round(result& r, std::size_t calls, const std::function<bool()>& call) {
  const auto t0 = steady::now();
  for (std::size_t i = 0; i < calls && r.error.empty(); ++i) {
    const auto a = steady::now();
    if (!call()) {
      r.error = "call failed";
      break;
    }
    const auto b = steady::now();
    r.latencies_us.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  r.seconds += std::chrono::duration<double>(steady::now() - t0).count();
  r.calls += calls;
}

// ns per iteration of f, over at least ~0.1 s.
double time_ns(const std::function<void()>& f) {
  std::size_t n = 16;
  for (;;) {
    const auto t0 = steady::now();
    for (std::size_t i = 0; i < n; ++i) f();
    const double s = std::chrono::duration<double>(steady::now() - t0).count();
    if (s > 0.1) return s * 1e9 / static_cast<double>(n);
    n *= 2;
  }
}

// The four codec steps of one call, through the same traits gRPC uses.
template <class T>
double codec_ns(const T& value) {
  T a, b;
  return time_ns([&] {
    for (int step = 0; step < 2; ++step) {
      grpc::ByteBuffer bb;
      bool own = false;
      (void)grpc::SerializationTraits<T>::Serialize(step == 0 ? value : a, &bb, &own);
      (void)grpc::SerializationTraits<T>::Deserialize(&bb, step == 0 ? &a : &b);
    }
  });
}

template <class T>
std::size_t wire_size(const T& value) {
  grpc::ByteBuffer bb;
  bool own = false;
  (void)grpc::SerializationTraits<T>::Serialize(value, &bb, &own);
  return bb.Length();
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

} // namespace

int main(int argc, char** argv) {
  std::size_t calls = 2000, rounds = 5;
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--calls=", 0) == 0)
      calls = std::strtoull(a.c_str() + 8, nullptr, 10);
    else if (a.rfind("--rounds=", 0) == 0)
      rounds = std::strtoull(a.c_str() + 9, nullptr, 10);
    else if (a.rfind("--out=", 0) == 0)
      out_path = a.substr(6);
    else {
      std::fprintf(stderr, "usage: %s [--calls=N] [--rounds=N] [--out=FILE]\n", argv[0]);
      return 2;
    }
  }

  PbEcho pb_service;
  BinEcho bin_service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&pb_service);
  builder.RegisterService(&bin_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "benchmark_grpc: could not start the server\n");
    return 1;
  }
  auto channel =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  auto stub = pb::Echo::NewStub(channel);
  grpc::internal::RpcMethod m_person(bin_person, grpc::internal::RpcMethod::NORMAL_RPC, channel);
  grpc::internal::RpcMethod m_car(bin_car, grpc::internal::RpcMethod::NORMAL_RPC, channel);
  grpc::internal::RpcMethod m_ticks(bin_ticks, grpc::internal::RpcMethod::NORMAL_RPC, channel);

  const wl::Person person = wl::make_person();
  const wl::Car car = wl::make_car_sequential(0);
  const TickBatch batch = make_batch();
  const pb::Person pb_person = to_pb(person);
  const pb::Car pb_car = to_pb(car);
  const pb::TickBatch pb_batch = to_pb(batch);

  // One call of each kind; false if it failed or did not echo the value.
  wl::Person person_out;
  wl::Car car_out;
  TickBatch batch_out;
  pb::Person pb_person_out;
  pb::Car pb_car_out;
  pb::TickBatch pb_batch_out;
  auto bin_call = [&](const grpc::internal::RpcMethod& m, const auto& in, auto& out) {
    grpc::ClientContext ctx;
    return bin_serializer::grpc_unary_call(*channel, m, ctx, in, out).ok();
  };
  struct job {
    const char* payload;
    std::function<bool()> pb, bin, pb_check, bin_check;
    std::size_t pb_wire, bin_wire;
    double pb_codec, bin_codec;
  };
  std::vector<job> jobs;
  jobs.push_back(
      {"Person",
       [&] {
         grpc::ClientContext ctx;
         return stub->EchoPerson(&ctx, pb_person, &pb_person_out).ok();
       },
       [&] { return bin_call(m_person, person, person_out); },
       [&] { return pb_person_out.SerializeAsString() == pb_person.SerializeAsString(); },
       [&] { return person_out == person; }, wire_size(pb_person), wire_size(person),
       codec_ns(pb_person), codec_ns(person)});
  jobs.push_back({"Car",
                  [&] {
                    grpc::ClientContext ctx;
                    return stub->EchoCar(&ctx, pb_car, &pb_car_out).ok();
                  },
                  [&] { return bin_call(m_car, car, car_out); },
                  [&] { return pb_car_out.SerializeAsString() == pb_car.SerializeAsString(); },
                  [&] { return car_out == car; }, wire_size(pb_car), wire_size(car),
                  codec_ns(pb_car), codec_ns(car)});
  jobs.push_back({"Tick_batch_256",
                  [&] {
                    grpc::ClientContext ctx;
                    return stub->EchoTicks(&ctx, pb_batch, &pb_batch_out).ok();
                  },
                  [&] { return bin_call(m_ticks, batch, batch_out); },
                  [&] { return pb_batch_out.SerializeAsString() == pb_batch.SerializeAsString(); },
                  [&] { return batch_out == batch; }, wire_size(pb_batch), wire_size(batch),
                  codec_ns(pb_batch), codec_ns(batch)});

  std::vector<result> results;
  for (job& j : jobs) {
    result pb_r{j.payload, "protobuf", {}, 0, 0, j.pb_wire, j.pb_codec, {}};
    result bin_r{j.payload, "bin_serializer", {}, 0, 0, j.bin_wire, j.bin_codec, {}};
    // Warm-up and correctness: one echoed value each.
    if (!j.pb() || !j.pb_check()) pb_r.error = "echo check failed";
    if (!j.bin() || !j.bin_check()) bin_r.error = "echo check failed";
    for (std::size_t w = 0; w < calls / 10; ++w) (void)(j.pb() && j.bin());
    for (std::size_t r = 0; r < rounds; ++r) {
      // Alternate which library goes first.
      if (r % 2 == 0) {
        if (pb_r.error.empty()) run_round(pb_r, calls, j.pb);
        if (bin_r.error.empty()) run_round(bin_r, calls, j.bin);
      } else {
        if (bin_r.error.empty()) run_round(bin_r, calls, j.bin);
        if (pb_r.error.empty()) run_round(pb_r, calls, j.pb);
      }
    }
    for (result* r : {&pb_r, &bin_r}) {
      const double cps = r->seconds > 0 ? static_cast<double>(r->calls) / r->seconds : 0;
      std::printf("%-15s %-15s %10.0f calls/s  p50 %7.1f us  p99 %7.1f us  wire %6zu B  codec "
                  "%8.0f ns%s%s\n",
                  r->payload.c_str(), r->library.c_str(), cps, percentile(r->latencies_us, 0.5),
                  percentile(r->latencies_us, 0.99), r->wire_bytes, r->codec_ns,
                  r->error.empty() ? "" : "  ERROR: ", r->error.c_str());
    }
    results.push_back(std::move(pb_r));
    results.push_back(std::move(bin_r));
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));

  if (!out_path.empty()) {
    std::ofstream f(out_path);
    f << "{\n  \"calls_per_round\": " << calls << ",\n  \"rounds\": " << rounds
      << ",\n  \"rows\": [\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      const result& r = results[i];
      const double cps = r.seconds > 0 ? static_cast<double>(r.calls) / r.seconds : 0;
      f << "    {\"payload\": \"" << r.payload << "\", \"library\": \"" << r.library
        << "\", \"calls_per_s\": " << cps << ", \"p50_us\": " << percentile(r.latencies_us, 0.5)
        << ", \"p99_us\": " << percentile(r.latencies_us, 0.99)
        << ", \"wire_bytes\": " << r.wire_bytes << ", \"codec_ns\": " << r.codec_ns
        << ", \"error\": \"" << json_escape(r.error) << "\"}"
        << (i + 1 < results.size() ? ",\n" : "\n");
    }
    f << "  ]\n}\n";
  }
  for (const result& r : results)
    if (!r.error.empty()) return 1;
  return 0;
}
