#include "api/call_methods.h"

#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/descriptor.pb.h"

namespace hotel::api {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::MethodDescriptor;

CallMethod Resolve(const MethodDescriptor* method) {
  CallMethod resolved;
  resolved.descriptor = method;
  if (method == nullptr) return resolved;
  if (method->server_streaming()) {
    resolved.kind = CallKind::kStream;
  } else if (method->client_streaming()) {
    resolved.kind = CallKind::kUpload;
  } else if (method->options().idempotency_level() == google::protobuf::MethodOptions::NO_SIDE_EFFECTS) {
    resolved.kind = CallKind::kRead;
  }
  resolved.answers_change_cursor = method->output_type()->FindFieldByName("change_cursor") != nullptr;
  return resolved;
}

// The method declared beside a request type that no registered service has.
const MethodDescriptor* Find(const Descriptor* type) {
  const google::protobuf::FileDescriptor* file = type->file();
  for (int s = 0; s < file->service_count(); ++s) {
    const google::protobuf::ServiceDescriptor* service = file->service(s);
    for (int m = 0; m < service->method_count(); ++m) {
      if (service->method(m)->input_type() == type) return service->method(m);
    }
  }
  return nullptr;
}

// Every method resolved so far, by its request type; never destroyed (calls may still look up
// while the process exits).
class Methods {
 public:
  static Methods& All() {
    static Methods* const methods = new Methods();
    return *methods;
  }

  void Register(const MethodDescriptor* method) {
    absl::MutexLock lock(&mu_);
    by_request_.insert_or_assign(method->input_type(), Resolve(method));
  }

  const CallMethod& Of(const Descriptor* type) {
    {
      absl::ReaderMutexLock lock(&mu_);
      if (auto found = by_request_.find(type); found != by_request_.end()) return found->second;
    }
    absl::MutexLock lock(&mu_);
    return by_request_.try_emplace(type, Resolve(Find(type))).first->second;
  }

 private:
  absl::Mutex mu_;
  std::unordered_map<const Descriptor*, CallMethod> by_request_ ABSL_GUARDED_BY(mu_);  // node-based: stable
};

}  // namespace

void RegisterCallMethods(const google::protobuf::ServiceDescriptor& service) {
  for (int m = 0; m < service.method_count(); ++m) Methods::All().Register(service.method(m));
}

const CallMethod& CallMethodOf(const google::protobuf::Message& request) {
  return Methods::All().Of(request.GetDescriptor());
}

}  // namespace hotel::api
