// gRPC without .proto files: bin_serializer values as request and response
// messages.
//
// Including this header (after or instead of <grpcpp/grpcpp.h>; the program
// must link gRPC++) specialises grpc::SerializationTraits for every type that
// is Serializable in grpc_options_v<T>, so a service can take and return plain
// structs:
//
//   struct Quote { std::uint32_t symbol; double bid, ask; };
//   struct QuoteService : bin_serializer::grpc_service {
//     QuoteService() {
//       add_unary<Symbol, Quote>("/quotes.Quotes/Get",
//           [](grpc::ServerContext*, const Symbol& in, Quote& out) { ...; return grpc::Status::OK; });
//     }
//   };
//   ...
//   Quote q;
//   grpc::Status s = bin_serializer::grpc_unary_call(*channel, get_method, ctx, Symbol{7}, q);
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
// On the server the status goes back to the client without calling the
// handler; on the client it is the call's status.
//
// Decoded values must own their bytes: the received slice is released when
// Deserialize returns, so std::string_view / span / array_view / sequence_view
// members would dangle.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_service_method.h>
#include <grpcpp/impl/serialization_traits.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/method_handler.h>
#include <grpcpp/support/slice.h>
#include <grpcpp/support/sync_stream.h>

#include <cstddef>
#include <cstdint>
#include <memory>
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

// Which types get the gRPC traits: the ones Serializable in grpc_options_v<T>.
// Specialise to false to keep a type away from them.
template <class T>
inline constexpr bool grpc_enabled_v = Serializable<T, grpc_options_v<T>>;

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
  s += ')';
  return s;
}

// The status a failed decode is reported with.
inline ::grpc::Status grpc_decode_status(error e) {
  return {::grpc::StatusCode::INVALID_ARGUMENT, grpc_error_text(e)};
}

namespace detail {

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

} // namespace detail

// A grpc::Service whose methods are declared in code, without a .proto: the
// constructor of a subclass registers its methods. Handlers run on gRPC's
// threads and may run concurrently.
class grpc_service : public ::grpc::Service {
protected:
  // fn(grpc::ServerContext*, const Request&, Response&) -> grpc::Status
  template <class Request, class Response, class Fn>
  void add_unary(const char* path, Fn fn) {
    using handler = ::grpc::internal::RpcMethodHandler<grpc_service, Request, Response>;
    AddMethod(new ::grpc::internal::RpcServiceMethod(
        path, ::grpc::internal::RpcMethod::NORMAL_RPC,
        new handler([fn = std::move(fn)](grpc_service*, ::grpc::ServerContext* ctx,
                                         const Request* req,
                                         Response* resp) { return fn(ctx, *req, *resp); },
                    this)));
  }

  // fn(grpc::ServerContext*, const Request&, grpc::ServerWriter<Response>&) -> grpc::Status
  template <class Request, class Response, class Fn>
  void add_server_streaming(const char* path, Fn fn) {
    using handler = ::grpc::internal::ServerStreamingHandler<grpc_service, Request, Response>;
    AddMethod(new ::grpc::internal::RpcServiceMethod(
        path, ::grpc::internal::RpcMethod::SERVER_STREAMING,
        new handler([fn = std::move(fn)](
                        grpc_service*, ::grpc::ServerContext* ctx, const Request* req,
                        ::grpc::ServerWriter<Response>* writer) { return fn(ctx, *req, *writer); },
                    this)));
  }
};

// Client side. A method is a path and a kind; keep the RpcMethod for the
// channel's lifetime (it caches the registration):
//   grpc::internal::RpcMethod get(path, grpc::internal::RpcMethod::NORMAL_RPC, channel);
//
// The response is received as the ByteBuffer gRPC already holds and decoded
// here, not inside gRPC: gRPC's synchronous client drops the status of a failed
// Deserialize (the call would end with UNIMPLEMENTED "No message returned"),
// this way a malformed response is INVALID_ARGUMENT with errc and offset. Same
// single-slice decode, no extra copy.
template <class Request, class Response>
::grpc::Status
grpc_unary_call(::grpc::ChannelInterface& channel, const ::grpc::internal::RpcMethod& method,
                ::grpc::ClientContext& context, const Request& request, Response& response) {
  ::grpc::ByteBuffer received;
  ::grpc::Status s =
      ::grpc::internal::BlockingUnaryCall(&channel, method, &context, request, &received);
  if (!s.ok()) return s;
  return detail::grpc_deserialize(&received, &response);
}

// The client end of a server-streaming call, decoding each message itself
// (for the reason above): read() until false, then finish() gives the call's
// status, or the decode error that stopped the stream (the call is then
// cancelled).
template <class Response>
class grpc_stream_reader {
public:
  template <class Request>
  grpc_stream_reader(::grpc::ChannelInterface& channel, const ::grpc::internal::RpcMethod& method,
                     ::grpc::ClientContext& context, const Request& request)
      : context_(&context),
        reader_(::grpc::internal::ClientReaderFactory<::grpc::ByteBuffer>::Create(
            &channel, method, &context, request)) {}

  // The next message; false at the end of the stream or on an error.
  bool read(Response& out) {
    if (!decode_error_.ok()) return false;
    ::grpc::ByteBuffer received;
    if (!reader_->Read(&received)) return false;
    ::grpc::Status s = detail::grpc_deserialize(&received, &out);
    if (s.ok()) return true;
    decode_error_ = std::move(s);
    context_->TryCancel();
    return false;
  }

  ::grpc::Status finish() {
    ::grpc::Status s = reader_->Finish();
    return decode_error_.ok() ? s : decode_error_;
  }

private:
  ::grpc::ClientContext* context_;
  std::unique_ptr<::grpc::ClientReader<::grpc::ByteBuffer>> reader_;
  ::grpc::Status decode_error_ = ::grpc::Status::OK;
};

} // namespace bin_serializer

namespace grpc {

template <class T>
class SerializationTraits<T, std::enable_if_t<::bin_serializer::grpc_enabled_v<T>>> {
public:
  static Status Serialize(const T& value, ByteBuffer* buffer, bool* own_buffer) {
    return ::bin_serializer::detail::grpc_serialize(value, buffer, own_buffer);
  }
  static Status Deserialize(ByteBuffer* buffer, T* value) {
    return ::bin_serializer::detail::grpc_deserialize(buffer, value);
  }
};

} // namespace grpc
