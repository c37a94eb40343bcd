// benchmark_peers: bin_serializer against a hand-written codec and the
// serialization libraries Debian ships, on the seed documents' workloads.
//
// Before anything is timed, every (workload, library) cell is checked: each
// pool value is encoded, decoded into a fresh and into a reused struct, and
// compared with the original (operator==); zero-copy traversals must
// reproduce the value's checksum. A failing cell is reported and not timed.
// The untimed numbers (wire size, zlib size, allocations per op) go to the
// file given with --meta_out=FILE as JSON; timings are Google Benchmark's
// (use --benchmark_out=FILE --benchmark_out_format=json).
//
// Benchmark names: peers/<workload>/<library>/<serialize|deserialize|traverse>.
#include <benchmark/benchmark.h>

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench_util.hpp"
#include "peers/harness.hpp"

#ifndef BENCH_PEERS_FOUND
#define BENCH_PEERS_FOUND ""
#endif
#ifndef BENCH_PEERS_MISSING
#define BENCH_PEERS_MISSING ""
#endif

namespace peers {

std::vector<cell_meta>& all_cells() {
  static std::vector<cell_meta> cells;
  return cells;
}

void add_unsupported(const char* workload, const char* library, std::string why) {
  cell_meta m;
  m.workload = workload;
  m.library = library;
  m.status = "unsupported";
  m.error = std::move(why);
  all_cells().push_back(std::move(m));
}

std::size_t zlib_size(bytes_view bytes) {
  uLongf out_len = compressBound(static_cast<uLong>(bytes.size()));
  std::vector<Bytef> out(out_len);
  if (compress2(out.data(), &out_len, reinterpret_cast<const Bytef*>(bytes.data()),
                static_cast<uLong>(bytes.size()), 6) != Z_OK)
    return 0;
  return static_cast<std::size_t>(out_len);
}

std::string benchmark_name(const char* workload, const char* library, const char* op) {
  return std::string("peers/") + workload + "/" + library + "/" + op;
}

} // namespace peers

namespace {

std::string json_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out;
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool write_meta(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::perror(path.c_str());
    return false;
  }
  std::fprintf(f, "{\n  \"peers_found\": \"%s\",\n  \"peers_missing\": \"%s\",\n",
               json_escape(BENCH_PEERS_FOUND).c_str(), json_escape(BENCH_PEERS_MISSING).c_str());
  std::fprintf(f, "  \"alloc_counter\": \"%s\",\n",
               bench::alloc_counter_sees_malloc() ? "operator new + malloc family"
                                                  : "operator new only");
  std::fprintf(f, "  \"cells\": [\n");
  const auto& cells = peers::all_cells();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    std::fprintf(f,
                 "    {\"workload\": \"%s\", \"library\": \"%s\", \"status\": \"%s\", \"error\": \"%s\", "
                 "\"pool_size\": %zu, \"wire_bytes\": %s, \"zlib_bytes\": %s, \"serialize_allocs\": %s, "
                 "\"deserialize_allocs\": %s, \"traverse_allocs\": %s, \"timed_serialize\": %s, "
                 "\"timed_deserialize\": %s, \"timed_traverse\": %s}%s\n",
                 json_escape(c.workload).c_str(), json_escape(c.library).c_str(), c.status.c_str(),
                 json_escape(c.error).c_str(), c.pool_size, num(c.wire_bytes).c_str(), num(c.zlib_bytes).c_str(),
                 num(c.serialize_allocs).c_str(), num(c.deserialize_allocs).c_str(),
                 num(c.traverse_allocs).c_str(), c.timed_serialize ? "true" : "false",
                 c.timed_deserialize ? "true" : "false", c.timed_traverse ? "true" : "false",
                 i + 1 < cells.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
  return true;
}

void print_checks() {
  std::fprintf(stderr, "%-20s %-24s %-6s %10s %10s %8s %8s %8s  %s\n", "workload", "library",
               "check", "wire B", "zlib B", "ser al", "deser al", "trav al", "note");
  for (const auto& c : peers::all_cells()) {
    if (c.status == "ok")
      std::fprintf(stderr, "%-20s %-24s %-6s %10.1f %10.1f %8.2f %8.2f %8s\n", c.workload.c_str(),
                   c.library.c_str(), "ok", c.wire_bytes, c.zlib_bytes, c.serialize_allocs,
                   c.deserialize_allocs,
                   c.traverse_allocs < 0 ? "-" : num(c.traverse_allocs).c_str());
    else
      std::fprintf(stderr, "%-20s %-24s %-6s %10s %10s %8s %8s %8s  %s\n", c.workload.c_str(),
                   c.library.c_str(), c.status == "error" ? "FAIL" : "n/a", "-", "-", "-", "-", "-",
                   c.error.c_str());
  }
}

} // namespace

int main(int argc, char** argv) {
  std::string meta_out;
  bool checks_only = false;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i > 0 && a.starts_with("--meta_out="))
      meta_out = std::string(a.substr(11));
    else if (i > 0 && a == "--checks_only")
      checks_only = true;
    else
      rest.push_back(argv[i]);
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  bench::add_build_context();
  benchmark::AddCustomContext("peers_found", BENCH_PEERS_FOUND);
  benchmark::AddCustomContext("peers_missing", BENCH_PEERS_MISSING);

  std::fprintf(stderr, "==> checking every cell (round trip, sizes, allocations)\n");
  peers::register_bin_serializer();
  peers::register_handwritten();
#ifdef BENCH_HAVE_MSGPACK
  peers::register_msgpack();
#endif
#ifdef BENCH_HAVE_CEREAL
  peers::register_cereal();
#endif
#ifdef BENCH_HAVE_FASTCDR
  peers::register_fastcdr();
#endif
#ifdef BENCH_HAVE_FLATBUFFERS
  peers::register_flatbuffers();
#endif
#ifdef BENCH_HAVE_FLEXBUFFERS
  peers::register_flexbuffers();
#endif
#ifdef BENCH_HAVE_PROTOBUF
  peers::register_protobuf();
#endif
#ifdef BENCH_HAVE_CAPNP
  peers::register_capnp();
#endif
#ifdef BENCH_HAVE_ZPP_BITS
  peers::register_zpp_bits();
#endif
#ifdef BENCH_HAVE_STRUCT_PACK
  peers::register_struct_pack();
#endif
  print_checks();
  if (std::strlen(BENCH_PEERS_MISSING) != 0)
    std::fprintf(stderr, "peers not built (rows dropped): %s\n", BENCH_PEERS_MISSING);
  if (!meta_out.empty() && !write_meta(meta_out)) return 1;
  if (checks_only) return 0;

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
