// gRPC without .proto files: bin_serializer values as request and response
// messages.
//
// Including this header (after or instead of <grpcpp/grpcpp.h>; the program
// must link gRPC++) specialises grpc::SerializationTraits for every type that
// is Serializable in grpc_options_v<T>, so a service can take and return plain
// structs. A method is declared once, in a header both ends include:
//
//   struct Symbol { std::uint32_t id; };
//   struct Quote { std::uint32_t symbol; double bid, ask; };
//   inline constexpr bin_serializer::grpc_method<Symbol, Quote> get_quote{"/quotes.Quotes/Get"};
//
//   struct QuoteService : bin_serializer::grpc_service {       // server
//     QuoteService() {
//       add(get_quote, [](grpc::ServerContext*, const Symbol& in, Quote& out) {
//         ...; return grpc::Status::OK; });
//     }
//   };
//
//   bin_serializer::grpc_client client(channel);                 // client
//   Quote q;
//   grpc::Status s = client.call(ctx, get_quote, Symbol{7}, q);
//
// The four kinds (grpc_kind) take these handlers and give these client ends:
//   unary             fn(ServerContext*, const Req&, Resp&)               client.call(ctx, m, req, resp) -> Status
//   server_streaming  fn(ServerContext*, const Req&, ServerWriter<Resp>&) client.call(ctx, m, req) -> grpc_stream_reader<Resp>
//   client_streaming  fn(ServerContext*, grpc_server_reader<Req>&, Resp&) client.call(ctx, m) -> grpc_stream_writer<Req, Resp>
//   bidi_streaming    fn(ServerContext*, grpc_server_stream<Req, Resp>&)  client.call(ctx, m) -> grpc_bidi_stream<Req, Resp>
// every handler returning grpc::Status. Unary methods also have the callback
// API: client.call_async(ctx, m, req, resp, done) and add_callback(m, fn).
//
// Wire: every message is a framed message (message.hpp: 24-byte header with
// the schema fingerprint and the payload length) in the portable format.
// gRPC's method path names the types but not their shape; client and server
// are built and deployed separately, so the header turns a schema skew into a
// clean error instead of wrong values, and the portable format keeps the
// bytes independent of the hosts' byte order. See docs/transports.md.
//
// Copies: Serialize measures the value, allocates one gRPC slice of exactly
// that size and encodes into it (the slice is what gRPC sends). Deserialize
// decodes straight from the received slice when the payload is one slice (the
// usual case), and copies a multi-slice payload into one slice first.
//
// Errors: a payload that does not decode gives a grpc::Status with code
// INVALID_ARGUMENT and a message naming the errc and the byte offset, e.g.
//   "bin_serializer: truncated at offset 31 (input ends before the value is complete)"
// in every kind and in both directions. gRPC itself reduces a failed
// Deserialize to a bool (grpcpp/impl/call_op_set.h, CallOpRecvMessage), so
// wherever gRPC would decode and lose the text, this header receives the
// grpc::ByteBuffer and decodes it itself: responses on the client (every
// kind, the callback call too), streamed requests on the server, and the
// request of a callback method (whose failed Deserialize gRPC turns into
// UNIMPLEMENTED with no message, server_callback_handlers.h). A unary or
// server-streaming request on the synchronous server is decoded by gRPC's
// handler, which does send the status back.
//
// Decoded values own their bytes: the received slice is released when
// decoding returns, so a type holding a std::string_view, std::span,
// array_view or sequence_view (borrows_input_v, core/shape.hpp) is refused at
// compile time: as a grpc_method's request or response, by the handlers and
// calls below, and by the traits' Deserialize.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_method.h>
#include <grpcpp/impl/rpc_service_method.h>
#include <grpcpp/impl/serialization_traits.h>
#include <grpcpp/support/byte_buffer.h>
#if __has_include(<grpcpp/support/server_callback_handlers.h>)
#include <grpcpp/support/server_callback_handlers.h>
#else
#include <grpcpp/impl/codegen/server_callback_handlers.h> // CallbackUnaryHandler (gRPC 1.51)
#endif
#include <grpcpp/support/client_callback.h>
#include <grpcpp/support/method_handler.h>
#include <grpcpp/support/server_callback.h>
#include <grpcpp/support/slice.h>
#include <grpcpp/support/sync_stream.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "../bin_serializer.hpp"
#include "../buffer/span_buffer.hpp"

namespace bin_serializer {

// The options a T is encoded and decoded with over gRPC: the portable format,
// with the value checks for untrusted input (bool and ranged-enum members of
// trivially copyable structs too). Specialise for a type to change them (both
// ends must agree; the format is part of the message header).
template <class T>
inline constexpr options grpc_options_v =
    options{.format = wire_format::portable, .check_trivial_members = true};

// Which types are gRPC messages: the ones Serializable in grpc_options_v<T>
// whose decoded values own their bytes (not borrows_input_v). Specialise to
// false to keep a type away from the traits.
template <class T>
inline constexpr bool grpc_enabled_v =
    Serializable<T, grpc_options_v<T>> && !borrows_input_v<T, grpc_options_v<T>>;

// The identifier of an error code ("truncated"), as written in statuses:
// the library's error_name (error.hpp).
[[nodiscard]] constexpr std::string_view errc_name(errc code) noexcept { return error_name(code); }

// "bin_serializer: <errc> at offset <n> (<description>)": the text of the
// statuses below.
inline std::string grpc_error_text(error e) {
  std::string s = "bin_serializer: ";
  s += errc_name(e.code);
  s += " at offset ";
  s += std::to_string(e.offset);
  s += " (";
  s += e.message();
  if (e.what() != mismatch::none) { // "...: fingerprint expected 0x1a2b found 0x3c4d"
    char values[64];
    std::snprintf(values, sizeof values, " expected %#llx found %#llx",
                  static_cast<unsigned long long>(e.expected()),
                  static_cast<unsigned long long>(e.found()));
    s += ": ";
    s += mismatch_name(e.what());
    s += values;
  }
  s += ')';
  return s;
}

// The status a failed decode is reported with.
inline ::grpc::Status grpc_decode_status(error e) {
  return {::grpc::StatusCode::INVALID_ARGUMENT, grpc_error_text(e)};
}

namespace detail {

// A serializable type that would be a gRPC message but for its views.
template <class T>
inline constexpr bool grpc_borrowing_v =
    Serializable<T, grpc_options_v<T>> && borrows_input_v<T, grpc_options_v<T>>;

template <class Request, class Response>
inline constexpr bool grpc_messages_own_v =
    !grpc_borrowing_v<Request> && !grpc_borrowing_v<Response>;

// True, or the one diagnostic for a message type that holds views. Every
// entry point asserts it; what it would instantiate next is skipped when it
// fails (if constexpr on grpc_messages_own_v), so the user sees this message
// once instead of a second one from deeper down.
template <class Request, class Response>
consteval bool grpc_messages_own_their_bytes() {
  static_assert(grpc_messages_own_v<Request, Response>,
                "bin_serializer: a gRPC request or response (named in this diagnostic) holds a "
                "std::string_view, std::span, array_view or sequence_view: gRPC frees the "
                "received bytes as soon as the message is decoded, so the view would dangle. "
                "Use owning members: std::string instead of std::string_view, std::vector<T> "
                "instead of std::span<T> / array_view<T> / sequence_view<T>.");
  return true;
}

template <class T>
::grpc::Status grpc_serialize(const T& value, ::grpc::ByteBuffer* out, bool* own_buffer) {
  constexpr options opts = grpc_options_v<T>;
  const std::size_t size = message_header_size_v<T> + serialized_size<opts>(value);
  ::grpc::Slice slice(size); // one allocation, sent as it is
  SpanBuffer sink(const_cast<std::uint8_t*>(slice.begin()), slice.size());
  if (!serialize_message<opts>(sink, value) || sink.size() != size) [[unlikely]] {
    const error e = sink.last_error() ? sink.last_error() : error{errc::buffer_full, sink.size()};
    return {::grpc::StatusCode::INTERNAL, grpc_error_text(e)};
  }
  ::grpc::ByteBuffer tmp(&slice, 1);
  out->Swap(&tmp);
  *own_buffer = true;
  return ::grpc::Status::OK;
}

template <class T>
::grpc::Status grpc_deserialize(::grpc::ByteBuffer* in, T* value) {
  static_assert(grpc_messages_own_their_bytes<T, T>());
  if constexpr (!grpc_messages_own_v<T, T>) {
    return {::grpc::StatusCode::INTERNAL, "bin_serializer: a message type with views"};
  } else {
    if (in == nullptr || value == nullptr) [[unlikely]]
      return {::grpc::StatusCode::INTERNAL, "bin_serializer: no payload"};
    ::grpc::Slice slice;
    // One slice: decode in place. Several: one copy into a single slice.
    if (!in->TrySingleSlice(&slice).ok()) {
      const ::grpc::Status dumped = in->DumpToSingleSlice(&slice);
      if (!dumped.ok()) {
        in->Clear();
        return dumped;
      }
    }
    BufferView view(slice.begin(), slice.size());
    ::grpc::Status status = ::grpc::Status::OK;
    if (!deserialize_message<grpc_options_v<T>>(view, *value)) [[unlikely]]
      status = grpc_decode_status(view.last_error());
    else if (view.remaining() != 0) [[unlikely]] // one message per gRPC message
      status = grpc_decode_status({errc::invalid_value, view.read_position()});
    in->Clear();
    return status;
  }
}

// A received message into a T: a raw grpc::ByteBuffer is handed over as it
// is, a bin_serializer type decoded here (with its precise status), any other
// type (a protobuf message) by its own traits.
template <class T>
::grpc::Status grpc_decode(::grpc::ByteBuffer& in, T& value) {
  if constexpr (std::is_same_v<T, ::grpc::ByteBuffer>) {
    value.Swap(&in);
    return ::grpc::Status::OK;
  } else if constexpr (grpc_borrowing_v<T>) { // refused where the call was made
    return {::grpc::StatusCode::INTERNAL, "bin_serializer: a message type with views"};
  } else {
    return ::grpc::SerializationTraits<T>::Deserialize(&in, &value);
  }
}

} // namespace detail

// ---- methods ----------------------------------------------------------------

enum class grpc_kind : unsigned char { unary, server_streaming, client_streaming, bidi_streaming };

// One gRPC method: its path, request, response and kind, declared once and
// used by the server (grpc_service::add) and the client (grpc_client::call):
//
//   inline constexpr bin_serializer::grpc_method<Symbol, Quote> get_quote{"/quotes.Quotes/Get"};
//   inline constexpr bin_serializer::grpc_method<Symbol, Quote, bin_serializer::grpc_kind::server_streaming>
//       watch{"/quotes.Quotes/Watch"};
//
// The path must outlive every server and channel using it (a string literal):
// gRPC keeps the pointer. Request and response are bin_serializer types whose
// decoded values own their bytes, or grpc::ByteBuffer for raw bytes.
template <class Request, class Response, grpc_kind Kind = grpc_kind::unary>
struct grpc_method {
  static_assert(detail::grpc_messages_own_their_bytes<Request, Response>());
  using request_type = Request;
  using response_type = Response;
  static constexpr grpc_kind kind = Kind;
  static constexpr ::grpc::internal::RpcMethod::RpcType rpc_type =
      Kind == grpc_kind::unary              ? ::grpc::internal::RpcMethod::NORMAL_RPC
      : Kind == grpc_kind::server_streaming ? ::grpc::internal::RpcMethod::SERVER_STREAMING
      : Kind == grpc_kind::client_streaming ? ::grpc::internal::RpcMethod::CLIENT_STREAMING
                                            : ::grpc::internal::RpcMethod::BIDI_STREAMING;

  const char* path;
  constexpr explicit grpc_method(const char* p) noexcept : path(p) {}
};

// ---- server -----------------------------------------------------------------

// The server end of a stream of requests (client streaming, bidirectional):
// read() decodes each message itself, so a malformed one stops the stream
// with its precise status (gRPC's reader would report only "no more
// messages"). When the handler returns after such a message, the call ends
// with that status (INVALID_ARGUMENT, errc and offset), whatever the handler
// returned.
template <class Request>
class grpc_server_reader {
public:
  explicit grpc_server_reader(::grpc::internal::ReaderInterface<::grpc::ByteBuffer>& in) noexcept
      : in_(&in) {}

  // The next request; false at the end of the stream or after a decode error.
  bool read(Request& out) {
    if (!error_.ok()) return false;
    ::grpc::ByteBuffer received;
    if (!in_->Read(&received)) return false;
    ::grpc::Status s = detail::grpc_decode(received, out);
    if (s.ok()) return true;
    error_ = std::move(s);
    return false;
  }
  // OK, or the decode error that stopped the stream.
  [[nodiscard]] const ::grpc::Status& status() const noexcept { return error_; }

private:
  ::grpc::internal::ReaderInterface<::grpc::ByteBuffer>* in_;
  ::grpc::Status error_ = ::grpc::Status::OK;
};

// Both ends of a bidirectional stream on the server: read() requests (as
// above), write() responses.
template <class Request, class Response>
class grpc_server_stream : public grpc_server_reader<Request> {
public:
  explicit grpc_server_stream(::grpc::ServerReaderWriter<Response, ::grpc::ByteBuffer>& s) noexcept
      : grpc_server_reader<Request>(s), out_(&s) {}
  bool write(const Response& value, ::grpc::WriteOptions options = {}) {
    return out_->Write(value, options);
  }

private:
  ::grpc::ServerReaderWriter<Response, ::grpc::ByteBuffer>* out_;
};

namespace detail {

template <class Fn, class Request, class Response, grpc_kind Kind>
consteval bool grpc_handler_fits() {
  using ::grpc::ServerContext;
  using ::grpc::Status;
  if constexpr (Kind == grpc_kind::unary)
    return std::is_invocable_r_v<Status, const Fn&, ServerContext*, const Request&, Response&>;
  else if constexpr (Kind == grpc_kind::server_streaming)
    return std::is_invocable_r_v<Status, const Fn&, ServerContext*, const Request&,
                                 ::grpc::ServerWriter<Response>&>;
  else if constexpr (Kind == grpc_kind::client_streaming)
    return std::is_invocable_r_v<Status, const Fn&, ServerContext*, grpc_server_reader<Request>&,
                                 Response&>;
  else
    return std::is_invocable_r_v<Status, const Fn&, ServerContext*,
                                 grpc_server_stream<Request, Response>&>;
}

} // namespace detail

// A grpc::Service whose methods are declared in code, without a .proto: the
// constructor of a subclass registers its methods. Handlers run on gRPC's
// threads and may run concurrently (they are called as const).
class grpc_service : public ::grpc::Service {
protected:
  // Registers the handler of `method`; its signature follows the kind (see
  // the table at the top of this header).
  template <class Request, class Response, grpc_kind Kind, class Fn>
  void add(const grpc_method<Request, Response, Kind>& method, Fn fn) {
    static_assert(detail::grpc_handler_fits<Fn, Request, Response, Kind>(),
                  "bin_serializer: this handler does not fit the method's kind. It must be "
                  "callable as const and return grpc::Status:\n"
                  "  unary             fn(grpc::ServerContext*, const Request&, Response&)\n"
                  "  server_streaming  fn(grpc::ServerContext*, const Request&, "
                  "grpc::ServerWriter<Response>&)\n"
                  "  client_streaming  fn(grpc::ServerContext*, "
                  "bin_serializer::grpc_server_reader<Request>&, Response&)\n"
                  "  bidi_streaming    fn(grpc::ServerContext*, "
                  "bin_serializer::grpc_server_stream<Request, Response>&)");
    if constexpr (detail::grpc_handler_fits<Fn, Request, Response, Kind>() &&
                  detail::grpc_messages_own_v<Request, Response>) {
      namespace gi = ::grpc::internal;
      using ::grpc::ByteBuffer;
      using ::grpc::ServerContext;
      using ::grpc::Status;
      gi::MethodHandler* handler = nullptr;
      if constexpr (Kind == grpc_kind::unary) {
        handler = new gi::RpcMethodHandler<grpc_service, Request, Response>(
            [fn = std::move(fn)](grpc_service*, ServerContext* ctx, const Request* req,
                                 Response* resp) { return fn(ctx, *req, *resp); },
            this);
      } else if constexpr (Kind == grpc_kind::server_streaming) {
        handler = new gi::ServerStreamingHandler<grpc_service, Request, Response>(
            [fn = std::move(fn)](grpc_service*, ServerContext* ctx, const Request* req,
                                 ::grpc::ServerWriter<Response>* w) { return fn(ctx, *req, *w); },
            this);
      } else if constexpr (Kind == grpc_kind::client_streaming) {
        handler = new gi::ClientStreamingHandler<grpc_service, ByteBuffer, Response>(
            [fn = std::move(fn)](grpc_service*, ServerContext* ctx,
                                 ::grpc::ServerReader<ByteBuffer>* in, Response* resp) {
              grpc_server_reader<Request> reader(*in);
              Status s = fn(ctx, reader, *resp);
              return reader.status().ok() ? s : reader.status();
            },
            this);
      } else {
        handler = new gi::BidiStreamingHandler<grpc_service, ByteBuffer, Response>(
            [fn = std::move(fn)](grpc_service*, ServerContext* ctx,
                                 ::grpc::ServerReaderWriter<Response, ByteBuffer>* s) {
              grpc_server_stream<Request, Response> stream(*s);
              Status st = fn(ctx, stream);
              return stream.status().ok() ? st : stream.status();
            },
            this);
      }
      AddMethod(new gi::RpcServiceMethod(method.path, method.rpc_type, handler));
    }
  }

  // A unary method on gRPC's callback API (no thread of the synchronous
  // server's pool is held while a call waits). fn is either
  //   fn(grpc::CallbackServerContext*, Request&& request, Response* response)
  //       -> grpc::ServerUnaryReactor*   (finish it when the response is ready;
  //                                      *response lives until then, the request
  //                                      is yours: move it where you need it)
  // or, answered at once on gRPC's callback thread,
  //   fn(grpc::CallbackServerContext*, const Request&, Response&) -> grpc::Status.
  // The request is decoded here, so a malformed one ends the call with
  // INVALID_ARGUMENT, errc and offset (gRPC's own decode would answer
  // UNIMPLEMENTED with no message). A service with callback methods must be
  // served by a server that has the callback API (any grpc::Server since 1.32).
  template <class Request, class Response, class Fn>
  void add_callback(const grpc_method<Request, Response, grpc_kind::unary>& method, Fn fn) {
    using ::grpc::CallbackServerContext;
    using ::grpc::ServerUnaryReactor;
    constexpr bool reactor_form =
        std::is_invocable_r_v<ServerUnaryReactor*, const Fn&, CallbackServerContext*, Request&&,
                              Response*>;
    constexpr bool status_form =
        std::is_invocable_r_v<::grpc::Status, const Fn&, CallbackServerContext*, const Request&,
                              Response&>;
    static_assert(reactor_form || status_form,
                  "bin_serializer: a callback handler must be callable as const as\n"
                  "  fn(grpc::CallbackServerContext*, Request&&, Response*) -> "
                  "grpc::ServerUnaryReactor*\n"
                  "or\n"
                  "  fn(grpc::CallbackServerContext*, const Request&, Response&) -> grpc::Status");
    if constexpr ((reactor_form || status_form) && detail::grpc_messages_own_v<Request, Response>) {
      namespace gi = ::grpc::internal;
      auto* handler = new gi::CallbackUnaryHandler<::grpc::ByteBuffer, Response>(
          [fn = std::move(fn)](CallbackServerContext* ctx, const ::grpc::ByteBuffer* received,
                               Response* resp) -> ServerUnaryReactor* {
            Request req{};
            ::grpc::ByteBuffer bytes(*received); // shares the slices, no copy of the bytes
            ::grpc::Status s = detail::grpc_decode(bytes, req);
            if (!s.ok()) {
              ServerUnaryReactor* r = ctx->DefaultReactor();
              r->Finish(std::move(s));
              return r;
            }
            if constexpr (reactor_form) {
              return fn(ctx, std::move(req), resp);
            } else {
              ServerUnaryReactor* r = ctx->DefaultReactor();
              r->Finish(fn(ctx, static_cast<const Request&>(req), *resp));
              return r;
            }
          });
      auto* m = new gi::RpcServiceMethod(method.path, method.rpc_type, handler);
      m->SetServerApiType(gi::RpcServiceMethod::ApiType::CALL_BACK);
      AddMethod(m);
    }
  }

  // The older spelling, kept: a path instead of a grpc_method.
  // fn(grpc::ServerContext*, const Request&, Response&) -> grpc::Status
  template <class Request, class Response, class Fn>
  void add_unary(const char* path, Fn fn) {
    add(grpc_method<Request, Response, grpc_kind::unary>(path), std::move(fn));
  }

  // fn(grpc::ServerContext*, const Request&, grpc::ServerWriter<Response>&) -> grpc::Status
  template <class Request, class Response, class Fn>
  void add_server_streaming(const char* path, Fn fn) {
    add(grpc_method<Request, Response, grpc_kind::server_streaming>(path), std::move(fn));
  }
};

// ---- client -----------------------------------------------------------------
//
// Responses are received as the grpc::ByteBuffer gRPC already holds and
// decoded here, not inside gRPC: gRPC's clients drop the status of a failed
// Deserialize (the synchronous unary call ends with UNIMPLEMENTED "No message
// returned", a stream just ends, the callback call reports the server's
// status with an undecoded response), this way a malformed response is
// INVALID_ARGUMENT with errc and offset. Same single-slice decode, no extra
// copy.

// A unary call on a method registered by the caller (the older spelling;
// grpc_client::call does the registration itself):
//   grpc::internal::RpcMethod get(path, grpc::internal::RpcMethod::NORMAL_RPC, channel);
template <class Request, class Response>
::grpc::Status
grpc_unary_call(::grpc::ChannelInterface& channel, const ::grpc::internal::RpcMethod& method,
                ::grpc::ClientContext& context, const Request& request, Response& response) {
  static_assert(detail::grpc_messages_own_their_bytes<Request, Response>());
  if constexpr (detail::grpc_messages_own_v<Request, Response>) {
    ::grpc::ByteBuffer received;
    ::grpc::Status s =
        ::grpc::internal::BlockingUnaryCall(&channel, method, &context, request, &received);
    if (!s.ok()) return s;
    return detail::grpc_decode(received, response);
  } else {
    return {::grpc::StatusCode::INTERNAL, "bin_serializer: a message type with views"};
  }
}

namespace detail {

// What the two client streams that receive share: the gRPC stream, reading
// and decoding each response here (gRPC's own decode would lose the error),
// finishing, and cancelling a call left unfinished when it goes away.
template <class Stream, class Response>
class grpc_receiving_stream {
public:
  grpc_receiving_stream(grpc_receiving_stream&&) noexcept = default;
  grpc_receiving_stream& operator=(grpc_receiving_stream&&) = delete;
  ~grpc_receiving_stream() {
    if (stream_ && !finished_) { // gRPC requires Finish() before the stream goes
      context_->TryCancel();
      (void)stream_->Finish();
    }
  }

  // The next response; false at the end of the stream or on an error.
  bool read(Response& out) {
    if (!decode_error_.ok()) return false;
    ::grpc::ByteBuffer received;
    if (!stream_->Read(&received)) return false;
    ::grpc::Status s = grpc_decode(received, out);
    if (s.ok()) return true;
    decode_error_ = std::move(s);
    context_->TryCancel();
    return false;
  }

  // Call after the last read() returned false (gRPC's rule for Finish).
  ::grpc::Status finish() {
    finished_ = true;
    ::grpc::Status s = stream_->Finish();
    return decode_error_.ok() ? s : decode_error_;
  }

protected:
  grpc_receiving_stream(::grpc::ClientContext& context, Stream* stream)
      : context_(&context), stream_(stream) {}
  Stream& stream() noexcept { return *stream_; }

private:
  ::grpc::ClientContext* context_;
  std::unique_ptr<Stream> stream_;
  ::grpc::Status decode_error_ = ::grpc::Status::OK;
  bool finished_ = false;
};

} // namespace detail

// The client end of a server-streaming call: read() until false, then
// finish() gives the call's status, or the decode error that stopped the
// stream (the call is then cancelled). Cancelling the context (or
// destroying the reader before the end: it cancels) ends the call early.
template <class Response>
class grpc_stream_reader
    : public detail::grpc_receiving_stream<::grpc::ClientReader<::grpc::ByteBuffer>, Response> {
  using base = detail::grpc_receiving_stream<::grpc::ClientReader<::grpc::ByteBuffer>, Response>;

public:
  template <class Request>
  grpc_stream_reader(::grpc::ChannelInterface& channel, const ::grpc::internal::RpcMethod& method,
                     ::grpc::ClientContext& context, const Request& request)
      : base(context, ::grpc::internal::ClientReaderFactory<::grpc::ByteBuffer>::Create(
                          &channel, method, &context, request)) {
    static_assert(detail::grpc_messages_own_their_bytes<Request, Response>());
  }
};

// The client end of a client-streaming call: write() requests, then
// finish(response) (which closes the writing side if writes_done() was not
// called) gives the call's status, or the decode error of the response.
template <class Request, class Response>
class grpc_stream_writer {
public:
  grpc_stream_writer(::grpc::ChannelInterface& channel, const ::grpc::internal::RpcMethod& method,
                     ::grpc::ClientContext& context)
      : context_(&context), received_(std::make_unique<::grpc::ByteBuffer>()),
        writer_(::grpc::internal::ClientWriterFactory<Request>::Create(&channel, method, &context,
                                                                       received_.get())) {
    static_assert(detail::grpc_messages_own_their_bytes<Request, Response>());
  }
  grpc_stream_writer(grpc_stream_writer&&) noexcept = default;
  grpc_stream_writer& operator=(grpc_stream_writer&&) = delete;
  ~grpc_stream_writer() {
    if (writer_ && !finished_) {
      context_->TryCancel();
      (void)writer_->Finish();
    }
  }

  // False when the stream is broken (the server ended the call): finish()
  // then tells why.
  bool write(const Request& value, ::grpc::WriteOptions options = {}) {
    return writer_->Write(value, options);
  }
  bool writes_done() {
    done_ = true;
    return writer_->WritesDone();
  }
  ::grpc::Status finish(Response& response) {
    if (!done_) (void)writes_done();
    finished_ = true;
    ::grpc::Status s = writer_->Finish();
    if (!s.ok()) return s;
    return detail::grpc_decode(*received_, response);
  }

private:
  ::grpc::ClientContext* context_;
  std::unique_ptr<::grpc::ByteBuffer> received_; // gRPC writes the response here
  std::unique_ptr<::grpc::ClientWriter<Request>> writer_;
  bool done_ = false, finished_ = false;
};

// The client end of a bidirectional stream: write() and read() (from one
// thread each at most), writes_done() when there is nothing more to send,
// then finish() gives the call's status or the decode error that stopped
// reading (the call is then cancelled).
template <class Request, class Response>
class grpc_bidi_stream
    : public detail::grpc_receiving_stream<::grpc::ClientReaderWriter<Request, ::grpc::ByteBuffer>,
                                           Response> {
  using base =
      detail::grpc_receiving_stream<::grpc::ClientReaderWriter<Request, ::grpc::ByteBuffer>,
                                    Response>;

public:
  grpc_bidi_stream(::grpc::ChannelInterface& channel, const ::grpc::internal::RpcMethod& method,
                   ::grpc::ClientContext& context)
      : base(context,
             ::grpc::internal::ClientReaderWriterFactory<Request, ::grpc::ByteBuffer>::Create(
                 &channel, method, &context)) {
    static_assert(detail::grpc_messages_own_their_bytes<Request, Response>());
  }

  bool write(const Request& value, ::grpc::WriteOptions options = {}) {
    return this->stream().Write(value, options);
  }
  bool writes_done() { return this->stream().WritesDone(); }
};

// Calls grpc_methods over one channel. Each method is registered on the
// channel the first time it is called (an RpcMethod kept for the client's
// lifetime; gRPC then skips interning the path on every call); copies share
// those registrations. Thread-safe: calls may run concurrently from any
// number of threads.
class grpc_client {
public:
  explicit grpc_client(std::shared_ptr<::grpc::ChannelInterface> channel)
      : state_(std::make_shared<state>(std::move(channel))) {}

  // Unary: the response decoded into `response`.
  template <class Request, class Response>
  ::grpc::Status call(::grpc::ClientContext& context,
                      const grpc_method<Request, Response, grpc_kind::unary>& method,
                      const Request& request, Response& response) const {
    if constexpr (detail::grpc_messages_own_v<Request, Response>)
      return grpc_unary_call(channel(), rpc(method), context, request, response);
    else
      return {::grpc::StatusCode::INTERNAL, "bin_serializer: a message type with views"};
  }

  // Server streaming: read() the responses, then finish().
  template <class Request, class Response>
  grpc_stream_reader<Response>
  call(::grpc::ClientContext& context,
       const grpc_method<Request, Response, grpc_kind::server_streaming>& method,
       const Request& request) const {
    if constexpr (detail::grpc_messages_own_v<Request, Response>)
      return {channel(), rpc(method), context, request};
    else
      std::terminate(); // refused by grpc_method's static_assert
  }

  // Client streaming: write() the requests, then finish(response).
  template <class Request, class Response>
  grpc_stream_writer<Request, Response>
  call(::grpc::ClientContext& context,
       const grpc_method<Request, Response, grpc_kind::client_streaming>& method) const {
    if constexpr (detail::grpc_messages_own_v<Request, Response>)
      return {channel(), rpc(method), context};
    else
      std::terminate(); // refused by grpc_method's static_assert
  }

  // Bidirectional: write() / writes_done() and read(), then finish().
  template <class Request, class Response>
  grpc_bidi_stream<Request, Response>
  call(::grpc::ClientContext& context,
       const grpc_method<Request, Response, grpc_kind::bidi_streaming>& method) const {
    if constexpr (detail::grpc_messages_own_v<Request, Response>)
      return {channel(), rpc(method), context};
    else
      std::terminate(); // refused by grpc_method's static_assert
  }

  // Unary on gRPC's callback API: returns at once; done(grpc::Status) runs
  // once, on a gRPC thread, after `response` was decoded (or the call
  // failed: a malformed response is INVALID_ARGUMENT with errc and offset,
  // which gRPC's own callback decode would lose). `context` and `response`
  // must stay alive until then; the request is serialized before call_async
  // returns. done must not throw.
  template <class Request, class Response, class Done>
  void call_async(::grpc::ClientContext& context,
                  const grpc_method<Request, Response, grpc_kind::unary>& method,
                  const Request& request, Response& response, Done done) const {
    static_assert(std::is_invocable_v<Done&, ::grpc::Status>,
                  "bin_serializer: call_async's done must be callable as done(grpc::Status)");
    if constexpr (detail::grpc_messages_own_v<Request, Response>)
      call_async_owned(context, method, request, response, std::move(done));
  }

private:
  template <class Request, class Response, class Done>
  void call_async_owned(::grpc::ClientContext& context,
                        const grpc_method<Request, Response, grpc_kind::unary>& method,
                        const Request& request, Response& response, Done done) const {
    struct pending {
      ::grpc::ByteBuffer received;
      Response* out;
      Done done;
    };
    auto* p = new pending{{}, &response, std::move(done)};
    ::grpc::internal::CallbackUnaryCall<Request, ::grpc::ByteBuffer>(
        &channel(), rpc(method), &context, &request, &p->received, [p](::grpc::Status s) {
          if (s.ok()) s = detail::grpc_decode(p->received, *p->out);
          std::unique_ptr<pending> owned(p);
          owned->done(std::move(s));
        });
  }

public:
  [[nodiscard]] ::grpc::ChannelInterface& channel() const noexcept { return *state_->channel; }

private:
  struct state {
    explicit state(std::shared_ptr<::grpc::ChannelInterface> c) : channel(std::move(c)) {}
    std::shared_ptr<::grpc::ChannelInterface> channel;
    std::mutex mutex;
    // One table per kind, by path; a node does not move, so its key is the
    // name the RpcMethod keeps (the descriptor's path need not outlive it).
    std::map<std::string, std::unique_ptr<::grpc::internal::RpcMethod>, std::less<>> methods[4];
  };

  template <class Request, class Response, grpc_kind Kind>
  const ::grpc::internal::RpcMethod& rpc(const grpc_method<Request, Response, Kind>& m) const {
    auto& table = state_->methods[static_cast<std::size_t>(Kind)];
    const std::scoped_lock lock(state_->mutex);
    auto it = table.find(std::string_view(m.path));
    if (it == table.end()) {
      it = table.emplace(m.path, nullptr).first;
      it->second = std::make_unique<::grpc::internal::RpcMethod>(it->first.c_str(), m.rpc_type,
                                                                 state_->channel);
    }
    return *it->second;
  }

  std::shared_ptr<state> state_;
};

} // namespace bin_serializer

namespace grpc {

// Every bin_serializer message type, and (to say why they cannot be one) the
// serializable types that hold views: their Deserialize does not compile.
template <class T>
class SerializationTraits<T, std::enable_if_t<::bin_serializer::grpc_enabled_v<T> ||
                                              ::bin_serializer::detail::grpc_borrowing_v<T>>> {
public:
  static Status Serialize(const T& value, ByteBuffer* buffer, bool* own_buffer) {
    return ::bin_serializer::detail::grpc_serialize(value, buffer, own_buffer);
  }
  static Status Deserialize(ByteBuffer* buffer, T* value) {
    return ::bin_serializer::detail::grpc_deserialize(buffer, value);
  }
};

} // namespace grpc
