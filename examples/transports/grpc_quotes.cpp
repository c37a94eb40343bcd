// gRPC quote service with plain structs as messages (quote_service.hpp).
//
//   example_grpc_quotes                 server and client in one process on an ephemeral
//                                       127.0.0.1 port; exits 0 when every value checks out
//   example_grpc_quotes --serve ADDR    server only (e.g. 0.0.0.0:50051), until killed
//   example_grpc_quotes --connect ADDR  client only, against a server started with --serve
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "quote_service.hpp"

namespace {

int run_client(const std::string& target) {
  // One client for every method; the descriptors come from quote_service.hpp.
  bin_serializer::grpc_client client(
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  const auto deadline = [] { return std::chrono::system_clock::now() + std::chrono::seconds(10); };

  // Unary: one tick.
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline());
    workloads::Tick tick{};
    const grpc::Status s =
        client.call(ctx, quotes::last, {.symbol_id = 7, .count = 0, .first_seq = 42}, tick);
    if (!s.ok() || !(tick == quotes::tick_for(7, 42))) {
      std::fprintf(stderr, "Last failed: %s\n", s.error_message().c_str());
      return 1;
    }
    std::printf("Last: symbol %u price %.2f qty %u\n", tick.symbol_id, tick.price, tick.quantity);
  }
  // Unary: a 256-tick batch in one message.
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline());
    std::vector<workloads::Tick> batch;
    const grpc::Status s =
        client.call(ctx, quotes::batch, {.symbol_id = 3, .count = 256, .first_seq = 0}, batch);
    if (!s.ok() || batch.size() != 256 || !(batch[255] == quotes::tick_for(3, 255))) {
      std::fprintf(stderr, "Batch failed: %s\n", s.error_message().c_str());
      return 1;
    }
    std::printf("Batch: %zu ticks\n", batch.size());
  }
  // Server streaming: 1000 ticks, one message each.
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline());
    auto reader =
        client.call(ctx, quotes::stream, {.symbol_id = 9, .count = 1000, .first_seq = 100});
    workloads::Tick tick{};
    std::uint64_t n = 0;
    while (reader.read(tick)) {
      if (!(tick == quotes::tick_for(9, 100 + n))) {
        std::fprintf(stderr, "Stream: tick %llu differs\n", static_cast<unsigned long long>(n));
        return 1;
      }
      ++n;
    }
    const grpc::Status s = reader.finish();
    if (!s.ok() || n != 1000) {
      std::fprintf(stderr, "Stream failed after %llu ticks: %s\n",
                   static_cast<unsigned long long>(n), s.error_message().c_str());
      return 1;
    }
    std::printf("Stream: %llu ticks\n", static_cast<unsigned long long>(n));
  }
  // Client streaming: 100 ticks up, one summary back.
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline());
    auto writer = client.call(ctx, quotes::record);
    std::uint64_t quantity = 0;
    for (std::uint64_t i = 0; i < 100; ++i) {
      const workloads::Tick t = quotes::tick_for(5, i);
      quantity += t.quantity;
      if (!writer.write(t)) break; // the server ended the call: finish() says why
    }
    quotes::RecordSummary summary;
    const grpc::Status s = writer.finish(summary);
    if (!s.ok() || summary.ticks != 100 || summary.quantity != quantity) {
      std::fprintf(stderr, "Record failed: %s\n", s.error_message().c_str());
      return 1;
    }
    std::printf("Record: %llu ticks, last %s\n", static_cast<unsigned long long>(summary.ticks),
                summary.last_symbol.c_str());
  }
  // Bidirectional: three requests, each answered by its ticks.
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline());
    auto stream = client.call(ctx, quotes::follow);
    std::uint64_t n = 0;
    for (std::uint32_t symbol = 1; symbol <= 3; ++symbol) {
      if (!stream.write({.symbol_id = symbol, .count = 10, .first_seq = 0})) break;
      workloads::Tick tick{};
      for (std::uint64_t i = 0; i < 10 && stream.read(tick); ++i, ++n)
        if (!(tick == quotes::tick_for(symbol, i))) {
          std::fprintf(stderr, "Follow: tick differs\n");
          return 1;
        }
    }
    stream.writes_done();
    workloads::Tick extra{};
    while (stream.read(extra)) ++n; // none expected
    const grpc::Status s = stream.finish();
    if (!s.ok() || n != 30) {
      std::fprintf(stderr, "Follow failed after %llu ticks: %s\n",
                   static_cast<unsigned long long>(n), s.error_message().c_str());
      return 1;
    }
    std::printf("Follow: %llu ticks\n", static_cast<unsigned long long>(n));
  }
  // Callback API: the call returns at once, done() runs on a gRPC thread.
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline());
    workloads::Tick tick{};
    std::promise<grpc::Status> done;
    client.call_async(ctx, quotes::last_cb, {.symbol_id = 8, .first_seq = 1}, tick,
                      [&done](grpc::Status s) { done.set_value(std::move(s)); });
    const grpc::Status s = done.get_future().get();
    if (!s.ok() || !(tick == quotes::tick_for(8, 1))) {
      std::fprintf(stderr, "LastCb failed: %s\n", s.error_message().c_str());
      return 1;
    }
    std::printf("LastCb: symbol %u\n", tick.symbol_id);
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--connect") == 0) return run_client(argv[2]);

  const bool serve_only = argc == 3 && std::strcmp(argv[1], "--serve") == 0;
  if (argc != 1 && !serve_only) {
    std::fprintf(stderr, "usage: %s [--serve ADDR | --connect ADDR]\n", argv[0]);
    return 2;
  }
  quotes::QuoteService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(serve_only ? argv[2] : "127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "could not start the server\n");
    return 1;
  }
  if (serve_only) {
    std::printf("serving on port %d\n", port);
    server->Wait();
    return 0;
  }
  const int rc = run_client("127.0.0.1:" + std::to_string(port));
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  return rc;
}
