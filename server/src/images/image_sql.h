// The statements that read images (sql/*.sql) and the row reader beside them.
#pragma once

#include <pqxx/pqxx>

#include "absl/strings/string_view.h"
#include "hotel/v1/images.pb.h"

namespace hotel::images {

// The columns of images/sql/_image_select.sql, in order: one row per file of an image. The
// reader uses these names, never numbers (sql_columns_test checks the order against the file).
namespace image_columns {
enum : int {
  kId,
  kAltText,
  kSortOrder,
  kWidth,
  kHeight,
  kVariant,
  kFormat,
  kStorageKey,
  kFileWidth,
  kFileHeight,
  kFileBytes,
  kVersion,
  kRoomTypeId,
  kPropertyId,
  kRoomNumber,
  kCount
};
}  // namespace image_columns

// Rows of the image statements, grouped by image in row order, appended to out.
void ReadImageRows(const pqxx::result& rows, absl::string_view cdn_base_url,
                   google::protobuf::RepeatedPtrField<hotel::v1::Image>* out);

}  // namespace hotel::images
