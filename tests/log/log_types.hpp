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

} // namespace log_test
