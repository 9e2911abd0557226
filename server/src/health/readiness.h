// What the server knows about its own readiness: start time, schema version, and whether
// the database answered the last health check. Written by the health monitor, read by
// every handler.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "grpcpp/support/status.h"

namespace hotel {

class Readiness {
 public:
  Readiness() : started_at_(absl::Now()) {}

  absl::Time started_at() const { return started_at_; }
  bool started() const { return schema_version_.load() > 0; }
  int schema_version() const { return schema_version_.load(); }
  void MarkStarted(int schema_version) { schema_version_.store(schema_version); }

  bool database_ok() const { return database_ok_.load(); }
  void SetDatabaseOk(bool ok) { database_ok_.store(ok); }

  // UNAVAILABLE until migrations are applied.
  absl::Status CheckStarted() const;

 private:
  const absl::Time started_at_;
  std::atomic<int> schema_version_{0};
  std::atomic<bool> database_ok_{false};
};

// Runs one RPC body: refuses while starting and requests with NUL characters in their text,
// turns the absl::Status into a google.rpc.Status.
grpc::Status HandleRpc(const Readiness& readiness, const google::protobuf::Message& request,
                       const std::function<absl::Status()>& body);

}  // namespace hotel
