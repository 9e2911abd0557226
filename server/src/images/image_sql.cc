#include "images/image_sql.h"

#include "images/image_model.h"
#include "images/image_request.h"

namespace hotel::images {

void ReadImageRows(const pqxx::result& rows, absl::string_view cdn_base_url,
                   google::protobuf::RepeatedPtrField<hotel::v1::Image>* out) {
  namespace c = image_columns;
  hotel::v1::Image* image = nullptr;
  for (const auto& row : rows) {
    if (image == nullptr || image->id() != row[c::kId].c_str()) {
      image = out->Add();
      image->set_id(row[c::kId].c_str());
      image->set_alt_text(row[c::kAltText].c_str());
      image->set_sort_order(row[c::kSortOrder].as<int>());
      image->set_width(row[c::kWidth].as<int>());
      image->set_height(row[c::kHeight].as<int>());
      image->set_etag(ImageEtag(image->id(), row[c::kVersion].as<int64_t>()));
      image->set_room_type_id(row[c::kRoomTypeId].c_str());
      image->set_property_id(row[c::kPropertyId].c_str());
      image->set_room_number(row[c::kRoomNumber].c_str());
    }
    AddFile({row[c::kVariant].c_str(), row[c::kFormat].c_str(), row[c::kStorageKey].c_str(),
             row[c::kFileWidth].as<int>(), row[c::kFileHeight].as<int>(), row[c::kFileBytes].as<int64_t>()},
            cdn_base_url, image);
  }
}

}  // namespace hotel::images
