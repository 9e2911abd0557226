#include "images/ingest/object_store.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/errors.h"

namespace hotel::images {
namespace {

std::string Env(const char* name, const std::string& fallback = "") {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

}  // namespace

std::string ContentTypeOf(absl::string_view format) {
  if (format == "jpeg") return "image/jpeg";
  if (format == "png") return "image/png";
  if (format == "webp") return "image/webp";
  return "application/octet-stream";
}

absl::StatusOr<std::unique_ptr<ObjectStore>> ObjectStoreFromEnvironment(absl::string_view default_directory) {
  const std::string kind = Env("IMAGE_STORE", "directory");
  if (kind == "directory") {
    return std::make_unique<LocalObjectStore>(Env("CDN_ORIGIN_DIR", std::string(default_directory)));
  }
  if (kind != "s3") return InvalidField("IMAGE_STORE", "must be directory or s3");
  S3Options options;
  options.bucket = Env("IMAGE_S3_BUCKET");
  options.prefix = Env("IMAGE_S3_PREFIX");
  options.region = Env("IMAGE_S3_REGION", Env("AWS_REGION", "us-east-1"));
  options.endpoint = Env("IMAGE_S3_ENDPOINT", absl::StrCat("https://s3.", options.region, ".amazonaws.com"));
  options.access_key_id = Env("AWS_ACCESS_KEY_ID");
  options.secret_access_key = Env("AWS_SECRET_ACCESS_KEY");
  options.session_token = Env("AWS_SESSION_TOKEN");
  FieldErrors errors;
  if (options.bucket.empty()) errors.Add("IMAGE_S3_BUCKET", "is required when IMAGE_STORE=s3");
  if (options.access_key_id.empty()) errors.Add("AWS_ACCESS_KEY_ID", "is required when IMAGE_STORE=s3");
  if (options.secret_access_key.empty()) errors.Add("AWS_SECRET_ACCESS_KEY", "is required when IMAGE_STORE=s3");
  if (!errors.empty()) return errors.ToStatus();
  return std::make_unique<S3ObjectStore>(std::move(options));
}

}  // namespace hotel::images
