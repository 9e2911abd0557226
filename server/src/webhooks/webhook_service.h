// gRPC handlers of hotel.v1.WebhookService: validate, ping new destinations, call the repository.
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/webhooks.grpc.pb.h"
#include "webhooks/webhook_http.h"
#include "webhooks/webhook_repository.h"
#include "webhooks/webhook_url.h"

namespace hotel::webhooks {

class WebhookServiceImpl final : public hotel::v1::WebhookService::CallbackService {
 public:
  WebhookServiceImpl(WebhookRepository& repository, const AllowList& allow_list, HttpOptions http,
                     api::CallRunner& calls)
      : repository_(repository), allow_list_(allow_list), http_(http), calls_(calls) {}

  grpc::ServerUnaryReactor* CreateWebhook(grpc::CallbackServerContext* context,
                                          const hotel::v1::CreateWebhookRequest* request,
                                          hotel::v1::Webhook* response) override;
  grpc::ServerUnaryReactor* GetWebhook(grpc::CallbackServerContext* context,
                                       const hotel::v1::GetWebhookRequest* request,
                                       hotel::v1::Webhook* response) override;
  grpc::ServerUnaryReactor* ListWebhooks(grpc::CallbackServerContext* context,
                                         const hotel::v1::ListWebhooksRequest* request,
                                         hotel::v1::ListWebhooksResponse* response) override;
  grpc::ServerUnaryReactor* UpdateWebhook(grpc::CallbackServerContext* context,
                                          const hotel::v1::UpdateWebhookRequest* request,
                                          hotel::v1::Webhook* response) override;
  grpc::ServerUnaryReactor* DeleteWebhook(grpc::CallbackServerContext* context,
                                          const hotel::v1::DeleteWebhookRequest* request,
                                          hotel::v1::DeleteWebhookResponse* response) override;
  grpc::ServerUnaryReactor* ListWebhookDeliveries(grpc::CallbackServerContext* context,
                                                  const hotel::v1::ListWebhookDeliveriesRequest* request,
                                                  hotel::v1::ListWebhookDeliveriesResponse* response) override;
  grpc::ServerUnaryReactor* PingWebhook(grpc::CallbackServerContext* context,
                                        const hotel::v1::PingWebhookRequest* request,
                                        hotel::v1::PingWebhookResponse* response) override;
  grpc::ServerUnaryReactor* RotateWebhookSecret(grpc::CallbackServerContext* context,
                                                const hotel::v1::RotateWebhookSecretRequest* request,
                                                hotel::v1::Webhook* response) override;
  grpc::ServerUnaryReactor* ResendWebhookDelivery(grpc::CallbackServerContext* context,
                                                  const hotel::v1::ResendWebhookDeliveryRequest* request,
                                                  hotel::v1::WebhookDelivery* response) override;
  grpc::ServerUnaryReactor* ReplayWebhook(grpc::CallbackServerContext* context,
                                          const hotel::v1::ReplayWebhookRequest* request,
                                          hotel::v1::Webhook* response) override;

 private:
  WebhookRepository& repository_;
  const AllowList& allow_list_;
  const HttpOptions http_;
  api::CallRunner& calls_;
};

// Sends a signed ping ({"type": "ping", ...}) to url and returns how it was answered.
HttpResult Ping(const std::string& url, const std::string& secret, const std::string& cursor, const HttpOptions& http);
// Ping, with INVALID_ARGUMENT naming `url` (reason WEBHOOK_PING_FAILED) unless it is answered 2xx.
absl::Status SendPing(const std::string& url, const std::string& secret, const std::string& cursor,
                      const HttpOptions& http);

}  // namespace hotel::webhooks
