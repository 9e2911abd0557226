// The server's settings: flags and environment, every value checked before anything starts.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "images/ingest/object_store.h"
#include "observability/otlp_exporter.h"
#include "webhooks/webhook_url.h"

namespace hotel::app {

struct Settings {
  Config config;
  webhooks::AllowList webhook_allow_list;
  // Where uploaded images' files go: IMAGE_STORE and its variables (images/ingest/object_store.h).
  std::unique_ptr<images::ObjectStore> image_store;
  std::optional<OtlpOptions> tracing;  // OpenTelemetry's OTEL_* variables; none: off
};

// args excludes argv[0]; getenv is injected so tests need not touch the process environment.
absl::StatusOr<Settings> LoadSettings(const std::vector<std::string>& args, const char* (*getenv)(const char*));

}  // namespace hotel::app
