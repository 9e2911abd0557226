#include "api/idempotency.h"

#include <regex>

#include "absl/strings/str_cat.h"
#include "common/page_token.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace hotel::api {

void CheckRequestId(absl::string_view request_id, FieldErrors& errors) {
  static const std::regex kPattern("[A-Za-z0-9._:-]{1,100}");
  if (!request_id.empty() && !std::regex_match(request_id.begin(), request_id.end(), kPattern)) {
    errors.Add("request_id", "must be 1 to 100 letters, digits, '-', '_', '.' or ':' (a UUID is a good choice)");
  }
}

std::string RequestFingerprint(const google::protobuf::Message& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&coded);
  }
  return FilterFingerprint(absl::StrCat(request.GetTypeName(), "|", bytes));
}

absl::Status RequestIdReusedError() {
  return FailedPreconditionError("REQUEST_ID_REUSED",
                                 "request_id was already used for a different request; use a new request_id");
}

}  // namespace hotel::api
