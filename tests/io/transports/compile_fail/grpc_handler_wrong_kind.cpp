// A unary-shaped handler registered for a server-streaming method: one
// message listing the handler each kind takes.
//
// EXPECT-ERROR: this handler does not fit the method's kind
// EXPECT-ERROR: server_streaming +fn\(grpc::ServerContext\*, const Request&, grpc::ServerWriter<Response>&\)
#include <bin_serializer/io/grpc.hpp>

#include <cstdint>

struct Symbol {
  std::uint32_t id;
};
struct Tick {
  std::uint32_t id;
  double price;
};

inline constexpr bin_serializer::grpc_method<Symbol, Tick,
                                             bin_serializer::grpc_kind::server_streaming>
    watch{"/quotes.Quotes/Watch"};

struct Service : bin_serializer::grpc_service {
  Service() {
#ifndef BIN_SERIALIZER_CF_CONTROL
    add(watch, [](grpc::ServerContext*, const Symbol& s, Tick& out) {
      out = {s.id, 1.0};
      return grpc::Status::OK;
    });
#else
    add(watch, [](grpc::ServerContext*, const Symbol& s, grpc::ServerWriter<Tick>& w) {
      w.Write({s.id, 1.0});
      return grpc::Status::OK;
    });
#endif
  }
};

int main() {
  Service s;
  return 0;
}
