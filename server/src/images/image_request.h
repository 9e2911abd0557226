// Image management requests validated (docs/images.md#managing-images): an update into a plan,
// a reorder into the new order checked against the gallery, and the gallery's etag. Pure,
// unit-tested (server/tests/unit/image_request_test.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotel/v1/images.pb.h"

namespace hotel::images {

inline constexpr size_t kMaxAltTextLength = 500;

// The etag of one image version, as Image.etag and the change feed's IMAGE etag carry it.
std::string ImageEtag(absl::string_view id, int64_t version);

// The etag of a gallery: its images' etags in gallery order, so any change to an image, the
// order, or which images it holds gives a new one.
std::string GalleryEtag(const google::protobuf::RepeatedPtrField<hotel::v1::Image>& gallery);

// A planned update: the image with the named fields changed.
struct ImageUpdatePlan {
  hotel::v1::Image updated;
  bool changed = false;  // false: nothing to write (no new version)
};

// Errors: INVALID_ARGUMENT naming each bad field (unknown mask paths name update_mask; id and the
// owner fields only with their current values; alt_text 1 to 500 characters; sort_order 0 or
// more), then ABORTED ETAG_MISMATCH for a stale etag (the body's or if_match).
absl::StatusOr<ImageUpdatePlan> PlanImageUpdate(const hotel::v1::Image& current, const hotel::v1::Image& patch,
                                                const std::vector<std::string>& mask, absl::string_view if_match);

// The ids of a reorder, lower-cased; INVALID_ARGUMENT naming image_ids when one is no UUID or
// repeats, or there are none.
absl::StatusOr<std::vector<std::string>> ParseGalleryOrder(const hotel::v1::GalleryOrder& order);

// OK when ids are exactly the gallery's ids (in any order), else INVALID_ARGUMENT naming
// image_ids with the ids missing and the ids not in the gallery.
absl::Status CheckGalleryOrder(const std::vector<std::string>& ids,
                               const google::protobuf::RepeatedPtrField<hotel::v1::Image>& gallery);

}  // namespace hotel::images
