#include "api/change_cursor_interceptor.h"

#include <grpcpp/support/byte_buffer.h>

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/change_cursor.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"

namespace hotel::api {
namespace {

using google::protobuf::internal::WireFormatLite;

// Appends the field to the serialized response instead of parsing and re-serialising it: in the
// protobuf wire format the last occurrence of a singular field wins, and handlers never set it.
class ChangeCursorInterceptor : public grpc::experimental::Interceptor {
 public:
  ChangeCursorInterceptor(int field_number, const std::function<std::optional<int64_t>()>& position)
      : field_number_(field_number), position_(position) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using Hook = grpc::experimental::InterceptionHookPoints;
    // Sampled once the request has arrived, before the handler runs. (Not when the interceptor
    // is made: the synchronous server makes it ahead of the call, when the previous one arrived.)
    if (methods->QueryInterceptionHookPoint(Hook::POST_RECV_MESSAGE)) {
      if (auto position = position_()) cursor_ = EncodeChangeCursor(*position);
    }
    if (methods->QueryInterceptionHookPoint(Hook::PRE_SEND_MESSAGE) && !cursor_.empty()) {
      if (grpc::ByteBuffer* buffer = methods->GetSerializedSendMessage(); buffer != nullptr) Append(*buffer);
    }
    methods->Proceed();
  }

 private:
  void Append(grpc::ByteBuffer& buffer) const {
    std::string field;
    {
      google::protobuf::io::StringOutputStream stream(&field);
      google::protobuf::io::CodedOutputStream out(&stream);
      WireFormatLite::WriteString(field_number_, cursor_, &out);
    }
    std::vector<grpc::Slice> slices;
    if (!buffer.Dump(&slices).ok()) return;
    slices.emplace_back(field);
    grpc::ByteBuffer stamped(slices.data(), slices.size());
    buffer.Swap(&stamped);
  }

  const int field_number_;
  const std::function<std::optional<int64_t>()>& position_;
  std::string cursor_;
};

}  // namespace

int ChangeCursorFieldNumber(const char* method) {
  // "/hotel.v1.RoomService/ListRooms" → service "hotel.v1.RoomService", method "ListRooms".
  const absl::string_view name = method == nullptr ? "" : method;
  const size_t slash = name.rfind('/');
  if (name.size() < 2 || name[0] != '/' || slash == 0 || slash == absl::string_view::npos) return 0;
  const auto* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(std::string(name.substr(1, slash - 1)));
  if (service == nullptr) return 0;
  const auto* rpc = service->FindMethodByName(std::string(name.substr(slash + 1)));
  if (rpc == nullptr || rpc->server_streaming()) return 0;
  const auto* field = rpc->output_type()->FindFieldByName("change_cursor");
  if (field == nullptr || field->type() != google::protobuf::FieldDescriptor::TYPE_STRING || field->is_repeated()) {
    return 0;
  }
  return field->number();
}

grpc::experimental::Interceptor* ChangeCursorInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  const int field_number = ChangeCursorFieldNumber(info->method());
  if (field_number == 0) return nullptr;
  return new ChangeCursorInterceptor(field_number, position_);
}

}  // namespace hotel::api
