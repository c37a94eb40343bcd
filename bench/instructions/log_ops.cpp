// Instructions per record of a record log, for callgrind: the market mix of
// issue 31 (workloads/market.hpp, compact) written with log_writer into a
// Buffer and read back with log_reader::visit, against its floor, the same
// payloads back to back with no framing (serialize, and deserialize with the
// types known). scripts/instructions.sh drives it.
//
//   log_ops bare|log ser|dec N      N records; one pass inside run_encode or
//                                   run_decode, the function callgrind counts
//
// The output's capacity is reached before the counted pass, and the bytes to
// read are made outside it, so a count divided by N is one record's cost
// (plus a block header and two CRCs every ~4 KiB for the log).
#include <bin_serializer/bin_serializer.hpp>
#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <workloads/market.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace {

namespace bs = bin_serializer;
using workloads::Quote;
using workloads::Status;
using workloads::Trade;
using schema = bs::log_schema<bs::compact, Trade, Quote, Status>;
using records = std::vector<workloads::market_record>;

bool write_bare(bs::Buffer& out, const records& rs) {
  bool ok = true;
  for (const auto& r : rs)
    ok &= std::visit([&out](const auto& v) { return bs::serialize<bs::compact>(out, v); }, r);
  return ok;
}

bool write_log(bs::Buffer& out, const records& rs) {
  bs::log_writer<schema, bs::Buffer> w(out, {.descriptions = false});
  bool ok = true;
  for (const auto& r : rs) ok &= std::visit([&w](const auto& v) { return w.write(v); }, r);
  return w.close() && ok;
}

[[gnu::noinline]] bool run_encode(bool log, bs::Buffer& out, const records& rs) {
  out.clear();
  return log ? write_log(out, rs) : write_bare(out, rs);
}

// The floor: the record's type is known (the mix repeats every 20). The
// values are the caller's, as a log_reader's are its own: every field is
// stored, none can be left undecoded as unused.
[[gnu::noinline]] std::uint64_t run_decode_bare(std::span<const std::byte> in, std::size_t n,
                                                Trade& t, Quote& q, Status& s) {
  bs::BufferView view(in);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = i % 20;
    bool ok = false;
    if (k < 7)
      ok = bs::deserialize<bs::compact>(view, t) && (sum += t.qty, true);
    else if (k < 19)
      ok = bs::deserialize<bs::compact>(view, q) && (sum += q.bsz, true);
    else
      ok = bs::deserialize<bs::compact>(view, s) && (sum += s.text.size(), true);
    if (!ok) return 0;
  }
  return sum;
}

struct visitor {
  std::uint64_t sum = 0;
  void operator()(const Trade& t) { sum += t.qty; }
  void operator()(const Quote& q) { sum += q.bsz; }
  void operator()(const Status& s) { sum += s.text.size(); }
};

[[gnu::noinline]] std::uint64_t run_decode_log(std::span<const std::byte> in, std::size_t n) {
  bs::log_reader<schema> r(in);
  visitor v;
  while (r.visit(v)) {
  }
  return r.end() == bs::log_end::clean && r.records() == n ? v.sum : 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s bare|log ser|dec N\n", argv[0]);
    return 2;
  }
  const std::string what = argv[1], op = argv[2];
  const auto n = static_cast<std::size_t>(std::atoll(argv[3]));
  const bool log = what == "log";
  records rs;
  rs.reserve(n);
  for (std::size_t i = 0; i < n; ++i) rs.push_back(workloads::market(i));
  bs::Buffer out;
  if (!(log ? write_log(out, rs) : write_bare(out, rs))) return 1; // also reaches the capacity
  if (op == "ser") return run_encode(log, out, rs) ? 0 : 1;
  Trade t;
  Quote q;
  Status s;
  const std::uint64_t sum =
      log ? run_decode_log(out.bytes(), n) : run_decode_bare(out.bytes(), n, t, q, s);
  std::printf("%llu\n", static_cast<unsigned long long>(sum));
  return sum != 0 ? 0 : 1;
}
