// A Person written to a file through the std::ostream adapter and read back
// through the std::istream adapter.
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/io/stream.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "workloads/person.hpp"

namespace bs = bin_serializer;

int main() {
  const std::string path = "/tmp/bs_person_" + std::to_string(::getpid()) + ".bin";
  const workloads::Person alice = workloads::make_person();

  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    bs::ostream_writer out(file);
    // flush() hands the buffered bytes to the stream and reports whether it
    // took them; the writer's destructor would flush too, silently.
    if (!bs::serialize(out, alice) || !out.flush()) {
      std::fprintf(stderr, "write failed: %s\n", std::string(out.last_error().message()).c_str());
      return 1;
    }
  }

  workloads::Person back;
  {
    std::ifstream file(path, std::ios::binary);
    bs::istream_reader in(file);
    if (!bs::deserialize(in, back)) {
      std::fprintf(stderr, "read failed: %s at byte %zu\n",
                   std::string(in.last_error().message()).c_str(), in.last_error().offset);
      return 1;
    }
    if (!in.at_end()) {
      std::fprintf(stderr, "trailing bytes after the Person\n");
      return 1;
    }
  }
  std::remove(path.c_str());

  if (back != alice) {
    std::fprintf(stderr, "the Person read back differs\n");
    return 1;
  }
  std::printf("%s (id %d, %zu scores) written and read back\n", back.name.c_str(), back.id,
              back.scores.size());
  return 0;
}
