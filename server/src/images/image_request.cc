#include "images/image_request.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/etag.h"
#include "api/identifiers.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "common/page_token.h"

namespace hotel::images {
namespace {

using hotel::v1::Image;

constexpr size_t kIdsNamedInErrors = 5;

std::string NameSome(const std::vector<std::string>& ids) {
  std::vector<std::string> named(ids.begin(), ids.begin() + std::min(ids.size(), kIdsNamedInErrors));
  std::string text = absl::StrJoin(named, ", ");
  if (ids.size() > kIdsNamedInErrors) absl::StrAppend(&text, " and ", ids.size() - kIdsNamedInErrors, " more");
  return text;
}

}  // namespace

std::string ImageEtag(absl::string_view id, int64_t version) { return api::VersionEtag("image", id, {version}); }

std::string GalleryEtag(const google::protobuf::RepeatedPtrField<Image>& gallery) {
  std::string canonical = "gallery";
  for (const auto& image : gallery) absl::StrAppend(&canonical, "|", image.etag());
  return FilterFingerprint(canonical);
}

absl::StatusOr<ImageUpdatePlan> PlanImageUpdate(const Image& current, const Image& patch,
                                                const std::vector<std::string>& mask, absl::string_view if_match) {
  static const std::set<std::string> kUpdatable = {"alt_text", "sort_order"};
  static const std::set<std::string> kImmutable = {"id", "room_type_id", "property_id", "room_number"};
  FieldErrors errors;
  const std::set<std::string> fields = api::ResolveUpdateMask(current, patch, mask, kUpdatable, kImmutable, errors);
  Image candidate = patch;
  if (fields.count("alt_text")) {
    candidate.set_alt_text(api::Text("alt_text", patch.alt_text(), kMaxAltTextLength, true, errors));
  }
  if (fields.count("sort_order") && patch.sort_order() < 0) errors.Add("sort_order", "must be 0 or more");
  if (!errors.empty()) return errors.ToStatus();
  if (auto s = api::CheckEtags(patch.etag(), if_match, current.etag(), "image"); !s.ok()) return s;
  ImageUpdatePlan plan;
  plan.updated = current;
  plan.changed = api::CopyFields(candidate, fields, &plan.updated);
  return plan;
}

absl::StatusOr<std::vector<std::string>> ParseGalleryOrder(const hotel::v1::GalleryOrder& order) {
  if (order.image_ids().empty()) {
    return InvalidField("image_ids", "must list the ids of every image of the gallery in their new order");
  }
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (int i = 0; i < order.image_ids_size(); ++i) {
    if (auto s = api::ValidateUuid("image_ids", order.image_ids(i)); !s.ok()) {
      return InvalidField("image_ids", absl::StrCat("item ", i, " is not a UUID"));
    }
    std::string id = absl::AsciiStrToLower(order.image_ids(i));
    if (!seen.insert(id).second) return InvalidField("image_ids", absl::StrCat("lists ", id, " more than once"));
    ids.push_back(std::move(id));
  }
  return ids;
}

absl::Status CheckGalleryOrder(const std::vector<std::string>& ids,
                               const google::protobuf::RepeatedPtrField<Image>& gallery) {
  std::set<std::string> listed(ids.begin(), ids.end());
  std::set<std::string> current;
  std::vector<std::string> missing;
  for (const auto& image : gallery) {
    current.insert(image.id());
    if (!listed.count(image.id())) missing.push_back(image.id());
  }
  std::vector<std::string> unknown;
  for (const auto& id : ids) {
    if (!current.count(id)) unknown.push_back(id);
  }
  if (missing.empty() && unknown.empty()) return absl::OkStatus();
  std::vector<std::string> problems;
  if (!missing.empty()) problems.push_back(absl::StrCat("leaves out ", NameSome(missing)));
  if (!unknown.empty()) problems.push_back(absl::StrCat("lists images not in the gallery: ", NameSome(unknown)));
  return InvalidField("image_ids", absl::StrCat("must list every image of the gallery exactly once; it ",
                                                absl::StrJoin(problems, " and ")));
}

}  // namespace hotel::images
