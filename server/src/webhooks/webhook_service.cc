#include "webhooks/webhook_service.h"

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "api/update_mask.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "webhooks/webhook_message.h"
#include "webhooks/webhook_request.h"
#include "webhooks/webhook_signature.h"

namespace hotel::webhooks {

using hotel::v1::Webhook;

HttpResult Ping(const std::string& url, const std::string& secret, const std::string& cursor, const HttpOptions& http) {
  absl::BitGen random;
  const std::string id = absl::StrCat("ping_", absl::Hex(absl::Uniform<uint64_t>(random), absl::kZeroPad16));
  const std::string body = PingBody(cursor);
  auto headers = SignedHeaders({secret}, id, absl::ToUnixSeconds(absl::Now()), body);
  if (!headers.ok()) {
    HttpResult refused;
    refused.error = "protocol";
    refused.error_detail = std::string(headers.status().message());
    return refused;
  }
  return PostJson(url, *headers, body, http);
}

absl::Status SendPing(const std::string& url, const std::string& secret, const std::string& cursor,
                      const HttpOptions& http) {
  const HttpResult result = Ping(url, secret, cursor, http);
  if (result.accepted()) return absl::OkStatus();
  return InvalidField("url",
                      ValidUtf8(absl::StrCat("did not answer the signed ping with 2xx (", result.Describe(),
                                             "): the endpoint must accept a POST and answer 2xx")),
                      "WEBHOOK_PING_FAILED");
}

grpc::ServerUnaryReactor* WebhookServiceImpl::CreateWebhook(grpc::CallbackServerContext* context,
                                                            const hotel::v1::CreateWebhookRequest* request,
                                                            Webhook* response) {
  return calls_.Run(context, *request, api::Created(context, [=, this] {
                      return api::IfValid(ValidateCreateWebhook(*request, allow_list_), [&](const auto& webhook) {
                        auto start = repository_.StartPosition(webhook.after);
                        if (!start.ok()) return start.status();
                        const std::string secret = NewSecret();
                        if (auto s = SendPing(webhook.url, secret, EncodeChangeCursor(*start), http_); !s.ok()) {
                          return s;
                        }
                        return repository_.Create(webhook, secret, *start, response);
                      });
                    }));
}

grpc::ServerUnaryReactor* WebhookServiceImpl::GetWebhook(grpc::CallbackServerContext* context,
                                                         const hotel::v1::GetWebhookRequest* request,
                                                         Webhook* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()),
                        [&](const auto& id) { return repository_.Get(id, response); });
  });
}

grpc::ServerUnaryReactor* WebhookServiceImpl::ListWebhooks(grpc::CallbackServerContext* context,
                                                           const hotel::v1::ListWebhooksRequest* request,
                                                           hotel::v1::ListWebhooksResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseListWebhooks(*request),
                        [&](const auto& query) { return repository_.List(query, response); });
  });
}

grpc::ServerUnaryReactor* WebhookServiceImpl::UpdateWebhook(grpc::CallbackServerContext* context,
                                                            const hotel::v1::UpdateWebhookRequest* request,
                                                            Webhook* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()), [&](const std::string& id) {
      Webhook current;
      if (auto s = repository_.Get(id, &current); !s.ok()) return s;
      const std::vector<std::string> mask = api::MaskPaths(request->update_mask());
      auto plan = PlanWebhookUpdate(current, request->webhook(), mask, allow_list_);
      if (!plan.ok()) return plan.status();
      if (plan->url_changed) {
        auto secret = repository_.Secret(id);
        if (!secret.ok()) return secret.status();
        if (auto s = SendPing(plan->updated.url(), *secret, current.cursor(), http_); !s.ok()) return s;
      }
      return repository_.Update(current, *plan, response);
    });
  });
}

grpc::ServerUnaryReactor* WebhookServiceImpl::DeleteWebhook(grpc::CallbackServerContext* context,
                                                            const hotel::v1::DeleteWebhookRequest* request,
                                                            hotel::v1::DeleteWebhookResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()), [&](const std::string& id) {
      if (auto s = repository_.Delete(id); !s.ok()) return s;
      response->set_id(id);
      return absl::OkStatus();
    });
  });
}

grpc::ServerUnaryReactor* WebhookServiceImpl::ListWebhookDeliveries(
    grpc::CallbackServerContext* context, const hotel::v1::ListWebhookDeliveriesRequest* request,
    hotel::v1::ListWebhookDeliveriesResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseListWebhookDeliveries(*request),
                        [&](const auto& query) { return repository_.ListDeliveries(query, response); });
  });
}

grpc::ServerUnaryReactor* WebhookServiceImpl::PingWebhook(grpc::CallbackServerContext* context,
                                                          const hotel::v1::PingWebhookRequest* request,
                                                          hotel::v1::PingWebhookResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()), [&](const std::string& id) {
      Webhook webhook;
      if (auto s = repository_.Get(id, &webhook); !s.ok()) return s;
      auto secret = repository_.Secret(id);
      if (!secret.ok()) return secret.status();
      const HttpResult result = Ping(webhook.url(), *secret, webhook.cursor(), http_);
      response->set_ok(result.accepted());
      response->set_http_status(result.status);
      response->set_error(result.status == 0 ? ValidUtf8(result.Describe()) : "");
      response->set_duration_ms(static_cast<int32_t>(absl::ToInt64Milliseconds(result.duration)));
      return absl::OkStatus();
    });
  });
}

grpc::ServerUnaryReactor* WebhookServiceImpl::RotateWebhookSecret(grpc::CallbackServerContext* context,
                                                                  const hotel::v1::RotateWebhookSecretRequest* request,
                                                                  Webhook* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseRotateWebhookSecret(*request), [&](const auto& rotation) {
      return repository_.RotateSecret(rotation.id, NewSecret(), rotation.grace, response);
    });
  });
}

grpc::ServerUnaryReactor* WebhookServiceImpl::ReplayWebhook(grpc::CallbackServerContext* context,
                                                            const hotel::v1::ReplayWebhookRequest* request,
                                                            Webhook* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseReplayWebhook(*request),
                        [&](const auto& replay) { return repository_.Replay(replay.id, replay.after, response); });
  });
}

grpc::ServerUnaryReactor* WebhookServiceImpl::ResendWebhookDelivery(
    grpc::CallbackServerContext* context, const hotel::v1::ResendWebhookDeliveryRequest* request,
    hotel::v1::WebhookDelivery* response) {
  return calls_.Run(context, *request, [=, this]() -> absl::Status {
    auto resend = ParseResendWebhookDelivery(*request);
    if (!resend.ok()) return resend.status();
    auto batch = repository_.LoggedDelivery(resend->id, resend->delivery_id);
    if (!batch.ok()) return batch.status();
    auto records = repository_.ReadRange(*batch);
    if (!records.ok()) return records.status();
    auto frame = FrameBatch(*records, batch->lease.selection.view, batch->through);
    if (!frame.ok()) return frame.status();
    std::vector<std::string> secrets = {batch->lease.secret};
    if (!batch->lease.previous_secret.empty()) secrets.push_back(batch->lease.previous_secret);
    const absl::Time at = absl::Now();
    auto headers = SignedHeaders(secrets, batch->message_id, absl::ToUnixSeconds(at), frame->body);
    if (!headers.ok()) return headers.status();
    const HttpResult result = PostJson(batch->lease.url, *headers, frame->body, http_);
    AttemptRecord attempt{0,
                          at,
                          absl::ToInt64Milliseconds(result.duration),
                          result.status,
                          result.status == 0 ? result.error : "",
                          result.response_prefix};
    return repository_.LogResend(*batch, attempt, result.accepted(), response);
  });
}

}  // namespace hotel::webhooks
