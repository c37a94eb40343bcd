// Issue 28, item 1: a request with a std::string_view member. gRPC frees the
// received slice as soon as the request is decoded, so the handler would read
// freed memory; the method declaration must not compile. The control uses
// std::string.
//
// EXPECT-ERROR: a gRPC request or response \(named in this diagnostic\) holds a std::string_view
// EXPECT-ERROR: std::string instead of std::string_view
// EXPECT-ERROR: Req
#include <bin_serializer/io/grpc.hpp>

#include <cstdint>
#include <string>
#include <string_view>

struct Req {
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::string_view symbol;
#else
  std::string symbol;
#endif
  std::uint32_t depth;
};
struct Depth {
  std::uint32_t levels;
};

inline constexpr bin_serializer::grpc_method<Req, Depth> get_depth{"/book.Book/Depth"};

struct Service : bin_serializer::grpc_service {
  Service() {
    add(get_depth, [](grpc::ServerContext*, const Req& r, Depth& out) {
      out.levels = r.depth + static_cast<std::uint32_t>(r.symbol.size());
      return grpc::Status::OK;
    });
  }
};

int main() {
  Service s;
  return 0;
}
