#include "images/image_repository.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "api/idempotency.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "images/image_request.h"
#include "images/image_sql.h"
#include "sql/images.h"

namespace hotel::images {
namespace {

// The owner's images (all, or the one with content_sha256 when it is not empty), in gallery order.
db::SqlQuery OwnerImagesSql(const ImageOwner& owner, absl::string_view content_sha256) {
  if (owner.is_room_type()) {
    return {std::string(sql::images::kSelectRoomTypeImages), {owner.room_type_id, std::string(content_sha256)}};
  }
  return {std::string(sql::images::kSelectRoomImages),
          {owner.property_id, owner.room_number, std::string(content_sha256)}};
}

std::optional<hotel::v1::Image> FirstImage(const pqxx::result& rows, absl::string_view cdn_base_url) {
  google::protobuf::RepeatedPtrField<hotel::v1::Image> found;
  ReadImageRows(rows, cdn_base_url, &found);
  if (found.empty()) return std::nullopt;
  return found[0];
}

absl::Status CheckOwnerExists(db::Session& session, pqxx::transaction_base& txn, const ImageOwner& owner) {
  if (owner.is_room_type()) return db::CheckRoomTypeExists(session, txn, owner.room_type_id);
  return db::CheckRoomExists(session, txn, owner.property_id, owner.room_number);
}

std::optional<hotel::v1::Image> FindImageByContent(db::Session& session, pqxx::transaction_base& txn,
                                                   const ImageOwner& owner, absl::string_view content_sha256,
                                                   absl::string_view cdn_base_url) {
  return FirstImage(session.Exec(txn, OwnerImagesSql(owner, content_sha256)), cdn_base_url);
}

// The image request_id created for owner from the same original; REQUEST_ID_REUSED (as for every
// other request_id of the API) when another owner's upload or another file used it.
absl::StatusOr<std::optional<hotel::v1::Image>> FindImageByRequest(db::Session& session, pqxx::transaction_base& txn,
                                                                   const ImageOwner& owner,
                                                                   absl::string_view request_id,
                                                                   absl::string_view content_sha256,
                                                                   absl::string_view cdn_base_url) {
  auto found = FirstImage(session.Exec(txn, {std::string(sql::images::kSelectRequestImage),
                                             {std::string(request_id), owner.room_type_id, owner.property_id,
                                              owner.room_number, std::string(content_sha256)}}),
                          cdn_base_url);
  if (found.has_value()) return found;
  if (!session.Exec(txn, {std::string(sql::images::kSelectRequestUsed), {std::string(request_id)}}).empty()) {
    return api::RequestIdReusedError();
  }
  return std::optional<hotel::v1::Image>();
}

absl::Status ImageNotFound(absl::string_view id) {
  return NotFoundError("IMAGE_NOT_FOUND", absl::StrCat("image ", id, " does not exist"));
}

// Locks owner's row, first in the lock order; NOT_FOUND naming what is missing.
absl::Status LockGallery(db::Session& session, pqxx::transaction_base& txn, const ImageOwner& owner) {
  const db::SqlQuery lock =
      owner.is_room_type()
          ? db::SqlQuery{std::string(sql::images::kLockRoomTypeGallery), {owner.room_type_id}}
          : db::SqlQuery{std::string(sql::images::kLockRoomGallery), {owner.property_id, owner.room_number}};
  if (!session.Exec(txn, lock).empty()) return absl::OkStatus();
  if (auto s = CheckOwnerExists(session, txn, owner); !s.ok()) return s;
  return NotFoundError("NOT_FOUND", absl::StrCat(owner.Describe(), " does not exist"));
}

bool ReadImage(db::Session& session, pqxx::transaction_base& txn, const std::string& id, absl::string_view cdn_base_url,
               hotel::v1::Image* out) {
  google::protobuf::RepeatedPtrField<hotel::v1::Image> found;
  ReadImageRows(session.Exec(txn, {std::string(sql::images::kSelectImage), {id}}), cdn_base_url, &found);
  if (found.empty()) return false;
  out->Swap(&found[0]);
  return true;
}

using ImageWrite = std::function<absl::Status(db::Session&, pqxx::transaction_base&, const hotel::v1::Image&)>;

// Runs write in one transaction on image id as it is once its gallery is locked: the owner is
// found, locked, and the image read again (it may have been removed meanwhile).
absl::Status WriteLockedImage(db::ConnectionPool& pool, const std::string& id, absl::string_view cdn_base_url,
                              const ImageWrite& write) {
  return pool.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    auto owners = session.Exec(txn, {std::string(sql::images::kSelectImageOwner), {id}});
    if (owners.empty()) return ImageNotFound(id);
    const ImageOwner owner{owners[0]["room_type_id"].c_str(), owners[0]["property_id"].c_str(),
                           owners[0]["room_number"].c_str()};
    if (auto s = LockGallery(session, txn, owner); !s.ok()) return s;
    hotel::v1::Image current;
    if (!ReadImage(session, txn, id, cdn_base_url, &current)) return ImageNotFound(id);
    if (auto s = write(session, txn, current); !s.ok()) return s;
    session.Commit(txn);
    return absl::OkStatus();
  });
}

}  // namespace

std::string ImageOwner::Describe() const {
  if (is_room_type()) return absl::StrCat("room type ", room_type_id);
  return absl::StrCat("room ", room_number, " of property ", property_id);
}

void ReadImages(db::Session& session, pqxx::transaction_base& txn, const ImageOwner& owner,
                absl::string_view cdn_base_url, google::protobuf::RepeatedPtrField<hotel::v1::Image>* out) {
  ReadImageRows(session.Exec(txn, OwnerImagesSql(owner, "")), cdn_base_url, out);
}

absl::Status ImageRepository::List(const ImageOwner& owner, google::protobuf::RepeatedPtrField<hotel::v1::Image>* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    out->Clear();
    ReadImages(session, txn, owner, cdn_base_url_, out);
    // An empty gallery may mean an unknown owner; only then is the extra look-up needed.
    if (out->empty()) return CheckOwnerExists(session, txn, owner);
    return absl::OkStatus();
  });
}

absl::Status ImageRepository::CheckOwner(const ImageOwner& owner) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    return CheckOwnerExists(session, txn, owner);
  });
}

absl::StatusOr<std::optional<hotel::v1::Image>> ImageRepository::FindByContent(const ImageOwner& owner,
                                                                               absl::string_view content_sha256) {
  std::optional<hotel::v1::Image> found;
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    found = FindImageByContent(session, txn, owner, content_sha256, cdn_base_url_);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<std::optional<hotel::v1::Image>> ImageRepository::FindByRequest(const ImageOwner& owner,
                                                                               absl::string_view request_id,
                                                                               absl::string_view content_sha256) {
  absl::StatusOr<std::optional<hotel::v1::Image>> found;
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    found = FindImageByRequest(session, txn, owner, request_id, content_sha256, cdn_base_url_);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<RegisteredImage> ImageRepository::Register(const NewImage& image) {
  RegisteredImage registered;
  absl::Status status = pool_.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    if (auto s = LockGallery(session, txn, image.owner); !s.ok()) return s;
    if (!image.request_id.empty()) {
      session.Exec(txn, {std::string(sql::images::kLockUploadRequest), {image.request_id}});
      auto earlier =
          FindImageByRequest(session, txn, image.owner, image.request_id, image.content_sha256, cdn_base_url_);
      if (!earlier.ok()) return earlier.status();
      if (earlier->has_value()) {
        registered.image = **earlier;
        return absl::OkStatus();  // nothing written: the transaction rolls back
      }
    }
    const db::SqlQuery insert{
        std::string(sql::images::kInsertImage),
        {image.owner.room_type_id, image.owner.property_id, image.owner.room_number, image.content_sha256,
         image.alt_text, absl::StrCat(image.size.width),
         image.sort_order.has_value() ? absl::StrCat(*image.sort_order) : "", absl::StrCat(image.size.height)}};
    auto inserted = session.Exec(txn, insert);
    registered.created = !inserted.empty();
    if (registered.created) {
      const std::string id = inserted[0]["id"].c_str();
      for (const auto& file : image.files) {
        session.Exec(txn, {std::string(sql::images::kInsertImageFile),
                           {id, file.variant, file.format, file.storage_key, absl::StrCat(file.width),
                            absl::StrCat(file.height), absl::StrCat(file.bytes)}});
      }
    }
    auto found = FindImageByContent(session, txn, image.owner, image.content_sha256, cdn_base_url_);
    if (!found.has_value()) return absl::InternalError("registered image not found");
    if (!image.request_id.empty()) {
      session.Exec(txn, {std::string(sql::images::kInsertUploadRequest), {image.request_id, found->id()}});
    }
    session.Commit(txn);
    registered.image = *found;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return registered;
}

absl::Status ImageRepository::Get(const std::string& id, hotel::v1::Image* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    out->Clear();
    return ReadImage(session, txn, id, cdn_base_url_, out) ? absl::OkStatus() : ImageNotFound(id);
  });
}

absl::Status ImageRepository::Update(const std::string& id, const hotel::v1::Image& patch,
                                     const std::vector<std::string>& mask, absl::string_view if_match,
                                     hotel::v1::Image* out) {
  return WriteLockedImage(pool_, id, cdn_base_url_,
                          [&](db::Session& session, pqxx::transaction_base& txn, const hotel::v1::Image& current) {
                            auto plan = PlanImageUpdate(current, patch, mask, if_match);
                            if (!plan.ok()) return plan.status();
                            if (plan->changed) {
                              session.Exec(txn,
                                           {std::string(sql::images::kUpdateImage),
                                            {id, plan->updated.alt_text(), absl::StrCat(plan->updated.sort_order())}});
                            }
                            out->Clear();
                            if (!ReadImage(session, txn, id, cdn_base_url_, out)) return ImageNotFound(id);
                            return absl::OkStatus();
                          });
}

absl::Status ImageRepository::Delete(const std::string& id, absl::string_view etag, absl::string_view if_match) {
  return WriteLockedImage(pool_, id, cdn_base_url_,
                          [&](db::Session& session, pqxx::transaction_base& txn, const hotel::v1::Image& current) {
                            if (auto s = api::CheckEtags(etag, if_match, current.etag(), "image"); !s.ok()) return s;
                            session.Exec(txn, {std::string(sql::images::kDeleteImage), {id}});
                            return absl::OkStatus();
                          });
}

absl::Status ImageRepository::Reorder(const ImageOwner& owner, const std::vector<std::string>& ids,
                                      absl::string_view etag, absl::string_view if_match,
                                      google::protobuf::RepeatedPtrField<hotel::v1::Image>* out) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    if (auto s = LockGallery(session, txn, owner); !s.ok()) return s;
    out->Clear();
    ReadImages(session, txn, owner, cdn_base_url_, out);
    if (auto s = api::CheckEtags(etag, if_match, GalleryEtag(*out), "gallery"); !s.ok()) return s;
    if (auto s = CheckGalleryOrder(ids, *out); !s.ok()) return s;
    session.Exec(txn, {std::string(sql::images::kReorderImages), {db::TextArrayLiteral(ids)}});
    out->Clear();
    ReadImages(session, txn, owner, cdn_base_url_, out);
    session.Commit(txn);
    return absl::OkStatus();
  });
}

}  // namespace hotel::images
