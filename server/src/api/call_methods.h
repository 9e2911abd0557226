// What the call runner knows of a call's method, from its declaration in the protos: reads
// (idempotency_level NO_SIDE_EFFECTS), writes and uploads (client streams) get their own default
// deadline, server streams live as long as their caller wants, and an answer with a
// change_cursor promises every change up to it. Resolved once per method, when the server
// registers its services, instead of by scanning the request's file on every call.
#pragma once

#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace hotel::api {

enum class CallKind { kRead, kWrite, kStream, kUpload };

struct CallMethod {
  const google::protobuf::MethodDescriptor* descriptor = nullptr;  // null: a request of no method
  CallKind kind = CallKind::kWrite;                                // unknown: the stricter default
  bool answers_change_cursor = false;
};

// Resolves every method of service (each takes a request message of its own).
void RegisterCallMethods(const google::protobuf::ServiceDescriptor& service);

// The method that takes request: as registered; one of a service never registered (tests that
// run a handler without the server) is resolved on its first call and kept.
const CallMethod& CallMethodOf(const google::protobuf::Message& request);

inline CallKind CallKindOf(const google::protobuf::Message& request) { return CallMethodOf(request).kind; }

}  // namespace hotel::api
