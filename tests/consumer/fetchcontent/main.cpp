// Consumer smoke test: round-trips an int through the public API.
// The same file is used by the find_package, add_subdirectory and
// fetchcontent consumer projects.
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/version.hpp>
// An include path of release 0.1 (include/compat/, a second include directory
// of the target, of the installed package and of the .pc file) still works.
#include <bin_serializer/buffer.hpp>

#include <cstdio>

#if defined(CONSUMER_EXPECTED_VERSION_MAJOR)
static_assert(BIN_SERIALIZER_VERSION_MAJOR == CONSUMER_EXPECTED_VERSION_MAJOR &&
                  BIN_SERIALIZER_VERSION_MINOR == CONSUMER_EXPECTED_VERSION_MINOR &&
                  BIN_SERIALIZER_VERSION_PATCH == CONSUMER_EXPECTED_VERSION_PATCH,
              "installed header version differs from the CMake package version");
#endif

int main() {
  bin_serializer::Buffer b;
  int x = 42, y = 0;
  bool ok = bin_serializer::serialize(b, x) && bin_serializer::deserialize(b, y) && y == 42;
  std::printf("consumer (%s): round trip %s, y = %d\n", CONSUMER_KIND, ok ? "OK" : "FAILED", y);
  return ok ? 0 : 1;
}
