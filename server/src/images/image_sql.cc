#include "images/image_sql.h"

#include "images/image_model.h"

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
    }
    AddFile({row[c::kVariant].c_str(), row[c::kFormat].c_str(), row[c::kStorageKey].c_str(),
             row[c::kFileWidth].as<int>(), row[c::kFileHeight].as<int>(), row[c::kFileBytes].as<int64_t>()},
            cdn_base_url, image);
  }
}

}  // namespace hotel::images
