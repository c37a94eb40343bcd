// A main() for the fuzz targets when there is no libFuzzer (GCC builds): runs
// every input named on the command line through LLVMFuzzerTestOneInput, once.
// A directory argument means every regular file in it (sorted, not
// recursive). Arguments starting with '-' are libFuzzer flags and are ignored,
// so the same command line works for both kinds of binary.
//
// Exit status 0 when every input ran; a failed check aborts the process (as
// under libFuzzer), which ctest reports as a failure. Reading no input at all
// is an error too, so a misspelt corpus path cannot pass silently.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool run_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "replay: cannot open %s\n", path.c_str());
    return false;
  }
  const std::vector<char> content((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
  // Like libFuzzer: the input lives in its own heap block of exactly its size,
  // so AddressSanitizer sees any read past its end.
  std::vector<std::uint8_t> data(content.begin(), content.end());
  (void)LLVMFuzzerTestOneInput(data.empty() ? nullptr : data.data(), data.size());
  return true;
}

} // namespace

int main(int argc, char** argv) {
  std::size_t runs = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;
    const std::filesystem::path path(arg);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      std::vector<std::filesystem::path> files;
      for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end;
           it.increment(ec))
        if (it->is_regular_file(ec)) files.push_back(it->path());
      if (ec) {
        std::fprintf(stderr, "replay: cannot list %s: %s\n", path.c_str(), ec.message().c_str());
        ok = false;
        continue;
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        ok = run_file(f) && ok;
        ++runs;
      }
    } else if (std::filesystem::is_regular_file(path, ec)) {
      ok = run_file(path) && ok;
      ++runs;
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", path.c_str());
      ok = false;
    }
  }
  std::printf("replay: %zu inputs executed\n", runs);
  if (runs == 0) {
    std::fprintf(stderr, "replay: no inputs given\n");
    return 1;
  }
  return ok ? 0 : 1;
}
