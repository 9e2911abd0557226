#include "blocks/block_sql.h"

#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "db/timestamps.h"
#include "sql/blocks.h"

namespace hotel::blocks {

using hotel::v1::RoomBlock;

void ReadRoomBlock(const pqxx::row& row, RoomBlock* out) {
  namespace c = room_block_columns;
  out->set_id(row[c::kId].c_str());
  out->set_property_id(row[c::kPropertyId].c_str());
  out->set_room_number(row[c::kRoomNumber].c_str());
  out->set_type(db::ParseEnum<RoomBlock::Type>(row[c::kType].c_str()));
  out->set_start_date(row[c::kStartDate].c_str());
  out->set_end_date(row[c::kEndDate].c_str());
  out->set_reason(row[c::kReason].c_str());
  out->set_issue_id(row[c::kIssueId].c_str());
  out->set_opened_by_issue(absl::string_view(row[c::kOrigin].c_str()) == "ISSUE");
  out->set_cancelled(absl::string_view(row[c::kStatus].c_str()) == "CANCELLED");
  db::ReadTimestamp(row[c::kCreatedAtMicros], out->mutable_created_at());
  db::ReadTimestamp(row[c::kUpdatedAtMicros], out->mutable_updated_at());
  if (!row[c::kCancelledAtMicros].is_null()) db::ReadTimestamp(row[c::kCancelledAtMicros], out->mutable_cancelled_at());
  out->set_updated_by(row[c::kUpdatedBy].c_str());
  out->set_etag(RoomBlockEtag(out->id(), row[c::kVersion].as<int64_t>()));
  out->set_return_condition(db::ParseEnum<hotel::v1::RoomHousekeeping::Condition>(row[c::kReturnCondition].c_str()));
}

std::string RoomBlockEtag(absl::string_view id, int64_t version) {
  return api::VersionEtag("room_block", id, {version});
}

db::SqlQuery BuildListRoomBlocksSql(const RoomBlockListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  if (!q.property_id.empty()) where.Add(absl::StrCat("b.property_id = ", sql.Bind(q.property_id)));
  if (!q.room_number.empty()) where.Add(absl::StrCat("b.room_number = ", sql.Bind(q.room_number)));
  if (q.type) where.Add(absl::StrCat("b.type = ", sql.Bind(*q.type)));
  if (!q.show_cancelled) where.Add("b.status = 'ACTIVE'");
  if (!q.from.empty() || !q.to.empty()) {
    // [from, to) overlaps the block's dates; an open side is unbounded.
    where.Add(absl::StrCat("daterange(b.start_date, b.end_date) && daterange(NULLIF(", sql.Bind(q.from),
                           ", '')::date, NULLIF(", sql.Bind(q.to), ", '')::date)"));
  }
  if (!q.after.empty()) {
    const std::string property = sql.Bind(q.after[0]);
    const std::string days = sql.Bind(q.after[1]);
    const std::string id = sql.Bind(q.after[2]);
    where.Add(absl::StrCat("(b.property_id, b.start_date, b.id) > (", property, ", date '1970-01-01' + ", days,
                           "::int, ", id, "::uuid)"));
  }
  sql.text = absl::StrCat("SELECT ", sql::blocks::kRoomBlockColumns, " FROM room_blocks b", where.ToSql(),
                          " ORDER BY b.property_id, b.start_date, b.id");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

std::vector<std::string> RoomBlockPageKey(const pqxx::row& row) {
  return {row[room_block_columns::kPropertyId].c_str(), row[room_block_columns::kStartDays].c_str(),
          row[room_block_columns::kId].c_str()};
}

}  // namespace hotel::blocks
