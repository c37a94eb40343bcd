// bin_serializer/grpc.hpp over a real gRPC server on 127.0.0.1 (ephemeral
// port): unary and server-streaming calls with plain structs, the exact bytes
// a message goes out as, single- and multi-slice decoding, and hostile
// payloads in both directions (request decoded by the server, response
// decoded by the client), which must come back as INVALID_ARGUMENT statuses
// naming the errc and the offset.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "examples/transports/quote_service.hpp"

namespace {

using bin_serializer::grpc_options_v;
using quotes::QuoteRequest;
using workloads::Tick;

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
    add_unary<grpc::ByteBuffer, grpc::ByteBuffer>(
        "/test.Raw/Echo",
        [](grpc::ServerContext*, const grpc::ByteBuffer& in, grpc::ByteBuffer& out) {
          out = in;
          return grpc::Status::OK;
        });
    // Sends the request's bytes back three times as a stream.
    add_server_streaming<grpc::ByteBuffer, grpc::ByteBuffer>(
        "/test.Raw/Repeat", [](grpc::ServerContext*, const grpc::ByteBuffer& in,
                               grpc::ServerWriter<grpc::ByteBuffer>& writer) {
          for (int i = 0; i < 3; ++i)
            if (!writer.Write(in)) break;
          return grpc::Status::OK;
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

  // The response of the echo service (these bytes) decoded by the client as a T.
  template <class T>
  static grpc::Status echo_as(const std::vector<unsigned char>& bytes, T& out) {
    grpc::internal::RpcMethod method("/test.Raw/Echo", grpc::internal::RpcMethod::NORMAL_RPC);
    grpc::ClientContext ctx;
    with_deadline(ctx);
    const grpc::ByteBuffer req = bytes_to_buffer(bytes.data(), bytes.size());
    return bin_serializer::grpc_unary_call(**channel_, method, ctx, req, out);
  }

  static quotes::QuoteClient client() { return quotes::QuoteClient(*channel_); }

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
  const grpc::Status s = c.last(ctx, {.symbol_id = 11, .count = 0, .first_seq = 5}, t);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(t, quotes::tick_for(11, 5));
}

TEST_F(GrpcLoopback, UnaryBatchOf256) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  std::vector<Tick> batch;
  const grpc::Status s = c.batch(ctx, {.symbol_id = 2, .count = 256, .first_seq = 1000}, batch);
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
  const grpc::Status s = c.batch(ctx, {.symbol_id = 4, .count = quotes::max_count}, batch);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(batch.size(), quotes::max_count);
  EXPECT_EQ(batch.front(), quotes::tick_for(4, 0));
  EXPECT_EQ(batch.back(), quotes::tick_for(4, quotes::max_count - 1));
}

TEST_F(GrpcLoopback, ServerStreamingTicks) {
  auto c = client();
  grpc::ClientContext ctx;
  with_deadline(ctx);
  auto reader = c.stream(ctx, {.symbol_id = 9, .count = 500, .first_seq = 77});
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
  const grpc::Status s = c.batch(ctx, {.symbol_id = 1, .count = quotes::max_count + 1}, batch);
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
                 "schema_mismatch at offset 5");
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
  ASSERT_TRUE(c.last(ctx, {.symbol_id = 5, .first_seq = 6}, t).ok());
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
  EXPECT_EQ(bin_serializer::errc_name(bin_serializer::errc::io_error), "io_error");
}

// Protobuf-style and non-serializable types are left to their own traits.
static_assert(!bin_serializer::grpc_enabled_v<grpc::ByteBuffer>);
static_assert(bin_serializer::grpc_enabled_v<QuoteRequest>);
static_assert(bin_serializer::grpc_enabled_v<std::vector<Tick>>);

} // namespace
