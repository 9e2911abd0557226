// Image records in PostgreSQL: reading galleries (for the image endpoints and the room type and
// room detail responses), registering ingested images, and managing them (update, delete,
// reorder). Every write locks the owner's row first (docs/performance.md#lock-order), so the
// writes of one gallery run one after the other; the owner's version (its etag) is bumped by a
// trigger (migration 0015), whatever the write path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "db/pool.h"
#include "hotel/v1/images.pb.h"
#include "images/image_model.h"

namespace hotel::images {

// Who an image belongs to: a room type, or a room of a property.
struct ImageOwner {
  std::string room_type_id;
  std::string property_id;
  std::string room_number;

  static ImageOwner RoomType(std::string id) { return {std::move(id), "", ""}; }
  static ImageOwner Room(std::string property_id, std::string number) {
    return {"", std::move(property_id), std::move(number)};
  }
  bool is_room_type() const { return !room_type_id.empty(); }
  std::string Describe() const;
};

// An ingested image, its files already on the CDN origin.
struct NewImage {
  ImageOwner owner;
  std::string content_sha256;  // of the uploaded original
  std::string alt_text;
  std::optional<int> sort_order;  // default: after the owner's last image
  Size size;                      // of the original
  std::vector<ImageFile> files;
  std::string request_id;  // optional: remembered with the image, see FindByRequest
};

// Appends owner's images, in gallery order, to out, on the caller's connection: a detail
// response reads its record and its images without a second trip to the pool.
void ReadImages(db::Session& session, pqxx::transaction_base& txn, const ImageOwner& owner,
                absl::string_view cdn_base_url, google::protobuf::RepeatedPtrField<hotel::v1::Image>* out);

struct RegisteredImage {
  hotel::v1::Image image;
  bool created = false;  // false: this original was already registered for the owner
};

class ImageRepository {
 public:
  ImageRepository(db::ConnectionPool& pool, std::string cdn_base_url)
      : pool_(pool), cdn_base_url_(std::move(cdn_base_url)) {}

  // NOT_FOUND ROOM_TYPE_NOT_FOUND / PROPERTY_NOT_FOUND / ROOM_NOT_FOUND for an unknown owner.
  absl::Status List(const ImageOwner& owner, google::protobuf::RepeatedPtrField<hotel::v1::Image>* out);
  // NOT_FOUND unless owner exists.
  absl::Status CheckOwner(const ImageOwner& owner);
  // The image already registered for owner with this original, if any.
  absl::StatusOr<std::optional<hotel::v1::Image>> FindByContent(const ImageOwner& owner,
                                                                absl::string_view content_sha256);
  // The image an upload with request_id created for owner from the same original (content_sha256),
  // if any. FAILED_PRECONDITION REQUEST_ID_REUSED (as for every request_id of the API) when the id
  // was used for another owner or another file.
  absl::StatusOr<std::optional<hotel::v1::Image>> FindByRequest(const ImageOwner& owner, absl::string_view request_id,
                                                                absl::string_view content_sha256);
  // Inserts the image and its files in one transaction, its owner locked first (so the default
  // sort order is computed against a gallery nobody else is changing). If the same original was
  // registered for the owner meanwhile (a concurrent ingestion), or the same request_id (a
  // concurrent retry, serialised by the database), returns that image and inserts nothing.
  absl::StatusOr<RegisteredImage> Register(const NewImage& image);

  // id is a lower-case UUID in the methods below; NOT_FOUND IMAGE_NOT_FOUND when no image has it.
  absl::Status Get(const std::string& id, hotel::v1::Image* out);
  // Changes alt_text and sort_order as PlanImageUpdate plans it (INVALID_ARGUMENT, ABORTED
  // ETAG_MISMATCH); out is the image after it.
  absl::Status Update(const std::string& id, const hotel::v1::Image& patch, const std::vector<std::string>& mask,
                      absl::string_view if_match, hotel::v1::Image* out);
  // Removes the image (ABORTED ETAG_MISMATCH when etag or if_match is stale).
  absl::Status Delete(const std::string& id, absl::string_view etag, absl::string_view if_match);
  // Gives the images of owner's gallery the sort orders 0, 1, ... in the order of ids, which must
  // be exactly the gallery's ids (INVALID_ARGUMENT image_ids); ABORTED ETAG_MISMATCH when etag or
  // if_match is not the gallery's etag. out is the gallery after it.
  absl::Status Reorder(const ImageOwner& owner, const std::vector<std::string>& ids, absl::string_view etag,
                       absl::string_view if_match, google::protobuf::RepeatedPtrField<hotel::v1::Image>* out);

 private:
  db::ConnectionPool& pool_;
  const std::string cdn_base_url_;
};

}  // namespace hotel::images
