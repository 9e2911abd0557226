#include "images/image_repository.h"

#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "db/existence.h"
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

// The image request_id created for owner; REQUEST_ID_IN_USE when another owner's upload used it.
absl::StatusOr<std::optional<hotel::v1::Image>> FindImageByRequest(db::Session& session, pqxx::transaction_base& txn,
                                                                   const ImageOwner& owner,
                                                                   absl::string_view request_id,
                                                                   absl::string_view cdn_base_url) {
  auto found = FirstImage(
      session.Exec(txn, {std::string(sql::images::kSelectRequestImage),
                         {std::string(request_id), owner.room_type_id, owner.property_id, owner.room_number}}),
      cdn_base_url);
  if (found.has_value()) return found;
  if (!session.Exec(txn, {std::string(sql::images::kSelectRequestUsed), {std::string(request_id)}}).empty()) {
    return InvalidField("request_id", "was used for an upload to another gallery: choose a new one",
                        "REQUEST_ID_IN_USE");
  }
  return std::optional<hotel::v1::Image>();
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
                                                                               absl::string_view request_id) {
  absl::StatusOr<std::optional<hotel::v1::Image>> found;
  absl::Status status = pool_.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::nontransaction txn(session.connection());
    found = FindImageByRequest(session, txn, owner, request_id, cdn_base_url_);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<RegisteredImage> ImageRepository::Register(const NewImage& image) {
  RegisteredImage registered;
  absl::Status status = pool_.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    if (auto s = CheckOwnerExists(session, txn, image.owner); !s.ok()) return s;
    if (!image.request_id.empty()) {
      session.Exec(txn, {std::string(sql::images::kLockUploadRequest), {image.request_id}});
      auto earlier = FindImageByRequest(session, txn, image.owner, image.request_id, cdn_base_url_);
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

}  // namespace hotel::images
