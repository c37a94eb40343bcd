// bin_serializer/io/grpc.hpp over a real gRPC server on 127.0.0.1 (ephemeral
// port): the typed method descriptors (grpc_method) with every call kind
// (unary, server streaming, client streaming, bidirectional, the callback
// API on both ends), the exact bytes a message goes out as, single- and
// multi-slice decoding, cancellation and early ends of streams, and hostile
// payloads in both directions for every kind (requests decoded by the server,
// responses decoded by the client), which must come back as INVALID_ARGUMENT
// statuses naming the errc and the offset.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "examples/transports/quote_service.hpp"

namespace {

using bin_serializer::grpc_kind;
using bin_serializer::grpc_method;
using bin_serializer::grpc_options_v;
using grpc::ByteBuffer;
using quotes::QuoteRequest;
using workloads::Tick;

// Raw methods: the server sends back whatever bytes it is given.
inline constexpr grpc_method<ByteBuffer, ByteBuffer> raw_echo{"/test.Raw/Echo"};
inline constexpr grpc_method<ByteBuffer, ByteBuffer, grpc_kind::server_streaming> raw_repeat{
    "/test.Raw/Repeat"};
inline constexpr grpc_method<ByteBuffer, ByteBuffer, grpc_kind::client_streaming> raw_first{
    "/test.Raw/First"};
inline constexpr grpc_method<ByteBuffer, ByteBuffer, grpc_kind::bidi_streaming> raw_echo_stream{
    "/test.Raw/EchoStream"};

// A request that owns a large string (the Req, with std::string
// instead of std::string_view): echoed back by the server.
struct OwnedReq {
  std::string symbol;
  std::uint32_t depth = 0;
  bool operator==(const OwnedReq&) const = default;
};
inline constexpr grpc_method<OwnedReq, OwnedReq> echo_owned{"/test.Owned/Echo"};
inline constexpr grpc_method<OwnedReq, OwnedReq> echo_owned_cb{"/test.Owned/EchoCb"};

grpc::ByteBuffer bytes_to_buffer(const void* data, std::size_t n) {
  grpc::Slice slice(data, n);
  return grpc::ByteBuffer(&slice, 1);
}

std::vector<unsigned char> buffer_to_bytes(const grpc::ByteBuffer& bb) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(bb.Dump(&slices).ok());
  std::vector<unsigned char> out;
  for (const grpc::Slice& s : slices) out.insert(out.end(), s.begin(), s.end());
  return out;
}

template <class T>
std::vector<unsigned char> framed(const T& value) {
  bin_serializer::Buffer buf;
  EXPECT_TRUE(bin_serializer::serialize_message<grpc_options_v<T>>(buf, value));
  const auto* p = reinterpret_cast<const unsigned char*>(buf.data());
  return {p, p + buf.size()};
}

// A service that answers every call with the bytes it was asked to send
// (the request itself), so a test can make the server "send" anything.
class EchoRawService final : public bin_serializer::grpc_service {
public:
  EchoRawService() {
    add_unary<ByteBuffer, ByteBuffer>( // the older spelling, still served
        raw_echo.path, [](grpc::ServerContext*, const ByteBuffer& in, ByteBuffer& out) {
          out = in;
          return grpc::Status::OK;
        });
    // Sends the request's bytes back three times as a stream.
    add(raw_repeat,
        [](grpc::ServerContext*, const ByteBuffer& in, grpc::ServerWriter<ByteBuffer>& writer) {
          for (int i = 0; i < 3; ++i)
            if (!writer.Write(in)) break;
          return grpc::Status::OK;
        });
    // Answers with the first request of the stream.
    add(raw_first, [](grpc::ServerContext*, bin_serializer::grpc_server_reader<ByteBuffer>& in,
                      ByteBuffer& out) {
      ByteBuffer b;
      bool first = true;
      while (in.read(b))
        if (std::exchange(first, false)) out = b;
      return grpc::Status::OK;
    });
    // Every request back as a response.
    add(raw_echo_stream,
        [](grpc::ServerContext*, bin_serializer::grpc_server_stream<ByteBuffer, ByteBuffer>& s) {
          ByteBuffer b;
          while (s.read(b))
            if (!s.write(b)) break;
          return grpc::Status::OK;
        });
    add(echo_owned, [](grpc::ServerContext*, const OwnedReq& in, OwnedReq& out) {
      out = in;
      return grpc::Status::OK;
    });
    // The reactor form of the callback API: the request is moved into the answer.
    add_callback(echo_owned_cb,
                 [](grpc::CallbackServerContext* ctx, OwnedReq&& in,
                    OwnedReq* out) -> grpc::ServerUnaryReactor* {
                   *out = std::move(in);
                   grpc::ServerUnaryReactor* r = ctx->DefaultReactor();
                   r->Finish(grpc::Status::OK);
                   return r;
                 });
  }
};

class GrpcLoopback : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    service_ = new quotes::QuoteService;
    raw_ = new EchoRawService;
    builder.RegisterService(service_);
    builder.RegisterService(raw_);
    server_ = builder.BuildAndStart().release();
    ASSERT_NE(server_, nullptr);
    ASSERT_NE(port_, 0);
    channel_ = new std::shared_ptr<grpc::Channel>(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials()));
  }
  static void TearDownTestSuite() {
    delete channel_;
    // Bounded: calls still running after 2 s are cancelled.
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
    delete server_;
    delete service_;
    delete raw_;
  }

  static void with_deadline(grpc::ClientContext& ctx) {
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  }

  // A raw call: these bytes as the request of `path`, the response bytes back.
  static grpc::Status raw_call(const char* path, const std::vector<unsigned char>& request,
                               grpc::ByteBuffer& response) {
    grpc::internal::RpcMethod method(path, grpc::internal::RpcMethod::NORMAL_RPC);
    grpc::ClientContext ctx;
    with_deadline(ctx);
    const grpc::ByteBuffer req = bytes_to_buffer(request.data(), request.size());
    return grpc::internal::BlockingUnaryCall(channel_->get(), method, &ctx, req, &response);
  }

  // The response of the echo service (these bytes) decoded by the client as a
  // T, through the older spelling (an RpcMethod built by hand).
  template <class T>
  static grpc::Status echo_as(const std::vector<unsigned char>& bytes, T& out) {
    grpc::internal::RpcMethod method(raw_echo.path, grpc::internal::RpcMethod::NORMAL_RPC);
    grpc::ClientContext ctx;
    with_deadline(ctx);
    const ByteBuffer req = bytes_to_buffer(bytes.data(), bytes.size());
    return bin_serializer::grpc_unary_call(**channel_, method, ctx, req, out);
  }

  static bin_serializer::grpc_client client() { return bin_serializer::grpc_client(*channel_); }

  static inline int port_ = 0;
  static inline grpc::Server* server_ = nullptr;
  static inline quotes::QuoteService* service_ = nullptr;
  static inline EchoRawService* raw_ = nullptr;
  static inline std::shared_ptr<grpc::Channel>* channel_ = nullptr;
};

TEST_F(GrpcLoopback, UnaryTick) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  Tick t{};
  const grpc::Status s =
      c.call(ctx, quotes::last, {.symbol_id = 11, .count = 0, .first_seq = 5}, t);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(t, quotes::tick_for(11, 5));
}

TEST_F(GrpcLoopback, UnaryBatchOf256) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  std::vector<Tick> batch;
  const grpc::Status s =
      c.call(ctx, quotes::batch, {.symbol_id = 2, .count = 256, .first_seq = 1000}, batch);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(batch.size(), 256u);
  for (std::size_t i = 0; i < batch.size(); ++i) EXPECT_EQ(batch[i], quotes::tick_for(2, 1000 + i));
}

TEST_F(GrpcLoopback, LargeBatchArrivesInSeveralSlicesAndDecodes) {
  // ~1.6 MB: large enough that the transport may hand it over in several
  // slices (the one-copy path).
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  std::vector<Tick> batch;
  const grpc::Status s =
      c.call(ctx, quotes::batch, {.symbol_id = 4, .count = quotes::max_count}, batch);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(batch.size(), quotes::max_count);
  EXPECT_EQ(batch.front(), quotes::tick_for(4, 0));
  EXPECT_EQ(batch.back(), quotes::tick_for(4, quotes::max_count - 1));
}

TEST_F(GrpcLoopback, ServerStreamingTicks) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  auto reader = c.call(ctx, quotes::stream, {.symbol_id = 9, .count = 500, .first_seq = 77});
  Tick t{};
  std::uint64_t n = 0;
  while (reader.read(t)) {
    ASSERT_EQ(t, quotes::tick_for(9, 77 + n)) << "tick " << n;
    ++n;
  }
  const grpc::Status s = reader.finish();
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(n, 500u);
}

TEST_F(GrpcLoopback, HandlerStatusIsPassedThrough) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  std::vector<Tick> batch;
  const grpc::Status s =
      c.call(ctx, quotes::batch, {.symbol_id = 1, .count = quotes::max_count + 1}, batch);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::OUT_OF_RANGE);
}

TEST_F(GrpcLoopback, RequestBytesAreTheFramedMessage) {
  // A raw request built with serialize_message is what the struct call sends:
  // the server answers it like the typed call.
  grpc::ByteBuffer resp;
  const grpc::Status s =
      raw_call(quotes::last_path, framed(QuoteRequest{.symbol_id = 3, .first_seq = 8}), resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(buffer_to_bytes(resp), framed(quotes::tick_for(3, 8)));
}

// ---- Hostile requests: the server refuses them before the handler runs. ----

void expect_refused(const grpc::Status& s, const std::string& what) {
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find(what), std::string::npos)
      << "status message: " << s.error_message() << "\nexpected: " << what;
}

TEST_F(GrpcLoopback, GarbageRequestIsBadHeaderAtOffset0) {
  grpc::ByteBuffer resp;
  const std::vector<unsigned char> junk(40, 0xAB);
  expect_refused(raw_call(quotes::last_path, junk, resp), "bad_header at offset 0");
}

// No byte at all is no message (errc::end_of_stream), not a torn one.
TEST_F(GrpcLoopback, EmptyRequestIsEndOfStream) {
  grpc::ByteBuffer resp;
  expect_refused(raw_call(quotes::last_path, {}, resp), "end_of_stream at offset 0");
}

TEST_F(GrpcLoopback, CutRequestIsTruncatedAtTheLengthField) {
  auto bytes = framed(QuoteRequest{.symbol_id = 1, .count = 2, .first_seq = 3});
  bytes.resize(bytes.size() - 5);
  grpc::ByteBuffer resp;
  // The header announces 16 payload bytes, 11 follow: reported at the length field.
  expect_refused(raw_call(quotes::last_path, bytes, resp), "truncated at offset 16");
}

TEST_F(GrpcLoopback, OtherTypeIsSchemaMismatchAtTheFingerprint) {
  grpc::ByteBuffer resp;
  expect_refused(raw_call(quotes::last_path, framed(quotes::tick_for(1, 1)), resp),
                 "schema_mismatch at offset 8");
}

TEST_F(GrpcLoopback, NativeFormatIsSchemaMismatchAtTheFormatByte) {
  bin_serializer::Buffer buf;
  ASSERT_TRUE(bin_serializer::serialize_message(buf, QuoteRequest{.symbol_id = 1}));
  const auto* p = reinterpret_cast<const unsigned char*>(buf.data());
  grpc::ByteBuffer resp;
  expect_refused(raw_call(quotes::last_path, {p, p + buf.size()}, resp),
                 "schema_mismatch at offset 5 (schema mismatch: format expected 0x1 found 0)");
}

TEST_F(GrpcLoopback, TrailingBytesAreRefused) {
  auto bytes = framed(QuoteRequest{.symbol_id = 1});
  const std::size_t end = bytes.size();
  bytes.push_back(0);
  grpc::ByteBuffer resp;
  expect_refused(raw_call(quotes::last_path, bytes, resp),
                 "invalid_value at offset " + std::to_string(end));
}

TEST_F(GrpcLoopback, ServerStillServesAfterHostileInput) {
  grpc::ByteBuffer resp;
  const std::vector<unsigned char> junk(7, 0xFF);
  expect_refused(raw_call(quotes::last_path, junk, resp), "truncated at offset 0");
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  Tick t{};
  ASSERT_TRUE(c.call(ctx, quotes::last, {.symbol_id = 5, .first_seq = 6}, t).ok());
  EXPECT_EQ(t, quotes::tick_for(5, 6));
}

// ---- Hostile responses: the client's decode fails with a status. ----

TEST_F(GrpcLoopback, HostileVectorLengthInAResponseIsRefusedWithoutAllocating) {
  // A framed std::vector<Tick> whose element count claims 2^40 elements.
  auto bytes = framed(std::vector<Tick>{quotes::tick_for(1, 1)});
  const std::size_t count_at = bin_serializer::message_header_size;
  const std::uint64_t huge = std::uint64_t{1} << 40;
  for (std::size_t i = 0; i < 8; ++i)
    bytes[count_at + i] = static_cast<unsigned char>(huge >> (8 * i));
  std::vector<Tick> out;
  const grpc::Status s = echo_as(bytes, out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("at offset " + std::to_string(count_at)), std::string::npos)
      << s.error_message();
  EXPECT_TRUE(out.empty());
}

TEST_F(GrpcLoopback, InvalidBoolInsideATrivialStructIsRefused) {
  struct Flagged {
    std::uint32_t id;
    bool on;
  };
  static_assert(bin_serializer::grpc_enabled_v<Flagged>);
  auto bytes = framed(Flagged{.id = 1, .on = true});
  bytes.back() = 2; // the bool
  Flagged out{};
  const grpc::Status s = echo_as(bytes, out);
  expect_refused(s, "invalid_value at offset " + std::to_string(bytes.size() - 1));
}

TEST_F(GrpcLoopback, ValidResponseThroughEchoDecodes) {
  std::vector<Tick> out;
  const std::vector<Tick> in = {quotes::tick_for(1, 1), quotes::tick_for(1, 2)};
  const grpc::Status s = echo_as(framed(in), out);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(out, in);
}

TEST_F(GrpcLoopback, StreamOfValidMessagesDecodes) {
  grpc::internal::RpcMethod method("/test.Raw/Repeat", grpc::internal::RpcMethod::SERVER_STREAMING);
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const auto bytes = framed(quotes::tick_for(6, 6));
  const grpc::ByteBuffer req = bytes_to_buffer(bytes.data(), bytes.size());
  bin_serializer::grpc_stream_reader<Tick> reader(**channel_, method, ctx, req);
  Tick t{};
  int n = 0;
  while (reader.read(t)) {
    EXPECT_EQ(t, quotes::tick_for(6, 6));
    ++n;
  }
  EXPECT_TRUE(reader.finish().ok());
  EXPECT_EQ(n, 3);
}

TEST_F(GrpcLoopback, MalformedStreamMessageStopsTheStreamWithAStatus) {
  grpc::internal::RpcMethod method("/test.Raw/Repeat", grpc::internal::RpcMethod::SERVER_STREAMING);
  grpc::ClientContext ctx;
  with_deadline(ctx);
  auto bytes = framed(quotes::tick_for(6, 6));
  bytes[9] ^= 1; // the fingerprint
  const grpc::ByteBuffer req = bytes_to_buffer(bytes.data(), bytes.size());
  bin_serializer::grpc_stream_reader<Tick> reader(**channel_, method, ctx, req);
  Tick t{};
  EXPECT_FALSE(reader.read(t));
  EXPECT_FALSE(reader.read(t)); // stays stopped
  expect_refused(reader.finish(), "schema_mismatch at offset 8");
}

// ---- Typed descriptors: every kind, both directions. ----

ByteBuffer raw(const std::vector<unsigned char>& bytes) {
  return bytes_to_buffer(bytes.data(), bytes.size());
}

TEST_F(GrpcLoopback, ClientStreamingRoundTrip) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  auto w = c.call(ctx, quotes::record);
  std::uint64_t quantity = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    const Tick t = quotes::tick_for(static_cast<std::uint32_t>(i % 7), i);
    quantity += t.quantity;
    ASSERT_TRUE(w.write(t)) << "tick " << i;
  }
  quotes::RecordSummary sum;
  const grpc::Status s = w.finish(sum);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(sum.ticks, 300u);
  EXPECT_EQ(sum.quantity, quantity);
  EXPECT_EQ(sum.last_symbol, "S" + std::to_string(299 % 7));
}

TEST_F(GrpcLoopback, ClientStreamingWithNoMessage) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  auto w = c.call(ctx, quotes::record);
  quotes::RecordSummary sum{.ticks = 9, .quantity = 1, .last_symbol = "x"};
  const grpc::Status s = w.finish(sum);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(sum, quotes::RecordSummary{});
}

TEST_F(GrpcLoopback, BidiRoundTrip) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  auto st = c.call(ctx, quotes::follow);
  for (std::uint32_t sym = 1; sym <= 4; ++sym) {
    ASSERT_TRUE(st.write({.symbol_id = sym, .count = sym * 5, .first_seq = 100}));
    Tick t{};
    for (std::uint32_t i = 0; i < sym * 5; ++i) {
      ASSERT_TRUE(st.read(t)) << "symbol " << sym << " tick " << i;
      EXPECT_EQ(t, quotes::tick_for(sym, 100 + i));
    }
  }
  ASSERT_TRUE(st.writes_done());
  Tick extra{};
  EXPECT_FALSE(st.read(extra));
  const grpc::Status s = st.finish();
  ASSERT_TRUE(s.ok()) << s.error_message();
}

TEST_F(GrpcLoopback, CallbackUnaryRoundTrip) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  Tick t{};
  std::promise<grpc::Status> done;
  c.call_async(ctx, quotes::last_cb, {.symbol_id = 12, .first_seq = 34}, t,
               [&done](grpc::Status s) { done.set_value(std::move(s)); });
  const grpc::Status s = done.get_future().get();
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(t, quotes::tick_for(12, 34));
}

TEST_F(GrpcLoopback, CallbackClientOnASyncMethodAndManyInFlight) {
  // The callback client against the synchronous Batch method, 16 calls at once.
  auto c = client();
  constexpr int n = 16;
  grpc::ClientContext ctx[n];
  std::vector<Tick> out[n];
  std::promise<void> all;
  std::atomic<int> left{n}, failed{0};
  for (int i = 0; i < n; ++i) {
    with_deadline(ctx[i]);
    c.call_async(ctx[i], quotes::batch, {.symbol_id = static_cast<std::uint32_t>(i), .count = 64},
                 out[i], [&](grpc::Status s) {
                   if (!s.ok()) ++failed;
                   if (--left == 0) all.set_value();
                 });
  }
  all.get_future().wait();
  EXPECT_EQ(failed.load(), 0);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(out[i].size(), 64u);
    EXPECT_EQ(out[i][63], quotes::tick_for(static_cast<std::uint32_t>(i), 63));
  }
}

TEST_F(GrpcLoopback, CallbackServerReactorFormWithALargeOwnedString) {
  // Item 1's regression through the owning type: a 3 MB string (several
  // slices) decoded on a callback server and echoed back.
  auto c = client();
  const OwnedReq in{std::string(3u << 20, 'q') + "END", 7};
  for (const auto* m : {&echo_owned, &echo_owned_cb}) {
    grpc::ClientContext ctx;
    with_deadline(ctx);
    OwnedReq out;
    std::promise<grpc::Status> done;
    c.call_async(ctx, *m, in, out, [&done](grpc::Status s) { done.set_value(std::move(s)); });
    const grpc::Status s = done.get_future().get();
    ASSERT_TRUE(s.ok()) << m->path << ": " << s.error_message();
    EXPECT_EQ(out, in) << m->path;
  }
  grpc::ClientContext ctx;
  with_deadline(ctx);
  OwnedReq out;
  ASSERT_TRUE(c.call(ctx, echo_owned, in, out).ok());
  EXPECT_EQ(out, in);
}

// The type: a view member makes it no gRPC message type (using it as
// one does not compile: tests/io/transports/compile_fail/grpc_view_member.cpp).
struct ViewReq {
  std::string_view symbol;
  std::uint32_t depth;
};
static_assert(!bin_serializer::grpc_enabled_v<ViewReq>);
static_assert(!bin_serializer::grpc_enabled_v<std::vector<std::optional<std::string_view>>>);
static_assert(bin_serializer::grpc_enabled_v<OwnedReq>);

// ---- Cancellation and early ends. ----

TEST_F(GrpcLoopback, ServerStreamCancelledByTheClientEndsCancelled) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  auto r = c.call(ctx, quotes::stream, {.symbol_id = 1, .count = quotes::max_count});
  Tick t{};
  int n = 0;
  while (n < 10 && r.read(t)) ++n;
  ASSERT_EQ(n, 10);
  ctx.TryCancel();
  while (r.read(t)) {
  }
  EXPECT_EQ(r.finish().error_code(), grpc::StatusCode::CANCELLED);
  // The server goes on serving.
  grpc::ClientContext ctx2;
  with_deadline(ctx2);
  ASSERT_TRUE(c.call(ctx2, quotes::last, {.symbol_id = 1}, t).ok());
}

TEST_F(GrpcLoopback, StreamsDroppedBeforeTheirEndCancelCleanly) {
  // Destroyed without finish(): each end cancels its call and returns.
  auto c = client();
  for (int round = 0; round < 3; ++round) {
    {
      grpc::ClientContext ctx;
      with_deadline(ctx);
      auto r = c.call(ctx, quotes::stream, {.symbol_id = 2, .count = quotes::max_count});
      Tick t{};
      ASSERT_TRUE(r.read(t));
    }
    {
      grpc::ClientContext ctx;
      with_deadline(ctx);
      auto w = c.call(ctx, quotes::record);
      ASSERT_TRUE(w.write(quotes::tick_for(1, 1)));
    }
    {
      grpc::ClientContext ctx;
      with_deadline(ctx);
      auto st = c.call(ctx, quotes::follow);
      ASSERT_TRUE(st.write({.symbol_id = 3, .count = 1000}));
      Tick t{};
      ASSERT_TRUE(st.read(t));
    }
  }
}

TEST_F(GrpcLoopback, BidiServerEndingEarlyIsTheCallsStatus) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  auto st = c.call(ctx, quotes::follow);
  ASSERT_TRUE(st.write({.symbol_id = 1, .count = quotes::max_count + 1}));
  Tick t{};
  EXPECT_FALSE(st.read(t));
  EXPECT_EQ(st.finish().error_code(), grpc::StatusCode::OUT_OF_RANGE);
}

// ---- Hostile requests of every kind: the server answers with the decode error. ----

TEST_F(GrpcLoopback, HostileServerStreamingRequestIsRefused) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, Tick, grpc_kind::server_streaming> m{quotes::stream.path};
  auto bytes = framed(QuoteRequest{.symbol_id = 1, .count = 3});
  bytes.resize(bytes.size() - 1);
  auto r = c.call(ctx, m, raw(bytes));
  Tick t{};
  EXPECT_FALSE(r.read(t));
  expect_refused(r.finish(), "truncated at offset 16");
}

TEST_F(GrpcLoopback, HostileClientStreamingRequestIsRefusedWithItsOffset) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, quotes::RecordSummary, grpc_kind::client_streaming> m{
      quotes::record.path};
  auto w = c.call(ctx, m);
  ASSERT_TRUE(w.write(raw(framed(quotes::tick_for(1, 1)))));
  auto bad = framed(quotes::tick_for(1, 2));
  bad[9] ^= 1; // the fingerprint
  (void)w.write(raw(bad));
  (void)w.write(raw(framed(quotes::tick_for(1, 3)))); // not read any more
  quotes::RecordSummary sum;
  expect_refused(w.finish(sum), "schema_mismatch at offset 8");
}

TEST_F(GrpcLoopback, HostileBidiRequestIsRefusedWithItsOffset) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, Tick, grpc_kind::bidi_streaming> m{quotes::follow.path};
  auto st = c.call(ctx, m);
  ASSERT_TRUE(st.write(raw(framed(QuoteRequest{.symbol_id = 4, .count = 2}))));
  Tick t{};
  ASSERT_TRUE(st.read(t));
  ASSERT_TRUE(st.read(t));
  auto bad = framed(QuoteRequest{.symbol_id = 4, .count = 2});
  bad.push_back(0);
  (void)st.write(raw(bad));
  EXPECT_FALSE(st.read(t));
  expect_refused(st.finish(), "invalid_value at offset " + std::to_string(bad.size() - 1));
}

TEST_F(GrpcLoopback, HostileCallbackRequestIsRefusedNotUnimplemented) {
  // gRPC's own decode on a callback method would answer UNIMPLEMENTED "".
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, ByteBuffer> m{quotes::last_cb.path};
  ByteBuffer out;
  expect_refused(c.call(ctx, m, raw(std::vector<unsigned char>(40, 0xAB)), out),
                 "bad_header at offset 0");
}

// ---- Hostile responses of every kind: the client's decode gives the status. ----

TEST_F(GrpcLoopback, HostileUnaryResponseThroughTheDescriptor) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, Tick> m{raw_echo.path};
  Tick t{};
  expect_refused(c.call(ctx, m, raw(framed(QuoteRequest{})), t), "schema_mismatch at offset 8");
}

TEST_F(GrpcLoopback, HostileServerStreamingResponseThroughTheDescriptor) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, Tick, grpc_kind::server_streaming> m{raw_repeat.path};
  auto bytes = framed(quotes::tick_for(6, 6));
  bytes.resize(30);
  auto r = c.call(ctx, m, raw(bytes));
  Tick t{};
  EXPECT_FALSE(r.read(t));
  expect_refused(r.finish(), "truncated at offset 16");
}

TEST_F(GrpcLoopback, HostileClientStreamingResponse) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, Tick, grpc_kind::client_streaming> m{raw_first.path};
  auto w = c.call(ctx, m);
  const std::vector<unsigned char> junk(40, 0x5A);
  ASSERT_TRUE(w.write(raw(junk)));
  ASSERT_TRUE(w.write(raw(framed(quotes::tick_for(1, 1)))));
  Tick t{};
  expect_refused(w.finish(t), "bad_header at offset 0");
}

TEST_F(GrpcLoopback, ValidClientStreamingResponseThroughRawServer) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, Tick, grpc_kind::client_streaming> m{raw_first.path};
  auto w = c.call(ctx, m);
  ASSERT_TRUE(w.write(raw(framed(quotes::tick_for(2, 2)))));
  Tick t{};
  const grpc::Status s = w.finish(t);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(t, quotes::tick_for(2, 2));
}

TEST_F(GrpcLoopback, HostileBidiResponseStopsReadingWithAStatus) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, Tick, grpc_kind::bidi_streaming> m{raw_echo_stream.path};
  auto st = c.call(ctx, m);
  Tick t{};
  ASSERT_TRUE(st.write(raw(framed(quotes::tick_for(3, 3)))));
  ASSERT_TRUE(st.read(t));
  EXPECT_EQ(t, quotes::tick_for(3, 3));
  auto bad = framed(quotes::tick_for(3, 4));
  bad.push_back(1);
  ASSERT_TRUE(st.write(raw(bad)));
  EXPECT_FALSE(st.read(t));
  EXPECT_FALSE(st.read(t)); // stays stopped
  expect_refused(st.finish(), "invalid_value at offset " + std::to_string(bad.size() - 1));
}

TEST_F(GrpcLoopback, HostileCallbackResponseKeepsTheDecodeError) {
  // gRPC's callback decode would report the server's OK with nothing decoded.
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  const grpc_method<ByteBuffer, std::vector<Tick>> m{raw_echo.path};
  auto bytes = framed(std::vector<Tick>{quotes::tick_for(1, 1)});
  bytes.resize(bytes.size() - 3);
  std::vector<Tick> out;
  std::promise<grpc::Status> done;
  c.call_async(ctx, m, raw(bytes), out, [&done](grpc::Status s) { done.set_value(std::move(s)); });
  const grpc::Status s = done.get_future().get();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("truncated at offset"), std::string::npos) << s.error_message();
}

// ---- The traits on their own. ----

TEST(GrpcTraits, SerializeWritesOneSliceHoldingTheFramedMessage) {
  const Tick t = quotes::tick_for(8, 9);
  grpc::ByteBuffer bb;
  bool own = false;
  ASSERT_TRUE(grpc::SerializationTraits<Tick>::Serialize(t, &bb, &own).ok());
  EXPECT_TRUE(own);
  grpc::Slice single;
  ASSERT_TRUE(bb.TrySingleSlice(&single).ok());
  const auto expected = framed(t);
  ASSERT_EQ(single.size(), expected.size());
  EXPECT_EQ(std::memcmp(single.begin(), expected.data(), expected.size()), 0);
  // Golden: "BSMF", spec version 1, portable format (1); 25 payload bytes.
  const unsigned char head[] = {'B', 'S', 'M', 'F', 1, 1, 0, 0};
  EXPECT_EQ(std::memcmp(single.begin(), head, sizeof head), 0);
  EXPECT_EQ(single.size(), bin_serializer::message_header_size + 25);
}

TEST(GrpcTraits, MultiSlicePayloadDecodesThroughOneCopy) {
  const std::vector<Tick> in = {quotes::tick_for(1, 1), quotes::tick_for(2, 2),
                                quotes::tick_for(3, 3)};
  const auto bytes = framed(in);
  for (std::size_t cut : {std::size_t{1}, std::size_t{13}, bytes.size() / 2, bytes.size() - 1}) {
    grpc::Slice parts[2] = {grpc::Slice(bytes.data(), cut),
                            grpc::Slice(bytes.data() + cut, bytes.size() - cut)};
    grpc::ByteBuffer bb(parts, 2);
    grpc::Slice single;
    ASSERT_FALSE(bb.TrySingleSlice(&single).ok());
    std::vector<Tick> out;
    const grpc::Status s = grpc::SerializationTraits<std::vector<Tick>>::Deserialize(&bb, &out);
    ASSERT_TRUE(s.ok()) << "cut " << cut << ": " << s.error_message();
    EXPECT_EQ(out, in);
    EXPECT_EQ(bb.Length(), 0u); // released, as gRPC expects
  }
}

TEST(GrpcTraits, EveryCutOfAMessageIsAStatusNeverACrash) {
  const auto bytes = framed(std::vector<Tick>{quotes::tick_for(1, 1), quotes::tick_for(2, 2)});
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    grpc::ByteBuffer bb = bytes_to_buffer(bytes.data(), n);
    std::vector<Tick> out;
    const grpc::Status s = grpc::SerializationTraits<std::vector<Tick>>::Deserialize(&bb, &out);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << "length " << n;
    // Nothing at all is a clean end (end_of_stream); anything more is torn.
    EXPECT_NE(s.error_message().find(n == 0 ? "end_of_stream" : "truncated"), std::string::npos)
        << s.error_message();
  }
}

struct Identified {
  static constexpr std::uint32_t bin_serializer_message_id = 7;
  std::uint32_t a;
  std::string b;
  bool operator==(const Identified&) const = default;
};

TEST(GrpcTraits, TypeWithAMessageIdGoesOutWithThe32ByteHeader) {
  const Identified in{5, "five"};
  grpc::ByteBuffer bb;
  bool own = false;
  ASSERT_TRUE(grpc::SerializationTraits<Identified>::Serialize(in, &bb, &own).ok());
  const auto bytes = buffer_to_bytes(bb);
  EXPECT_EQ(bytes, framed(in));
  ASSERT_EQ(bytes.size(), 32u + 4u + 8u + 4u);
  EXPECT_EQ(bytes[24], 7);
  Identified out{};
  ASSERT_TRUE(grpc::SerializationTraits<Identified>::Deserialize(&bb, &out).ok());
  EXPECT_EQ(out, in);
}

TEST(GrpcTraits, ErrorTextNamesCodeOffsetAndReason) {
  EXPECT_EQ(bin_serializer::grpc_error_text({bin_serializer::errc::schema_mismatch, 8}),
            "bin_serializer: schema_mismatch at offset 8 (schema mismatch)");
  // A mismatch found in a header names the field and both values.
  EXPECT_EQ(bin_serializer::grpc_error_text(bin_serializer::error::schema(
                8, bin_serializer::mismatch::fingerprint, 0x1a2b, 0x3c4d)),
            "bin_serializer: schema_mismatch at offset 8 (schema mismatch: fingerprint expected "
            "0x1a2b found 0x3c4d)");
  EXPECT_EQ(bin_serializer::errc_name(bin_serializer::errc::io_error), "io_error");
}

// Protobuf-style and non-serializable types are left to their own traits.
static_assert(!bin_serializer::grpc_enabled_v<grpc::ByteBuffer>);
static_assert(bin_serializer::grpc_enabled_v<QuoteRequest>);
static_assert(bin_serializer::grpc_enabled_v<std::vector<Tick>>);

} // namespace
