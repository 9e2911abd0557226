// Recoverable errors are absl::Status inside the server. Each carries a machine-readable
// reason (google.rpc.ErrorInfo.reason) and, for bad input, one violation per bad field
// (google.rpc.BadRequest); api::ToGrpcStatus puts both on the wire for REST and gRPC clients.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hotel {

inline constexpr absl::string_view kErrorDomain = "hotel.v1";

struct FieldViolation {
  std::string field;
  std::string description;
};

// Collects every bad field of a request so the client learns about all of them at once.
class FieldErrors {
 public:
  void Add(std::string field, std::string description);
  bool empty() const { return violations_.empty(); }
  // OK when nothing was added; otherwise INVALID_ARGUMENT naming every field.
  absl::Status ToStatus(absl::string_view reason = "INVALID_ARGUMENT") const;

 private:
  std::vector<FieldViolation> violations_;
};

absl::Status InvalidField(std::string field, std::string description, absl::string_view reason = "INVALID_ARGUMENT");
absl::Status NotFoundError(absl::string_view reason, std::string message);
absl::Status FailedPreconditionError(absl::string_view reason, std::string message);
absl::Status AlreadyExistsError(absl::string_view reason, std::string message);
absl::Status AbortedError(absl::string_view reason, std::string message);
absl::Status UnavailableError(absl::string_view reason, std::string message);
absl::Status ResourceExhaustedError(absl::string_view reason, std::string message);

// The ErrorInfo reason attached to status, or "" when there is none.
std::string ErrorReason(const absl::Status& status);
// status with prefix before its message (the item or field it is about), its reason and
// violations kept.
absl::Status Prefixed(const absl::Status& status, absl::string_view prefix);
std::vector<FieldViolation> FieldViolations(const absl::Status& status);
// Just the field names of FieldViolations, in order.
std::vector<std::string> ViolatedFields(const absl::Status& status);

// text with every byte that is not part of valid UTF-8 replaced by U+FFFD: error texts that
// quote client input (cut to a length, or raw) must still serialise as protobuf strings.
// Whether text is well-formed UTF-8.
bool IsValidUtf8(absl::string_view text);
std::string ValidUtf8(absl::string_view text);

// The reason a status of this code carries when it was given none ("NOT_FOUND", ...).
std::string DefaultReason(absl::StatusCode code);

}  // namespace hotel
