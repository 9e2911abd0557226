#include "api/etag.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/errors.h"
#include "common/page_token.h"

namespace hotel::api {
namespace {
constexpr char kEtagPartSeparator = '.';
}  // namespace

std::string VersionEtag(absl::string_view kind, absl::string_view id, std::initializer_list<int64_t> versions) {
  std::string canonical = absl::StrCat(kind, "|", id);
  for (int64_t version : versions) absl::StrAppend(&canonical, "|", version);
  return FilterFingerprint(canonical);
}

std::string NormalizeEtag(absl::string_view etag) {
  etag = absl::StripAsciiWhitespace(etag);
  if (absl::StartsWith(etag, "W/")) etag.remove_prefix(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return std::string(etag);
}

bool EtagMatches(absl::string_view client_etag, absl::string_view current_etag) {
  // If-Match may list several etags, or be "*".
  for (absl::string_view candidate : absl::StrSplit(client_etag, ',')) {
    const std::string normalized = NormalizeEtag(candidate);
    if (normalized == "*") return true;
    for (absl::string_view part : absl::StrSplit(normalized, kEtagPartSeparator)) {
      if (!current_etag.empty() && part == current_etag) return true;
    }
  }
  return false;
}

std::string RepresentationEtag(const google::protobuf::Message& resource) {
  using google::protobuf::FieldDescriptor;
  auto etag_of = [](const google::protobuf::Message& message) -> std::string {
    const FieldDescriptor* etag = message.GetDescriptor()->FindFieldByName("etag");
    if (etag == nullptr || etag->type() != FieldDescriptor::TYPE_STRING || etag->is_repeated()) return "";
    return message.GetReflection()->GetString(message, etag);
  };
  std::string tag = etag_of(resource);
  if (tag.empty()) return tag;
  const google::protobuf::Reflection* reflection = resource.GetReflection();
  const google::protobuf::Descriptor* descriptor = resource.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->type() != FieldDescriptor::TYPE_MESSAGE || field->is_repeated() ||
        !reflection->HasField(resource, field)) {
      continue;
    }
    const std::string part = etag_of(reflection->GetMessage(resource, field));
    if (!part.empty()) absl::StrAppend(&tag, std::string(1, kEtagPartSeparator), part);
  }
  return tag;
}

absl::Status CheckEtags(absl::string_view body_etag, absl::string_view if_match, absl::string_view current_etag,
                        absl::string_view what) {
  if (!body_etag.empty() && !EtagMatches(body_etag, current_etag)) {
    return AbortedError("ETAG_MISMATCH",
                        absl::StrCat("the ", what, " was changed since this etag was read; fetch it again and retry"));
  }
  if (!if_match.empty() && !EtagMatches(if_match, current_etag)) {
    return AbortedError("ETAG_MISMATCH", absl::StrCat("the ", what,
                                                      " was changed since the If-Match etag was read; fetch it "
                                                      "again and retry"));
  }
  return absl::OkStatus();
}

}  // namespace hotel::api
