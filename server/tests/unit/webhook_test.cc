// Webhooks' pure parts: Standard Webhooks signatures (the specification's test vector), secrets,
// the destination allow-list, request validation, batch framing and the retry schedule.
#include <gtest/gtest.h>

#include "absl/random/random.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "common/page_token.h"
#include "webhooks/webhook_message.h"
#include "webhooks/webhook_request.h"
#include "webhooks/webhook_signature.h"
#include "webhooks/webhook_url.h"

namespace hotel::webhooks {
namespace {

using hotel::v1::Change;
using hotel::v1::Webhook;

AllowList Loopback() { return *AllowList::Parse(AllowList::kLoopback); }

// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md and
// the reference libraries' tests: this secret, id, timestamp and payload sign to this value.
TEST(WebhookSignature, MatchesTheStandardWebhooksTestVector) {
  auto signature = SignatureV1("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                               R"({"test": 2432232314})");
  ASSERT_TRUE(signature.ok()) << signature.status();
  EXPECT_EQ(*signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST(WebhookSignature, RefusesSecretsThatAreNotWhsecBase64) {
  EXPECT_FALSE(SignatureV1("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "id", 1, "{}").ok());
  EXPECT_FALSE(SignatureV1("whsec_", "id", 1, "{}").ok());
  EXPECT_FALSE(SignatureV1("whsec_***", "id", 1, "{}").ok());
}

TEST(WebhookSignature, NewSecretsAreWhsecAndThirtyTwoRandomBytes) {
  const std::string a = NewSecret(), b = NewSecret();
  ASSERT_TRUE(absl::StartsWith(a, "whsec_"));
  std::string key;
  ASSERT_TRUE(absl::Base64Unescape(a.substr(6), &key));
  EXPECT_EQ(key.size(), 32u);
  EXPECT_NE(a, b);
  EXPECT_TRUE(SignatureV1(a, "id", 1, "{}").ok());
}

TEST(WebhookMessage, SignedHeadersCarryOneSignaturePerSecret) {
  const std::string old_secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", new_secret = NewSecret();
  auto headers =
      SignedHeaders({new_secret, old_secret}, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, R"({"test": 2432232314})");
  ASSERT_TRUE(headers.ok());
  ASSERT_EQ(headers->size(), 3u);
  EXPECT_EQ((*headers)[0], (std::pair<std::string, std::string>{"webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek"}));
  EXPECT_EQ((*headers)[1], (std::pair<std::string, std::string>{"webhook-timestamp", "1614265330"}));
  EXPECT_EQ((*headers)[2].first, "webhook-signature");
  EXPECT_TRUE(absl::EndsWith((*headers)[2].second, " v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
  EXPECT_TRUE(absl::StartsWith((*headers)[2].second, "v1,"));
}

TEST(WebhookMessage, BatchBodyIsTheJsonOfListChanges) {
  hotel::v1::ListChangesResponse page;
  Change* change = page.add_data();
  change->set_cursor(EncodeChangeCursor(7));
  change->set_resource_type(Change::ISSUE);
  change->set_resource_id("i-1");
  change->set_kind(Change::CREATED);
  page.set_next_cursor(EncodeChangeCursor(7));
  auto body = BatchBody(page);
  ASSERT_TRUE(body.ok());
  EXPECT_TRUE(absl::StrContains(*body, R"("resource_type":"ISSUE")")) << *body;
  EXPECT_TRUE(absl::StrContains(*body, R"("changed_fields":[])")) << *body;
  // As the gateway writes them: unset messages are null.
  EXPECT_TRUE(absl::StrContains(*body, R"("resource":null)")) << *body;
  EXPECT_TRUE(absl::StrContains(*body, R"("previous":null)")) << *body;
  EXPECT_TRUE(absl::StartsWith(*body, R"({"data":[{)")) << *body;
  EXPECT_TRUE(absl::StrContains(*body, absl::StrCat(R"("next_cursor":")", EncodeChangeCursor(7), "\""))) << *body;
  EXPECT_EQ(PingBody("AQ"), R"({"type":"ping","data":[],"next_cursor":"AQ"})");
}

changes::ChangeRecord Record(int64_t seq, std::string id = "i") {
  changes::ChangeRecord r;
  r.seq = seq;
  r.committed_micros = 1'700'000'000'000'000;
  r.resource_type = "ISSUE";
  r.resource_id = std::move(id);
  r.property_id = "BER1";
  r.kind = "UPDATED";
  r.version = "3";
  return r;
}

TEST(WebhookMessage, FrameBatchEndsAtTheScanOrTheLastChangeKept) {
  // A short read scanned up to the head: the batch delivers through it.
  auto frame = FrameBatch({Record(3), Record(5)}, hotel::v1::CHANGE_VIEW_BASIC, 9);
  ASSERT_TRUE(frame.ok()) << frame.status();
  EXPECT_EQ(frame->through, 9);
  EXPECT_EQ(frame->changes, 2);
  EXPECT_TRUE(absl::StrContains(frame->body, absl::StrCat(R"("next_cursor":")", EncodeChangeCursor(9), "\"")));
  // Above the size cap: changes are dropped from the end, and it ends at the last one kept.
  std::vector<changes::ChangeRecord> many;
  for (int i = 1; i <= 100; ++i) many.push_back(Record(i, std::string(100, 'x')));
  frame = FrameBatch(many, hotel::v1::CHANGE_VIEW_BASIC, 100, 4000);
  ASSERT_TRUE(frame.ok());
  EXPECT_LE(frame->body.size(), 4000u);
  EXPECT_GT(frame->changes, 0);
  EXPECT_EQ(frame->through, frame->changes);  // seqs 1..n kept, in order
  // One change larger than the cap still goes alone.
  frame = FrameBatch({Record(4, std::string(5000, 'y')), Record(6)}, hotel::v1::CHANGE_VIEW_BASIC, 6, 1000);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(frame->changes, 1);
  EXPECT_EQ(frame->through, 4);
}

TEST(WebhookMessage, FrameBatchShowsTheSubscriptionsView) {
  changes::ChangeRecord record = Record(3);
  record.resource_type = "ROOM";
  record.changed_fields = {"floor"};
  record.resource_json = R"({"number": "101", "floor": 2})";
  record.previous_json = R"({"floor": 1})";
  auto frame = FrameBatch({record}, hotel::v1::CHANGE_VIEW_DIFF, 3);
  ASSERT_TRUE(frame.ok()) << frame.status();
  EXPECT_TRUE(absl::StrContains(frame->body, R"("resource":{"floor":2})")) << frame->body;
  EXPECT_TRUE(absl::StrContains(frame->body, R"("previous":{"floor":1})")) << frame->body;
  frame = FrameBatch({record}, hotel::v1::CHANGE_VIEW_FULL, 3);
  ASSERT_TRUE(frame.ok()) << frame.status();
  EXPECT_TRUE(absl::StrContains(frame->body, R"("number":"101")")) << frame->body;
  EXPECT_TRUE(absl::StrContains(frame->body, R"("previous":null)")) << frame->body;
}

TEST(WebhookMessage, MessageIdsAreNewEachTime) {
  const std::string a = NewMessageId();
  EXPECT_TRUE(absl::StartsWith(a, "msg_"));
  EXPECT_EQ(a.size(), 36u);
  EXPECT_NE(a, NewMessageId());
}

TEST(WebhookRetry, FollowsTheScheduleScaledAndJittered) {
  RetryPolicy policy;
  policy.jitter = 0;
  absl::BitGen random;
  HttpResult failed;
  failed.status = 500;
  EXPECT_EQ(NextRetry(policy, 1, failed, random), absl::Seconds(5));
  EXPECT_EQ(NextRetry(policy, 2, failed, random), absl::Minutes(5));
  EXPECT_EQ(NextRetry(policy, 9, failed, random), absl::Hours(24));
  EXPECT_EQ(NextRetry(policy, 10, failed, random), std::nullopt);  // ten attempts: exhausted
  policy.scale = 0.001;
  EXPECT_EQ(NextRetry(policy, 1, failed, random), absl::Milliseconds(5));
  policy.jitter = 0.2;
  for (int i = 0; i < 100; ++i) {
    auto wait = *NextRetry(policy, 2, failed, random);
    EXPECT_GE(wait, absl::Milliseconds(240));
    EXPECT_LE(wait, absl::Milliseconds(360));
  }
}

TEST(WebhookRetry, HonoursRetryAfterOn429And503Capped) {
  RetryPolicy policy;
  policy.jitter = 0;
  policy.scale = 0.001;
  absl::BitGen random;
  HttpResult busy;
  busy.status = 429;
  busy.retry_after = absl::Seconds(3);
  EXPECT_EQ(NextRetry(policy, 1, busy, random), absl::Seconds(3));
  busy.status = 503;
  busy.retry_after = absl::Hours(50);
  EXPECT_EQ(NextRetry(policy, 1, busy, random), absl::Hours(1));
  busy.status = 500;  // Retry-After only counts on 429 and 503
  EXPECT_EQ(NextRetry(policy, 1, busy, random), absl::Milliseconds(5));
}

TEST(WebhookUrl, ParsesHttpUrls) {
  auto url = ParseWebhookUrl("url", "HTTP://LocalHost:8080/hooks?x=1");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->scheme, "http");
  EXPECT_EQ(url->host, "localhost");
  EXPECT_EQ(url->port, 8080);
  url = ParseWebhookUrl("url", "https://[::1]/x");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "::1");
  for (const char* bad : {"", "ftp://localhost/", "localhost:80", "http://user:pw@localhost/", "http://:80/",
                          "http://localhost:0/", "http://localhost:99999/", "http://local host/", "http://[::1/"}) {
    auto parsed = ParseWebhookUrl("url", bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(ViolatedFields(parsed.status()), std::vector<std::string>{"url"}) << bad;
  }
}

TEST(WebhookAllowList, LoopbackByDefault) {
  const AllowList list = Loopback();
  EXPECT_TRUE(list.Allows("localhost"));
  EXPECT_TRUE(list.Allows("127.0.0.1"));
  EXPECT_TRUE(list.Allows("127.9.8.7"));
  EXPECT_TRUE(list.Allows("::1"));
  EXPECT_FALSE(list.Allows("10.0.0.1"));
  EXPECT_FALSE(list.Allows("169.254.169.254"));
  EXPECT_FALSE(list.Allows("example.com"));
  EXPECT_FALSE(list.Allows("localhost.example.com"));
}

TEST(WebhookAllowList, NamesDomainsAndNetworks) {
  auto list = AllowList::Parse(" hooks.internal, *.svc.cluster.local,10.20.0.0/16 ,fd00::/8");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_TRUE(list->Allows("HOOKS.internal"));
  EXPECT_FALSE(list->Allows("x.hooks.internal"));
  EXPECT_TRUE(list->Allows("a.b.svc.cluster.local"));
  EXPECT_TRUE(list->Allows("svc.cluster.local"));
  EXPECT_FALSE(list->Allows("evilsvc.cluster.local"));
  EXPECT_TRUE(list->Allows("10.20.255.1"));
  EXPECT_FALSE(list->Allows("10.21.0.1"));
  EXPECT_TRUE(list->Allows("fd12::1"));
  EXPECT_FALSE(list->Allows("127.0.0.1"));
  for (const char* bad : {"10.0.0.0/33", "10.0.0.0/x", "host/8", "bad host"})
    EXPECT_FALSE(AllowList::Parse(bad).ok()) << bad;
  EXPECT_TRUE(AllowList::Parse("").ok());  // nothing allowed
}

TEST(WebhookAllowList, RefusalNamesUrlAndTheSetting) {
  absl::Status s = CheckDestination("url", "http://169.254.169.254/latest", Loopback());
  EXPECT_EQ(ErrorReason(s), "WEBHOOK_URL_NOT_ALLOWED");
  EXPECT_EQ(ViolatedFields(s), std::vector<std::string>{"url"});
  EXPECT_TRUE(absl::StrContains(s.ToString(), "WEBHOOK_ALLOWED_HOSTS")) << s;
}

TEST(WebhookRequest, CreateReadsFiltersViewAndCursor) {
  hotel::v1::CreateWebhookRequest request;
  request.set_url("http://127.0.0.1:9000/hook");
  request.add_resource_type(Change::ISSUE);
  request.add_resource_type(Change::ISSUE);
  request.add_resource_type(Change::ROOM);
  request.set_property_id("BER1");
  request.set_view(hotel::v1::CHANGE_VIEW_FULL);
  request.set_after(EncodeChangeCursor(42));
  auto webhook = ValidateCreateWebhook(request, Loopback());
  ASSERT_TRUE(webhook.ok()) << webhook.status();
  EXPECT_EQ(webhook->selection.filter.resource_types, (std::vector<std::string>{"ISSUE", "ROOM"}));
  EXPECT_EQ(webhook->selection.filter.property_id, "BER1");
  EXPECT_EQ(webhook->selection.view, hotel::v1::CHANGE_VIEW_FULL);
  EXPECT_EQ(webhook->after, 42);
  request.clear_after();
  EXPECT_EQ(ValidateCreateWebhook(request, Loopback())->after, std::nullopt);
}

TEST(WebhookRequest, CreateNamesEveryBadField) {
  hotel::v1::CreateWebhookRequest request;
  request.add_resource_type(static_cast<Change::ResourceType>(99));
  request.set_property_id("bad id");
  request.set_view(static_cast<hotel::v1::ChangeView>(7));
  request.set_after("nope");
  auto webhook = ValidateCreateWebhook(request, Loopback());
  ASSERT_FALSE(webhook.ok());
  EXPECT_EQ(ViolatedFields(webhook.status()),
            (std::vector<std::string>{"url", "resource_type", "property_id", "view", "after"}));
  request = {};
  request.set_url("http://10.1.2.3/hook");
  EXPECT_EQ(ErrorReason(ValidateCreateWebhook(request, Loopback()).status()), "WEBHOOK_URL_NOT_ALLOWED");
}

Webhook Current() {
  Webhook current;
  current.set_id("0b4c1f5e-7a0e-4c6e-9d7a-1f2e3d4c5b6a");
  current.set_url("http://127.0.0.1:9000/hook");
  current.set_state(Webhook::ACTIVE);
  current.set_view(hotel::v1::CHANGE_VIEW_BASIC);
  current.set_cursor(EncodeChangeCursor(5));
  return current;
}

TEST(WebhookRequest, UpdatePausesResumesAndChangesFilters) {
  Webhook patch;
  patch.set_state(Webhook::PAUSED);
  auto plan = PlanWebhookUpdate(Current(), patch, {"state"}, Loopback());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->changed);
  EXPECT_FALSE(plan->resumed);
  EXPECT_EQ(plan->updated.state(), Webhook::PAUSED);

  Webhook disabled = Current();
  disabled.set_state(Webhook::DISABLED);
  disabled.set_disabled_reason("HTTP 410");
  patch.set_state(Webhook::ACTIVE);
  plan = PlanWebhookUpdate(disabled, patch, {"state"}, Loopback());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->resumed);
  EXPECT_EQ(plan->updated.disabled_reason(), "");

  patch.Clear();
  patch.add_resource_type(Change::ROOM);
  patch.set_url("http://localhost:1/x");
  plan = PlanWebhookUpdate(Current(), patch, {}, Loopback());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->url_changed);
  EXPECT_EQ(plan->selection.filter.resource_types, std::vector<std::string>{"ROOM"});
  EXPECT_EQ(plan->updated.cursor(), Current().cursor());  // output only: never taken from the patch
}

TEST(WebhookRequest, UpdateRefusesDisabledStateAndForbiddenHosts) {
  Webhook patch;
  patch.set_state(Webhook::DISABLED);
  EXPECT_EQ(ViolatedFields(PlanWebhookUpdate(Current(), patch, {"state"}, Loopback()).status()),
            std::vector<std::string>{"state"});
  patch.Clear();
  patch.set_url("http://192.168.1.1/");
  EXPECT_EQ(ErrorReason(PlanWebhookUpdate(Current(), patch, {"url"}, Loopback()).status()), "WEBHOOK_URL_NOT_ALLOWED");
  EXPECT_EQ(ViolatedFields(PlanWebhookUpdate(Current(), patch, {"nope"}, Loopback()).status()),
            std::vector<std::string>{"update_mask"});
}

TEST(WebhookRequest, ListPagesAndRefusesForeignTokens) {
  hotel::v1::ListWebhooksRequest request;
  request.set_page_size(-1);
  EXPECT_EQ(ViolatedFields(ParseListWebhooks(request).status()), std::vector<std::string>{"page_size"});
  request.set_page_size(0);
  request.set_page_token("garbage");
  EXPECT_EQ(ErrorReason(ParseListWebhooks(request).status()), "INVALID_PAGE_TOKEN");
  request.clear_page_token();
  EXPECT_EQ(ParseListWebhooks(request)->page_size, 50);
}

TEST(WebhookRequest, DeliveryLogNamesTheIdAndBindsTokensToTheFilter) {
  hotel::v1::ListWebhookDeliveriesRequest request;
  request.set_id("nope");
  EXPECT_EQ(ViolatedFields(ParseListWebhookDeliveries(request).status()), std::vector<std::string>{"id"});
  request.set_id("0B4C1F5E-7A0E-4C6E-9D7A-1F2E3D4C5B6A");
  request.set_failures_only(true);
  auto query = ParseListWebhookDeliveries(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(query->webhook_id, "0b4c1f5e-7a0e-4c6e-9d7a-1f2e3d4c5b6a");
  EXPECT_TRUE(query->failures_only);
  // A token of the failures list is refused for the whole log.
  request.set_page_token(EncodePageToken({"webhook_deliveries", Fingerprint(*query), {"42"}}));
  EXPECT_EQ(ParseListWebhookDeliveries(request)->after, std::vector<std::string>{"42"});
  request.set_failures_only(false);
  EXPECT_EQ(ErrorReason(ParseListWebhookDeliveries(request).status()), "INVALID_PAGE_TOKEN");
}

TEST(WebhookRequest, RotationAndReplayNameTheirFields) {
  hotel::v1::RotateWebhookSecretRequest rotate;
  rotate.set_id("0b4c1f5e-7a0e-4c6e-9d7a-1f2e3d4c5b6a");
  EXPECT_EQ(ParseRotateWebhookSecret(rotate)->grace, absl::Hours(24));
  rotate.set_grace_seconds(60);
  EXPECT_EQ(ParseRotateWebhookSecret(rotate)->grace, absl::Seconds(60));
  rotate.set_grace_seconds(kMaxGraceSeconds + 1);
  rotate.set_id("x");
  EXPECT_EQ(ViolatedFields(ParseRotateWebhookSecret(rotate).status()),
            (std::vector<std::string>{"id", "grace_seconds"}));

  hotel::v1::ReplayWebhookRequest replay;
  replay.set_id("0b4c1f5e-7a0e-4c6e-9d7a-1f2e3d4c5b6a");
  EXPECT_EQ(ViolatedFields(ParseReplayWebhook(replay).status()), std::vector<std::string>{"after"});
  replay.set_after("nonsense");
  EXPECT_EQ(ErrorReason(ParseReplayWebhook(replay).status()), "INVALID_CURSOR");
  replay.set_after(EncodeChangeCursor(9));
  EXPECT_EQ(ParseReplayWebhook(replay)->after, 9);
}

TEST(WebhookRequest, ResendNamesTheDelivery) {
  hotel::v1::ResendWebhookDeliveryRequest request;
  request.set_id("0b4c1f5e-7a0e-4c6e-9d7a-1f2e3d4c5b6a");
  for (const char* bad : {"", "x", "0", "-3", "1.5"}) {
    request.set_delivery_id(bad);
    EXPECT_EQ(ViolatedFields(ParseResendWebhookDelivery(request).status()), std::vector<std::string>{"delivery_id"})
        << bad;
  }
  request.set_delivery_id("42");
  EXPECT_EQ(ParseResendWebhookDelivery(request)->delivery_id, 42);
}

}  // namespace
}  // namespace hotel::webhooks
