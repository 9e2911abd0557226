#include "images/image_repository.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/errors.h"
#include "db/existence.h"

namespace hotel::images {
namespace {

// "WHERE"-condition selecting owner's images, binding its parameters into sql.
std::string OwnerCondition(const ImageOwner& owner, db::SqlQuery& sql) {
  if (owner.is_room_type()) return absl::StrCat("i.room_type_id = ", sql.Bind(owner.room_type_id));
  std::string property = sql.Bind(owner.property_id);
  std::string number = sql.Bind(owner.room_number);
  return absl::StrCat("i.room_type_id IS NULL AND i.property_id = ", property, " AND i.room_number = ", number);
}

constexpr absl::string_view kImageColumns =
    "SELECT i.id, i.alt_text, i.sort_order, i.width, i.height,"
    " f.variant, f.format, f.storage_key, f.width, f.height, f.bytes"
    " FROM images i JOIN image_files f ON f.image_id = i.id";

// Rows of kImageColumns, grouped by image in row order, into out.
void ReadImageRows(const pqxx::result& rows, absl::string_view cdn_base_url,
                   google::protobuf::RepeatedPtrField<hotel::v1::Image>* out) {
  hotel::v1::Image* image = nullptr;
  for (const auto& row : rows) {
    if (image == nullptr || image->id() != row[0].c_str()) {
      image = out->Add();
      image->set_id(row[0].c_str());
      image->set_alt_text(row[1].c_str());
      image->set_sort_order(row[2].as<int>());
      image->set_width(row[3].as<int>());
      image->set_height(row[4].as<int>());
    }
    AddFile({row[5].c_str(), row[6].c_str(), row[7].c_str(), row[8].as<int>(), row[9].as<int>(), row[10].as<int64_t>()},
            cdn_base_url, image);
  }
}

absl::Status CheckOwnerExists(db::Session& session, pqxx::transaction_base& txn, const ImageOwner& owner) {
  if (owner.is_room_type()) return db::CheckRoomTypeExists(session, txn, owner.room_type_id);
  return db::CheckRoomExists(session, txn, owner.property_id, owner.room_number);
}

std::optional<hotel::v1::Image> FindImageByContent(db::Session& session, pqxx::transaction_base& txn,
                                                   const ImageOwner& owner, absl::string_view content_sha256,
                                                   absl::string_view cdn_base_url) {
  db::SqlQuery sql;
  std::string condition = OwnerCondition(owner, sql);
  sql.text = absl::StrCat(kImageColumns, " WHERE ", condition,
                          " AND i.content_sha256 = ", sql.Bind(std::string(content_sha256)));
  google::protobuf::RepeatedPtrField<hotel::v1::Image> found;
  ReadImageRows(session.Exec(txn, sql), cdn_base_url, &found);
  if (found.empty()) return std::nullopt;
  return found[0];
}

}  // namespace

std::string ImageOwner::Describe() const {
  if (is_room_type()) return absl::StrCat("room type ", room_type_id);
  return absl::StrCat("room ", room_number, " of property ", property_id);
}

void ReadImages(db::Session& session, pqxx::transaction_base& txn, const ImageOwner& owner,
                absl::string_view cdn_base_url, google::protobuf::RepeatedPtrField<hotel::v1::Image>* out) {
  db::SqlQuery sql;
  std::string condition = OwnerCondition(owner, sql);
  sql.text = absl::StrCat(kImageColumns, " WHERE ", condition, " ORDER BY i.sort_order, i.id, f.variant, f.format");
  ReadImageRows(session.Exec(txn, sql), cdn_base_url, out);
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

absl::StatusOr<RegisteredImage> ImageRepository::Register(const NewImage& image) {
  RegisteredImage registered;
  absl::Status status = pool_.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    if (auto s = CheckOwnerExists(session, txn, image.owner); !s.ok()) return s;
    db::SqlQuery insert;
    std::string sort_order;
    if (image.sort_order.has_value()) {
      sort_order = insert.Bind(absl::StrCat(*image.sort_order));
    } else {
      std::string condition = OwnerCondition(image.owner, insert);
      sort_order = absl::StrCat("(SELECT coalesce(max(i.sort_order) + 1, 0) FROM images i WHERE ", condition, ")");
    }
    std::string room_type = insert.Bind(image.owner.room_type_id);
    std::string property = insert.Bind(image.owner.property_id);
    std::string number = insert.Bind(image.owner.room_number);
    std::string sha = insert.Bind(image.content_sha256);
    std::string alt = insert.Bind(image.alt_text);
    std::string width = insert.Bind(absl::StrCat(image.size.width));
    std::string height = insert.Bind(absl::StrCat(image.size.height));
    // ON CONFLICT covers a concurrent ingestion of the same original: the first one wins.
    insert.text = absl::StrCat(
        "INSERT INTO images (room_type_id, property_id, room_number, content_sha256, alt_text, sort_order, width, "
        "height)"
        " VALUES (nullif(",
        room_type, ", ''), nullif(", property, ", ''), nullif(", number, ", ''), ", sha, ", ", alt, ", ", sort_order,
        ", ", width, ", ", height, ") ON CONFLICT DO NOTHING RETURNING id");
    auto inserted = session.Exec(txn, insert);
    registered.created = !inserted.empty();
    if (registered.created) {
      std::string id = inserted[0][0].c_str();
      for (const auto& file : image.files) {
        db::SqlQuery sql;
        std::vector<std::string> values;
        values.push_back(sql.Bind(id));
        values.push_back(sql.Bind(file.variant));
        values.push_back(sql.Bind(file.format));
        values.push_back(sql.Bind(file.storage_key));
        values.push_back(sql.Bind(absl::StrCat(file.width)));
        values.push_back(sql.Bind(absl::StrCat(file.height)));
        values.push_back(sql.Bind(absl::StrCat(file.bytes)));
        sql.text = absl::StrCat(
            "INSERT INTO image_files (image_id, variant, format, storage_key, width, height, bytes)"
            " VALUES (",
            absl::StrJoin(values, ", "), ")");
        session.Exec(txn, sql);
      }
    }
    auto found = FindImageByContent(session, txn, image.owner, image.content_sha256, cdn_base_url_);
    txn.commit();
    if (!found.has_value()) return absl::InternalError("registered image not found");
    registered.image = *found;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return registered;
}

}  // namespace hotel::images
