// A view nested in a response (a std::span in an optional in a vector),
// through the older API (add_unary, grpc_unary_call): the same one message.
// The control uses std::vector.
//
// EXPECT-ERROR: holds a std::string_view, std::span, array_view or sequence_view
// EXPECT-ERROR: Page
#include <bin_serializer/io/grpc.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

struct Page {
  std::uint32_t number;
#ifndef BIN_SERIALIZER_CF_CONTROL
  std::vector<std::optional<std::span<const std::byte>>> blobs;
#else
  std::vector<std::optional<std::vector<std::byte>>> blobs;
#endif
};
struct PageNumber {
  std::uint32_t n;
};

struct Service : bin_serializer::grpc_service {
  Service() {
    add_unary<PageNumber, Page>("/pages.Pages/Get",
                                [](grpc::ServerContext*, const PageNumber& in, Page& out) {
                                  out.number = in.n;
                                  return grpc::Status::OK;
                                });
  }
};

int main() {
  Service s;
  return 0;
}
