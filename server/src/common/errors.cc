#include "common/errors.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "google/rpc/error_details.pb.h"

namespace hotel {
namespace {

constexpr absl::string_view kReasonPayload = "type.googleapis.com/google.rpc.ErrorInfo";
constexpr absl::string_view kBadRequestPayload = "type.googleapis.com/google.rpc.BadRequest";

absl::Status WithReason(absl::Status status, absl::string_view reason) {
  google::rpc::ErrorInfo info;
  info.set_reason(std::string(reason));
  info.set_domain(std::string(kErrorDomain));
  status.SetPayload(kReasonPayload, absl::Cord(info.SerializeAsString()));
  return status;
}

// Length of the valid UTF-8 sequence at the start of text, or 0 when it is not one.
size_t Utf8SequenceLength(absl::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const auto continuation = [&](size_t i) { return i < text.size() && (byte(i) & 0xC0) == 0x80; };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (lead == 0xE0 && byte(1) < 0xA0) return 0;  // overlong
    if (lead == 0xED && byte(1) > 0x9F) return 0;  // surrogate
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (lead == 0xF0 && byte(1) < 0x90) return 0;  // overlong
    if (lead == 0xF4 && byte(1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

std::string DefaultReason(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case absl::StatusCode::kNotFound:
      return "NOT_FOUND";
    case absl::StatusCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case absl::StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case absl::StatusCode::kAborted:
      return "ABORTED";
    case absl::StatusCode::kUnavailable:
      return "UNAVAILABLE";
    case absl::StatusCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case absl::StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    default:
      return "INTERNAL";
  }
}

bool IsValidUtf8(absl::string_view text) {
  while (!text.empty()) {
    const size_t n = Utf8SequenceLength(text);
    if (n == 0) return false;
    text.remove_prefix(n);
  }
  return true;
}

std::string ValidUtf8(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t n = Utf8SequenceLength(text);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      text.remove_prefix(1);
    } else {
      out.append(text.data(), n);
      text.remove_prefix(n);
    }
  }
  return out;
}

void FieldErrors::Add(std::string field, std::string description) {
  violations_.push_back({ValidUtf8(field), ValidUtf8(description)});
}

absl::Status FieldErrors::ToStatus(absl::string_view reason) const {
  if (violations_.empty()) return absl::OkStatus();
  std::string message;
  google::rpc::BadRequest bad_request;
  for (const auto& v : violations_) {
    absl::StrAppend(&message, message.empty() ? "" : "; ", v.field, ": ", v.description);
    auto* out = bad_request.add_field_violations();
    out->set_field(v.field);
    out->set_description(v.description);
  }
  absl::Status status = WithReason(absl::InvalidArgumentError(message), reason);
  status.SetPayload(kBadRequestPayload, absl::Cord(bad_request.SerializeAsString()));
  return status;
}

absl::Status InvalidField(std::string field, std::string description, absl::string_view reason) {
  FieldErrors errors;
  errors.Add(std::move(field), std::move(description));
  return errors.ToStatus(reason);
}

absl::Status NotFoundError(absl::string_view reason, std::string message) {
  return WithReason(absl::NotFoundError(message), reason);
}

absl::Status FailedPreconditionError(absl::string_view reason, std::string message) {
  return WithReason(absl::FailedPreconditionError(message), reason);
}

absl::Status AlreadyExistsError(absl::string_view reason, std::string message) {
  return WithReason(absl::AlreadyExistsError(message), reason);
}

absl::Status AbortedError(absl::string_view reason, std::string message) {
  return WithReason(absl::AbortedError(message), reason);
}

absl::Status UnavailableError(absl::string_view reason, std::string message) {
  return WithReason(absl::UnavailableError(message), reason);
}

absl::Status ResourceExhaustedError(absl::string_view reason, std::string message) {
  return WithReason(absl::ResourceExhaustedError(message), reason);
}

std::string ErrorReason(const absl::Status& status) {
  auto payload = status.GetPayload(kReasonPayload);
  google::rpc::ErrorInfo info;
  if (!payload || !info.ParseFromString(std::string(*payload))) return "";
  return info.reason();
}

std::vector<FieldViolation> FieldViolations(const absl::Status& status) {
  std::vector<FieldViolation> out;
  auto payload = status.GetPayload(kBadRequestPayload);
  google::rpc::BadRequest bad_request;
  if (!payload || !bad_request.ParseFromString(std::string(*payload))) return out;
  for (const auto& v : bad_request.field_violations()) out.push_back({v.field(), v.description()});
  return out;
}

std::vector<std::string> ViolatedFields(const absl::Status& status) {
  std::vector<std::string> fields;
  for (auto& v : FieldViolations(status)) fields.push_back(std::move(v.field));
  return fields;
}

absl::Status Prefixed(const absl::Status& status, absl::string_view prefix) {
  absl::Status out(status.code(), absl::StrCat(prefix, status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

}  // namespace hotel
