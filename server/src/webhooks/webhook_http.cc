#include "webhooks/webhook_http.h"

#include <curl/curl.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace hotel::webhooks {

namespace {

struct Received {
  std::string prefix;
  std::optional<absl::Duration> retry_after;
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* received = static_cast<Received*>(user);
  const size_t bytes = size * count;
  if (received->prefix.size() < kResponsePrefixBytes) {
    received->prefix.append(data, std::min(bytes, kResponsePrefixBytes - received->prefix.size()));
  }
  return bytes;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* received = static_cast<Received*>(user);
  const size_t bytes = size * count;
  absl::string_view line(data, bytes);
  if (absl::StartsWithIgnoreCase(line, "retry-after:")) {
    int64_t seconds = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(12)), &seconds) && seconds >= 0) {
      received->retry_after = absl::Seconds(seconds);
    }
  }
  return bytes;
}

std::string ErrorClass(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return "dns";
    case CURLE_COULDNT_CONNECT:
      return "connect";
    case CURLE_OPERATION_TIMEDOUT:
      return "timeout";
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
      return "tls";
    default:
      return "protocol";
  }
}

}  // namespace

std::string HttpResult::Describe() const {
  if (status != 0) return absl::StrCat("HTTP ", status);
  return error_detail.empty() ? error : absl::StrCat(error, ": ", error_detail);
}

HttpOptions HttpOptions::PingFromConfig(const Config& config) {
  return {config.webhook_connect_timeout, std::min(config.webhook_timeout, config.write_timeout / 2)};
}

HttpResult PostJson(const std::string& url, const Headers& headers, const std::string& body,
                    const HttpOptions& options) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpResult result;
  Received received;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  curl_slist* list = curl_slist_append(nullptr, "Content-Type: application/json");
  list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
  for (const auto& [name, value] : headers) list = curl_slist_append(list, absl::StrCat(name, ": ", value).c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(list, curl_slist_free_all);
  char error[CURL_ERROR_SIZE] = {0};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "hotel-data-service-webhooks/" HOTEL_VERSION);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(options.connect_timeout)));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(options.total_timeout)));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &received);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &received);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  const absl::Time start = absl::Now();
  const CURLcode code = curl_easy_perform(c);
  result.duration = absl::Now() - start;
  if (code != CURLE_OK) {
    result.error = ErrorClass(code);
    result.error_detail = error[0] != 0 ? error : curl_easy_strerror(code);
    return result;
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  result.status = static_cast<int>(status);
  result.response_prefix = std::move(received.prefix);
  result.retry_after = received.retry_after;
  return result;
}

}  // namespace hotel::webhooks
