// The statements that read room blocks, the row reader and the page key beside them.
#pragma once

#include <cstdint>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "blocks/block_request.h"
#include "db/sql.h"
#include "hotel/v1/room_blocks.pb.h"

namespace hotel::blocks {

// The columns of blocks/sql/_room_block_columns.sql, in order: readers and page keys use these
// names, never numbers (sql_columns_test checks the order against the file).
namespace room_block_columns {
enum : int {
  kId,
  kPropertyId,
  kRoomNumber,
  kType,
  kStartDate,
  kEndDate,
  kReason,
  kIssueId,
  kOrigin,
  kStatus,
  kCreatedAtMicros,
  kUpdatedAtMicros,
  kCancelledAtMicros,
  kUpdatedBy,
  kVersion,
  kStartDays,
  kReturnCondition,
  kCount
};
}  // namespace room_block_columns

// Fills every field, etag included.
void ReadRoomBlock(const pqxx::row& row, hotel::v1::RoomBlock* out);

// The etag of a block version: opaque, stable across processes (also the change feed's).
std::string RoomBlockEtag(absl::string_view id, int64_t version);

// The list statement (page_size + 1 rows), ordered by property, start date, id.
db::SqlQuery BuildListRoomBlocksSql(const RoomBlockListQuery& query);

// The page-token key of a listed row: property id, start date (days), id.
std::vector<std::string> RoomBlockPageKey(const pqxx::row& row);

}  // namespace hotel::blocks
