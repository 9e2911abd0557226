#include <curl/curl.h>

#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "common/log.h"
#include "images/ingest/image_renderer.h"
#include "images/ingest/object_store.h"

namespace hotel::images {
namespace {

// SHA-256 of no bytes: the payload hash of a DELETE or HEAD.
constexpr char kEmptySha256[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

size_t KeepBody(char* data, size_t size, size_t count, void* out) {
  auto* body = static_cast<std::string*>(out);
  if (body->size() < 512) body->append(data, std::min<size_t>(size * count, 512 - body->size()));
  return size * count;
}

// What the store said goes to the log; the caller gets a retryable error that names no bucket,
// endpoint or store message.
absl::Status StoreUnavailable(const std::string& method, const std::string& url, const std::string& detail) {
  LogWarning("object store request failed", {{"method", method}, {"url", url}, {"error", ValidUtf8(detail)}});
  return UnavailableError("OBJECT_STORE_UNAVAILABLE", "the image store did not answer as expected; retry later");
}

struct Response {
  long status = 0;
  std::string body;  // the first bytes: S3's error document names the problem
};

}  // namespace

S3ObjectStore::S3ObjectStore(S3Options options) : options_(std::move(options)) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string S3ObjectStore::UrlOf(absl::string_view key) const {
  absl::string_view endpoint = options_.endpoint;
  while (absl::EndsWith(endpoint, "/")) endpoint.remove_suffix(1);
  return absl::StrCat(endpoint, "/", options_.bucket, "/", options_.prefix, key);
}

std::string S3ObjectStore::Describe() const { return absl::StrCat("s3 ", UrlOf("")); }

namespace {

// One signed request; UNAVAILABLE when no answer came.
absl::StatusOr<Response> Send(const S3Options& options, const std::string& method, const std::string& url,
                              absl::string_view payload, std::vector<std::string> headers) {
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return absl::InternalError("curl_easy_init failed");
  CURL* c = curl.get();
  headers.push_back(absl::StrCat("x-amz-content-sha256: ", payload.empty() ? kEmptySha256 : Sha256Hex(payload)));
  if (!options.session_token.empty()) headers.push_back("x-amz-security-token: " + options.session_token);
  curl_slist* list = nullptr;
  for (const std::string& header : headers) list = curl_slist_append(list, header.c_str());
  std::unique_ptr<curl_slist, CurlDeleter> header_list(list);
  const std::string sigv4 = absl::StrCat("aws:amz:", options.region, ":s3");

  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4.c_str());
  curl_easy_setopt(c, CURLOPT_USERNAME, options.access_key_id.c_str());
  curl_easy_setopt(c, CURLOPT_PASSWORD, options.secret_access_key.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  if (method == "PUT") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  // No 100-continue round trip before a large body. Not with an empty "Expect:" header, which
  // disables it too: libcurl (7.88) signs that header though it never sends it, and a store that
  // checks signatures (MinIO, S3) refuses the request (SignatureDoesNotMatch).
  curl_easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(options.connect_timeout)));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(options.total_timeout)));
  Response response;
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, KeepBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  CURLcode code = curl_easy_perform(c);
  if (code != CURLE_OK) {
    return StoreUnavailable(method, url, *error ? error : curl_easy_strerror(code));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

absl::Status Refused(const std::string& method, const std::string& url, const Response& response) {
  return StoreUnavailable(method, url, absl::StrCat("HTTP ", response.status, " ", response.body));
}

}  // namespace

absl::Status S3ObjectStore::Put(absl::string_view key, absl::string_view data, absl::string_view content_type) {
  const std::string url = UrlOf(key);
  auto response =
      Send(options_, "PUT", url, data,
           {absl::StrCat("Content-Type: ", content_type), absl::StrCat("Cache-Control: ", kImmutableCacheControl)});
  if (!response.ok()) return response.status();
  if (response->status != 200) return Refused("PUT", url, *response);
  return absl::OkStatus();
}

absl::Status S3ObjectStore::Delete(absl::string_view key) {
  const std::string url = UrlOf(key);
  auto response = Send(options_, "DELETE", url, "", {});
  if (!response.ok()) return response.status();
  if (response->status != 204 && response->status != 200 && response->status != 404) {
    return Refused("DELETE", url, *response);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> S3ObjectStore::Exists(absl::string_view key) {
  const std::string url = UrlOf(key);
  auto response = Send(options_, "HEAD", url, "", {});
  if (!response.ok()) return response.status();
  if (response->status == 200) return true;
  if (response->status == 404) return false;
  return Refused("HEAD", url, *response);
}

}  // namespace hotel::images
