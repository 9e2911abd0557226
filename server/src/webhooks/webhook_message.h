// What a delivery sends (pure, unit-tested): the Standard Webhooks headers, the bodies of pings and
// batches (the JSON of GET /changes), the retry schedule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/random/random.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "changes/change_repository.h"
#include "hotel/v1/changes.pb.h"
#include "webhooks/webhook_http.h"

namespace hotel::webhooks {

// webhook-id, webhook-timestamp and webhook-signature (one "v1,..." per secret, space-separated,
// for a rotation's grace period) of body.
absl::StatusOr<Headers> SignedHeaders(const std::vector<std::string>& secrets, const std::string& id, int64_t timestamp,
                                      const std::string& body);

// A ping: {"type": "ping", "data": [], "next_cursor": cursor}.
std::string PingBody(const std::string& cursor);

// Changes at most per batch and the size a batch stops growing at (bytes of its JSON).
inline constexpr int kMaxBatchChanges = 100;
inline constexpr size_t kMaxBatchBytes = 256 * 1024;
// A batch cut by the size cap holds fewer; a resend reads at most this many of its range.
inline constexpr int kMaxResendChanges = kMaxBatchChanges;

// The body of a batch: the JSON of GET /changes ({"data": [...], "next_cursor": ...}, field names
// as in the protos, enums by name) for changes, continuing after next_cursor.
absl::StatusOr<std::string> BatchBody(const hotel::v1::ListChangesResponse& page);

// One batch: the body and the feed position it delivers through.
struct BatchFrame {
  std::string body;
  int64_t through = 0;
  int changes = 0;
};

// Frames the changes read after a subscription's cursor (at most kMaxBatchChanges, oldest first)
// as one batch, each in the subscription's view (changes::ToChangeProto). scanned_through: where
// the read ended (the last change's seq when the read was full, else the log's head: nothing more
// matched up to it). A body above max_bytes drops changes from the end (never the first), and
// then ends at the last one it keeps.
absl::StatusOr<BatchFrame> FrameBatch(const std::vector<changes::ChangeRecord>& records, hotel::v1::ChangeView view,
                                      int64_t scanned_through, size_t max_bytes = kMaxBatchBytes);

// The distinct trace ids of the changes in a batch's body (their "trace_id" fields, in order), at
// most max: what a delivery's span links to.
std::vector<std::string> BatchTraceIds(absl::string_view body, size_t max);

// A new batch's webhook-id: "msg_" and 32 random hex digits.
std::string NewMessageId();

// Retries (Standard Webhooks' example schedule): immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
// 14 h, 20 h, 24 h after the failed attempts, each scaled by `scale` (tests shrink it) and
// jittered by up to ±20 %.
struct RetryPolicy {
  std::vector<absl::Duration> schedule = {absl::ZeroDuration(), absl::Seconds(5), absl::Minutes(5), absl::Minutes(30),
                                          absl::Hours(2),       absl::Hours(5),   absl::Hours(10),  absl::Hours(14),
                                          absl::Hours(20),      absl::Hours(24)};
  double scale = 1.0;
  double jitter = 0.2;
  absl::Duration max_retry_after = absl::Hours(1);  // Retry-After beyond it is capped
};

// After `failures` failed attempts of one batch (1 after the first): the wait before the next, or
// nullopt when the schedule is exhausted (the subscription is disabled). A 429 or 503 with
// Retry-After waits at least that long (capped).
std::optional<absl::Duration> NextRetry(const RetryPolicy& policy, int failures, const HttpResult& result,
                                        absl::BitGenRef random);

}  // namespace hotel::webhooks
