// An array_view three levels down (a vector of optionals of array_views),
// decoded as a framed message from a file descriptor: refused with one
// message naming the message type (deserialize_message's gate). The control
// reads from a BufferView.
//
// EXPECT-ERROR: view_needs_contiguous_input<
// EXPECT-ERROR: array_view
// EXPECT-ERROR: from a stream
#include <bin_serializer/view/array_view.hpp>
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/fd.hpp>

#include <cstdint>
#include <optional>
#include <vector>

struct Series {
  std::vector<std::optional<bin_serializer::array_view<std::uint32_t>>> parts;
};

int main() {
#ifndef BIN_SERIALIZER_CF_CONTROL
  bin_serializer::fd_reader in(0);
#else
  bin_serializer::BufferView in;
#endif
  Series s;
  return bin_serializer::deserialize_message(in, s) ? 0 : 1;
}
