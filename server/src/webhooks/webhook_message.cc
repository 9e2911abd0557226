#include "webhooks/webhook_message.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/change_cursor.h"
#include "common/trace_context.h"
#include "google/protobuf/util/json_util.h"
#include "webhooks/webhook_signature.h"

namespace hotel::webhooks {

absl::StatusOr<Headers> SignedHeaders(const std::vector<std::string>& secrets, const std::string& id, int64_t timestamp,
                                      const std::string& body) {
  std::vector<std::string> signatures;
  for (const auto& secret : secrets) {
    auto signature = SignatureV1(secret, id, timestamp, body);
    if (!signature.ok()) return signature.status();
    signatures.push_back(*std::move(signature));
  }
  return Headers{{"webhook-id", id},
                 {"webhook-timestamp", absl::StrCat(timestamp)},
                 {"webhook-signature", absl::StrJoin(signatures, " ")}};
}

std::string PingBody(const std::string& cursor) {
  // A cursor is base64url: nothing in it needs escaping.
  return absl::StrCat(R"({"type":"ping","data":[],"next_cursor":")", cursor, R"("})");
}

absl::StatusOr<std::string> BatchBody(const hotel::v1::ListChangesResponse& page) {
  // The gateway's JSON (protojson with EmitUnpopulated): C++'s printer has no option for the
  // unset message fields, so an unset `resource` or `previous` is written as null here.
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string body = R"({"data":[)";
  for (int i = 0; i < page.data_size(); ++i) {
    std::string change;
    auto status = google::protobuf::util::MessageToJsonString(page.data(i), &change, options);
    if (!status.ok()) return absl::InternalError(std::string(status.message()));
    for (const auto& [unset, field] : {std::pair{!page.data(i).has_resource(), R"(,"resource":null)"},
                                       std::pair{!page.data(i).has_previous(), R"(,"previous":null)"}}) {
      if (unset && !change.empty() && change.back() == '}') change.insert(change.size() - 1, field);
    }
    absl::StrAppend(&body, i > 0 ? "," : "", change);
  }
  // A cursor is base64url: nothing in it needs escaping.
  absl::StrAppend(&body, R"(],"next_cursor":")", page.next_cursor(), R"("})");
  return body;
}

absl::StatusOr<BatchFrame> FrameBatch(const std::vector<changes::ChangeRecord>& records, hotel::v1::ChangeView view,
                                      int64_t scanned_through, size_t max_bytes) {
  hotel::v1::ListChangesResponse page;
  for (const auto& record : records) {
    if (auto s = changes::ToChangeProto(record, view, page.add_data()); !s.ok()) return s;
  }
  while (true) {
    const bool whole = page.data_size() == static_cast<int>(records.size());
    const int64_t through =
        whole ? std::max(scanned_through, records.empty() ? 0 : records.back().seq) : records[page.data_size() - 1].seq;
    page.set_next_cursor(EncodeChangeCursor(through));
    auto body = BatchBody(page);
    if (!body.ok()) return body.status();
    if (body->size() <= max_bytes || page.data_size() <= 1)
      return BatchFrame{*std::move(body), through, page.data_size()};
    page.mutable_data()->DeleteSubrange(page.data_size() / 2, page.data_size() - page.data_size() / 2);
  }
}

std::vector<std::string> BatchTraceIds(absl::string_view body, size_t max) {
  constexpr absl::string_view kField = "\"trace_id\":\"";
  std::vector<std::string> out;
  for (size_t at = body.find(kField); at != absl::string_view::npos && out.size() < max;
       at = body.find(kField, at + 1)) {
    const absl::string_view id = body.substr(at + kField.size(), kTraceIdLength);
    if (IsValidTraceId(id) && std::find(out.begin(), out.end(), id) == out.end()) out.emplace_back(id);
  }
  return out;
}

std::string NewMessageId() {
  absl::BitGen random;
  return absl::StrCat("msg_", absl::Hex(absl::Uniform<uint64_t>(random), absl::kZeroPad16),
                      absl::Hex(absl::Uniform<uint64_t>(random), absl::kZeroPad16));
}

std::optional<absl::Duration> NextRetry(const RetryPolicy& policy, int failures, const HttpResult& result,
                                        absl::BitGenRef random) {
  if (failures < 1 || failures >= static_cast<int>(policy.schedule.size())) return std::nullopt;
  absl::Duration wait = policy.schedule[failures] * policy.scale;
  if (policy.jitter > 0 && wait > absl::ZeroDuration()) {
    wait *= absl::Uniform(random, 1.0 - policy.jitter, 1.0 + policy.jitter);
  }
  if ((result.status == 429 || result.status == 503) && result.retry_after) {
    wait = std::max(wait, std::min(*result.retry_after, policy.max_retry_after));
  }
  return wait;
}

}  // namespace hotel::webhooks
