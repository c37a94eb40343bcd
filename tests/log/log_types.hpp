// The market mix (workloads/market.hpp) as the log tests name it.
#pragma once

#include <bin_serializer/log/reader.hpp>
#include <bin_serializer/log/writer.hpp>

#include <variant>

#include "workloads/market.hpp"

namespace log_test {

using workloads::Quote;
using workloads::Status;
using workloads::Trade;
using record = workloads::market_record;
using workloads::market;

template <bin_serializer::options Opts>
using market_schema = bin_serializer::log_schema<Opts, Trade, Quote, Status>;

template <class W>
bool write_record(W& w, const record& r) {
  return std::visit([&w](const auto& v) { return w.write(v); }, r);
}

// The record rec that r's next() handed out, decoded by r into its type
// (Schema index 0, 1, 2); false if that fails.
template <class R>
bool decode_any(R& r, const bin_serializer::log_record& rec, record& out) {
  const auto as = [&]<class T>(T v) {
    if (!r.decode(rec, v)) return false;
    out = v;
    return true;
  };
  switch (rec.type) {
  case 0: return as(Trade{});
  case 1: return as(Quote{});
  case 2: return as(Status{});
  default: return false;
  }
}

} // namespace log_test
