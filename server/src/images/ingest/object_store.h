// Where delivered image files live: a store of immutable objects under content-addressed keys
// (images/image_model.h, StorageKey). Two implementations: a local directory (development; the
// gateway serves it under /cdn/) and an S3-compatible bucket (production; a CDN in front).
// Every object is written whole or not at all, with its Content-Type and a year-long immutable
// Cache-Control: a key names its content, so a cached copy can never be stale.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace hotel::images {

inline constexpr char kImmutableCacheControl[] = "public, max-age=31536000, immutable";

// "image/jpeg" for "jpeg", ...: the Content-Type of a stored file of that format.
std::string ContentTypeOf(absl::string_view format);

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;
  // Writes data under key, replacing any object there. UNAVAILABLE when the store cannot be reached.
  virtual absl::Status Put(absl::string_view key, absl::string_view data, absl::string_view content_type) = 0;
  // Removes key; OK when it was not there.
  virtual absl::Status Delete(absl::string_view key) = 0;
  virtual absl::StatusOr<bool> Exists(absl::string_view key) = 0;
  // "directory /srv/cdn", "s3 http://127.0.0.1:9000/bucket/prefix/": for logs and errors.
  virtual std::string Describe() const = 0;
};

class LocalObjectStore final : public ObjectStore {
 public:
  explicit LocalObjectStore(std::string directory) : directory_(std::move(directory)) {}

  // To a temporary file, flushed to disk, then renamed into place, so a reader (or a crash) never
  // sees half a file. The content type is the web server's business (by extension).
  absl::Status Put(absl::string_view key, absl::string_view data, absl::string_view content_type) override;
  absl::Status Delete(absl::string_view key) override;
  absl::StatusOr<bool> Exists(absl::string_view key) override;
  std::string Describe() const override { return "directory " + directory_; }
  std::string PathOf(absl::string_view key) const;

 private:
  const std::string directory_;
};

struct S3Options {
  std::string endpoint;  // e.g. https://s3.eu-central-1.amazonaws.com or http://127.0.0.1:9000
  std::string region = "us-east-1";
  std::string bucket;
  std::string prefix;  // prepended to every key, e.g. "images/"
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // optional (temporary credentials)
  absl::Duration connect_timeout = absl::Seconds(3);
  absl::Duration total_timeout = absl::Seconds(60);
};

// Any S3-compatible store, addressed path-style (endpoint/bucket/prefix+key), each request signed
// by libcurl's own AWS Signature V4 (CURLOPT_AWS_SIGV4) with the payload's SHA-256.
class S3ObjectStore final : public ObjectStore {
 public:
  explicit S3ObjectStore(S3Options options);

  absl::Status Put(absl::string_view key, absl::string_view data, absl::string_view content_type) override;
  absl::Status Delete(absl::string_view key) override;
  absl::StatusOr<bool> Exists(absl::string_view key) override;
  std::string Describe() const override;
  std::string UrlOf(absl::string_view key) const;

 private:
  const S3Options options_;
};

// The store the environment names (docs/operations.md, "Image store"):
//   IMAGE_STORE=directory (default): CDN_ORIGIN_DIR, else default_directory;
//   IMAGE_STORE=s3: IMAGE_S3_BUCKET (required), IMAGE_S3_PREFIX, IMAGE_S3_REGION (else AWS_REGION,
//   else us-east-1), IMAGE_S3_ENDPOINT (else https://s3.<region>.amazonaws.com), credentials from
//   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and optional AWS_SESSION_TOKEN.
// INVALID_ARGUMENT naming the variable when the settings are incomplete.
absl::StatusOr<std::unique_ptr<ObjectStore>> ObjectStoreFromEnvironment(absl::string_view default_directory);

}  // namespace hotel::images
