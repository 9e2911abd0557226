#include "app/settings.h"

#include "common/token_seal.h"

namespace hotel::app {

absl::StatusOr<Settings> LoadSettings(const std::vector<std::string>& args, const char* (*getenv)(const char*)) {
  auto config = ParseConfig(args, getenv);
  if (!config.ok()) return config.status();
  if (auto sealed = ConfigureTokenSeal(config->page_token_keys); !sealed.ok()) return sealed;
  auto webhook_allow_list = webhooks::AllowList::Parse(config->webhook_allowed_hosts);
  if (!webhook_allow_list.ok()) return webhook_allow_list.status();
  if (config->webhook_timeout >= config->webhook_lease) {
    return absl::InvalidArgumentError(
        "--webhook-timeout must be below --webhook-lease (a delivery must end within its lease)");
  }
  auto image_store = images::ObjectStoreFromEnvironment(".local/cdn");
  if (!image_store.ok()) return image_store.status();
  auto tracing = OtlpOptionsFromEnvironment(getenv);
  if (!tracing.ok()) return tracing.status();
  return Settings{*std::move(config), *std::move(webhook_allow_list), *std::move(image_store), *std::move(tracing)};
}

}  // namespace hotel::app
