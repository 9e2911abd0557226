#include "rooms/room_sql.h"

#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "db/timestamps.h"
#include "rooms/room_readiness.h"
#include "sql/db.h"
#include "sql/rooms.h"

namespace hotel::rooms {

using hotel::v1::Property;
using hotel::v1::Room;
using hotel::v1::RoomType;

db::SqlQuery BuildListPropertiesSql(const PropertyListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  if (q.enabled) where.Add(absl::StrCat("p.enabled = ", sql.Bind(*q.enabled ? "true" : "false"), "::bool"));
  if (!q.after.empty()) where.Add(absl::StrCat("p.id > ", sql.Bind(q.after[0])));
  sql.text = absl::StrCat(sql::rooms::kPropertySelect, where.ToSql(), " ORDER BY p.id");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

db::SqlQuery BuildListRoomTypesSql(const RoomTypeListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  if (!q.property_id.empty()) where.Add(absl::StrCat("t.property_id = ", sql.Bind(q.property_id)));
  if (q.category) where.Add(absl::StrCat("t.category = ", sql.Bind(*q.category)));
  if (!q.amenities.empty()) {
    where.Add(absl::StrCat("t.amenities @> ", sql.Bind(db::TextArrayLiteral(q.amenities)), "::text[]"));
  }
  if (q.min_size_sqm) where.Add(absl::StrCat("t.size_sqm >= ", sql.Bind(absl::StrCat(*q.min_size_sqm)), "::numeric"));
  if (q.max_size_sqm) where.Add(absl::StrCat("t.size_sqm <= ", sql.Bind(absl::StrCat(*q.max_size_sqm)), "::numeric"));
  if (q.guests) where.Add(absl::StrCat("t.max_guests >= ", sql.Bind(absl::StrCat(*q.guests)), "::int"));
  if (!q.show_retired) where.Add("t.retired_at IS NULL");
  if (!q.after.empty()) where.Add(absl::StrCat("t.id > ", sql.Bind(q.after[0])));
  sql.text = absl::StrCat(sql::rooms::kRoomTypeSelect, where.ToSql(), " ORDER BY t.id");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

db::SqlQuery BuildListRoomsSql(const RoomListQuery& q) {
  db::SqlQuery sql;
  db::WhereClause where;
  if (!q.property_id.empty()) where.Add(absl::StrCat("r.property_id = ", sql.Bind(q.property_id)));
  if (q.floor) where.Add(absl::StrCat("r.floor = ", sql.Bind(absl::StrCat(*q.floor)), "::int"));
  if (q.category) where.Add(absl::StrCat("t.category = ", sql.Bind(*q.category)));
  if (!q.amenities.empty()) {
    where.Add(absl::StrCat("(t.amenities || r.extra_amenities) @> ", sql.Bind(db::TextArrayLiteral(q.amenities)),
                           "::text[]"));
  }
  if (q.available) where.Add(absl::StrCat("r.out_of_order = ", sql.Bind(*q.available ? "false" : "true"), "::bool"));
  if (!q.room_type_id.empty()) where.Add(absl::StrCat("r.room_type_id = ", sql.Bind(q.room_type_id)));
  if (q.condition) where.Add(absl::StrCat("r.housekeeping_condition = ", sql.Bind(*q.condition)));
  if (q.occupancy) where.Add(absl::StrCat("r.housekeeping_occupancy = ", sql.Bind(*q.occupancy)));
  if (q.discrepancy) {
    where.Add(*q.discrepancy == "ANY" ? absl::StrCat("(", sql::db::kRoomDiscrepancy, ") <> ''")
                                      : absl::StrCat("(", sql::db::kRoomDiscrepancy, ") = ", sql.Bind(*q.discrepancy)));
  }
  // The rule in SQL (db/sql/_room_ready.sql), so the filter reads no room it does not answer.
  if (q.ready) where.Add(absl::StrCat(*q.ready ? "" : "NOT ", sql::db::kRoomReady));
  if (!q.show_retired) where.Add("r.retired_at IS NULL");
  if (q.available_dates) {
    const std::string from = sql.Bind(q.available_dates->from);
    const std::string to = sql.Bind(q.available_dates->to);
    // No OUT_OF_ORDER block on those dates, and no open issue holding the room (from the date it
    // went out of order, with no end: blocks/sql/select_availability.sql counts it the same way).
    const std::string overlapping =
        absl::StrCat("b.type = 'OUT_OF_ORDER' AND b.status = 'ACTIVE' AND ",
                     "daterange(b.start_date, b.end_date) && daterange(", from, "::date, ", to, "::date)");
    if (!q.property_id.empty()) {
      // Within one property, the rooms blocked on those dates are read once (one range scan of
      // the blocks' date index) into a hashed set, instead of probing every room's blocks in
      // turn (docs/performance.md, "Room blocks"). DISTINCT bounds the set by the property's
      // rooms, so it stays hashed whatever the number of blocks.
      where.Add(absl::StrCat("r.number NOT IN (SELECT DISTINCT b.room_number FROM room_blocks b WHERE b.property_id = ",
                             sql.Bind(q.property_id), " AND ", overlapping, ")"));
    } else {
      where.Add(absl::StrCat("NOT EXISTS (SELECT 1 FROM room_blocks b WHERE b.property_id = r.property_id AND ",
                             "b.room_number = r.number AND ", overlapping, ")"));
    }
    where.Add(
        absl::StrCat("NOT (r.out_of_order AND EXISTS (SELECT 1 FROM issues i WHERE i.property_id = r.property_id ",
                     "AND i.room_number = r.number AND i.take_room_out_of_order) AND ", to,
                     "::date > (SELECT least((r.out_of_order_since AT TIME ZONE p.time_zone)::date, ",
                     "(now() AT TIME ZONE p.time_zone)::date) FROM properties p WHERE p.id = r.property_id))"));
  }
  if (!q.after.empty()) {
    // Separate statements: the evaluation order of function arguments is unspecified.
    const std::string property = sql.Bind(q.after[0]);
    const std::string floor = sql.Bind(q.after[1]);
    const std::string number = sql.Bind(q.after[2]);
    where.Add(absl::StrCat("(r.property_id, r.floor, r.number) > (", property, ", ", floor, "::int, ", number, ")"));
  }
  sql.text = absl::StrCat(sql::rooms::kRoomSelect, where.ToSql(), " ORDER BY r.property_id, r.floor, r.number");
  sql.text += db::Limit(sql, q.page_size);
  return sql;
}

// Each etag covers everything its representation shows: the row's version and what the response
// derives from other rows (counts, galleries), so the HTTP ETag of a GET can be the etag field
// itself and an If-None-Match never answers 304 for a response that changed.
std::string PropertyEtag(absl::string_view id, int64_t version, int64_t room_count, int64_t room_type_count) {
  return api::VersionEtag("property", id, {version, room_count, room_type_count});
}

std::string RoomTypeEtag(absl::string_view id, int64_t version, int64_t image_count) {
  return api::VersionEtag("room_type", id, {version, image_count});
}

std::string RoomEtag(absl::string_view property_id, absl::string_view number, int64_t room_version,
                     int64_t room_type_version, int64_t equipment_count, int64_t image_count) {
  return api::VersionEtag("room", absl::StrCat(property_id, "/", number),
                          {room_version, room_type_version, equipment_count, image_count});
}

std::string HousekeepingEtag(absl::string_view property_id, absl::string_view number, int64_t housekeeping_version,
                             int64_t readiness_inputs) {
  const std::string id = absl::StrCat(property_id, "/", number);
  if (readiness_inputs == 0) return api::VersionEtag("room_housekeeping", id, {housekeeping_version});
  return api::VersionEtag("room_housekeeping", id, {housekeeping_version, readiness_inputs});
}

namespace {
// What a room's readiness reads besides its own row (1.5.0), as bits: an OUT_OF_SERVICE block
// covering today (1) and a policy without inspection (2). Neither bumps the room's housekeeping
// version, so its housekeeping etag takes them, or a GET revalidated after a block or a policy
// change would answer 304 with the old readiness.
int64_t RoomReadinessInputs(const pqxx::row& row) {
  return (row["housekeeping_out_of_service_today"].as<bool>() ? 1 : 0) |
         (row["housekeeping_inspection_required"].as<bool>() ? 0 : 2);
}
}  // namespace

void ReadProperty(const pqxx::row& row, Property* out) {
  out->set_id(row[property_columns::kId].c_str());
  out->set_name(row[property_columns::kName].c_str());
  out->set_enabled(row[property_columns::kEnabled].as<bool>());
  out->set_time_zone(row[property_columns::kTimeZone].c_str());
  out->set_city(row[property_columns::kCity].c_str());
  out->set_country_code(row[property_columns::kCountryCode].c_str());
  out->set_room_count(row[property_columns::kRoomCount].as<int>());
  out->set_room_type_count(row[property_columns::kRoomTypeCount].as<int>());
  out->set_etag(PropertyEtag(out->id(), row[property_columns::kVersion].as<int64_t>(), out->room_count(),
                             out->room_type_count()));
  out->set_updated_by(row[property_columns::kUpdatedBy].c_str());
  db::ReadTimestamp(row[property_columns::kUpdatedAtMicros], out->mutable_update_time());
}

void ReadRoomType(const pqxx::row& row, RoomType* out) {
  out->set_id(row[room_type_columns::kId].c_str());
  out->set_property_id(row[room_type_columns::kPropertyId].c_str());
  out->set_code(row[room_type_columns::kCode].c_str());
  out->set_name(row[room_type_columns::kName].c_str());
  out->set_description(row[room_type_columns::kDescription].c_str());
  out->set_category(ParseCategory(row[room_type_columns::kCategory].c_str()));
  for (auto& a : db::ParseTextArray(row[room_type_columns::kAmenities].c_str())) out->add_amenities(std::move(a));
  out->set_size_sqm(row[room_type_columns::kSizeSqm].as<double>());
  out->set_max_guests(row[room_type_columns::kMaxGuests].as<int>());
  out->set_bed_type(row[room_type_columns::kBedType].c_str());
  out->set_etag(RoomTypeEtag(out->id(), row[room_type_columns::kVersion].as<int64_t>(),
                             row[room_type_columns::kImageCount].as<int64_t>()));
  out->set_retired(!row[room_type_columns::kRetiredAtMicros].is_null());
  if (out->retired()) db::ReadTimestamp(row[room_type_columns::kRetiredAtMicros], out->mutable_retire_time());
  out->set_updated_by(row[room_type_columns::kUpdatedBy].c_str());
  db::ReadTimestamp(row[room_type_columns::kUpdatedAtMicros], out->mutable_update_time());
}

void ReadRoomHousekeeping(const pqxx::row& row, hotel::v1::RoomHousekeeping* out) {
  using hotel::v1::RoomHousekeeping;
  out->set_property_id(row["property_id"].c_str());
  out->set_room_number(row["number"].c_str());
  out->set_condition(db::ParseEnum<RoomHousekeeping::Condition>(row["housekeeping_condition"].c_str()));
  out->set_occupancy(db::ParseEnum<RoomHousekeeping::Occupancy>(row["housekeeping_occupancy"].c_str()));
  out->set_occupancy_source(row["housekeeping_occupancy_source"].c_str());
  if (!row["housekeeping_observed_micros"].is_null()) {
    db::ReadTimestamp(row["housekeeping_observed_micros"], out->mutable_occupancy_observe_time());
  }
  out->set_reason(row["housekeeping_reason"].c_str());
  out->set_updated_by(row["housekeeping_updated_by"].c_str());
  db::ReadTimestamp(row["housekeeping_updated_micros"], out->mutable_update_time());
  const std::string observed = row["housekeeping_observed_occupancy"].c_str();
  if (!observed.empty()) out->set_observed_occupancy(db::ParseEnum<RoomHousekeeping::Occupancy>(observed));
  out->set_observed_occupancy_by(row["housekeeping_observed_by"].c_str());
  if (!row["housekeeping_observed_occupancy_micros"].is_null()) {
    db::ReadTimestamp(row["housekeeping_observed_occupancy_micros"], out->mutable_observed_occupancy_time());
  }
  out->set_discrepancy(DiscrepancyOf(row["housekeeping_occupancy"].c_str(), observed));
  out->set_service_request(
      db::ParseEnum<RoomHousekeeping::ServiceRequest>(row["housekeeping_service_request"].c_str()));
  out->set_cleaning_priority(row["housekeeping_cleaning_priority"].as<int>());
  SetReadiness({row["housekeeping_condition"].c_str(), row["housekeeping_occupancy"].c_str(), observed,
                row["housekeeping_out_of_order"].as<bool>(), row["housekeeping_out_of_service_today"].as<bool>(),
                row["housekeeping_inspection_required"].as<bool>()},
               out);
  out->set_etag(HousekeepingEtag(out->property_id(), out->room_number(), row["housekeeping_version"].as<int64_t>(),
                                 RoomReadinessInputs(row)));
}

void ReadRoom(const pqxx::row& row, Room* out) {
  out->set_property_id(row[room_columns::kPropertyId].c_str());
  out->set_number(row[room_columns::kNumber].c_str());
  out->set_floor(row[room_columns::kFloor].as<int>());
  out->set_room_type_id(row[room_columns::kRoomTypeId].c_str());
  out->set_category(ParseCategory(row[room_columns::kCategory].c_str()));
  auto amenities = db::ParseTextArray(row[room_columns::kAmenities].c_str());
  std::sort(amenities.begin(), amenities.end());
  amenities.erase(std::unique(amenities.begin(), amenities.end()), amenities.end());
  for (auto& a : amenities) out->add_amenities(std::move(a));
  const bool out_of_order = row[room_columns::kOutOfOrder].as<bool>();
  out->set_out_of_order(out_of_order);
  out->set_available(!out_of_order);
  out->set_out_of_order_reason(row[room_columns::kOutOfOrderReason].c_str());
  if (!row[room_columns::kOutOfOrderSinceMicros].is_null()) {
    const int64_t micros = row[room_columns::kOutOfOrderSinceMicros].as<int64_t>();
    out->mutable_out_of_order_since()->set_seconds(micros / 1000000);
    out->mutable_out_of_order_since()->set_nanos(static_cast<int32_t>(micros % 1000000) * 1000);
  }
  out->set_equipment_count(row[room_columns::kEquipmentCount].as<int>());
  out->set_etag(RoomEtag(out->property_id(), out->number(), row[room_columns::kVersion].as<int64_t>(),
                         row[room_columns::kRoomTypeVersion].as<int64_t>(), out->equipment_count(),
                         row[room_columns::kImageCount].as<int64_t>()));
  out->set_retired(!row[room_columns::kRetiredAtMicros].is_null());
  if (out->retired()) db::ReadTimestamp(row[room_columns::kRetiredAtMicros], out->mutable_retire_time());
  out->set_updated_by(row[room_columns::kUpdatedBy].c_str());
  db::ReadTimestamp(row[room_columns::kUpdatedAtMicros], out->mutable_update_time());
  auto extras = db::ParseTextArray(row[room_columns::kExtraAmenities].c_str());
  std::sort(extras.begin(), extras.end());
  for (auto& a : extras) out->add_extra_amenities(std::move(a));
  ReadRoomHousekeeping(row, out->mutable_housekeeping());
}

std::vector<std::string> PropertyPageKey(const pqxx::row& row) { return {row[property_columns::kId].c_str()}; }

std::vector<std::string> RoomTypePageKey(const pqxx::row& row) { return {row[room_type_columns::kId].c_str()}; }

std::vector<std::string> RoomPageKey(const pqxx::row& row) {
  return {row[room_columns::kPropertyId].c_str(), row[room_columns::kFloor].c_str(),
          row[room_columns::kNumber].c_str()};
}

}  // namespace hotel::rooms
