#include "api/readiness.h"

#include "common/errors.h"

namespace hotel::api {

absl::Status Readiness::CheckStarted() const {
  if (!started()) return UnavailableError("STARTING", "the service is starting; the database schema is not ready yet");
  return absl::OkStatus();
}

}  // namespace hotel::api
