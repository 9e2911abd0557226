#include "housekeeping/housekeeping_repository.h"

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "api/idempotency.h"
#include "api/paging.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "db/timestamps.h"
#include "rooms/room_repository.h"
#include "sql/db.h"
#include "sql/housekeeping.h"

namespace hotel::housekeeping {
namespace {

using hotel::v1::HousekeepingCounts;
using hotel::v1::HousekeepingEvent;
using hotel::v1::HousekeepingOverview;
using hotel::v1::RoomHousekeeping;
using Snapshot = pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>;

// A locked room as the write found it.
struct LockedRoom {
  std::string condition;
  bool retired = false;
};

// Every locked room may take the write: it exists and is active, has the expected condition and
// may go to the new one.
absl::Status CheckRooms(db::Session& session, pqxx::transaction_base& txn, const HousekeepingWrite& write,
                        const absl::flat_hash_map<std::string, LockedRoom>& locked) {
  for (size_t i = 0; i < write.room_numbers.size(); ++i) {
    const std::string& number = write.room_numbers[i];
    const std::string field = absl::StrCat(write.RoomField(i), ": ");  // errors start with it
    auto room = locked.find(number);
    if (room == locked.end()) {
      if (auto s = db::CheckPropertyExists(session, txn, write.property_id); !s.ok()) return s;
      return Prefixed(NotFoundError("ROOM_NOT_FOUND",
                                    absl::StrCat("room ", number, " does not exist in property ", write.property_id)),
                      field);
    }
    if (room->second.retired) {
      return Prefixed(FailedPreconditionError("ROOM_RETIRED",
                                              absl::StrCat("room ", number, " is retired: it takes no housekeeping")),
                      field);
    }
    if (write.expected_condition && room->second.condition != *write.expected_condition) {
      return Prefixed(FailedPreconditionError("HOUSEKEEPING_CONDITION_CHANGED",
                                              absl::StrCat("room ", number, " is ", room->second.condition, ", not ",
                                                           *write.expected_condition, ": nothing was changed")),
                      field);
    }
    if (write.condition) {
      if (auto s = CheckTransition(number, room->second.condition, *write.condition); !s.ok()) {
        return Prefixed(s, field);
      }
    }
  }
  return absl::OkStatus();
}

// Every combination of condition and occupancy, zeros included, in enum order.
void AddAllCells(HousekeepingCounts* counts) {
  for (int c = RoomHousekeeping::DIRTY; c <= RoomHousekeeping::INSPECTED; ++c) {
    for (int o = RoomHousekeeping::VACANT; o <= RoomHousekeeping::UNKNOWN; ++o) {
      auto* cell = counts->add_cells();
      cell->set_condition(static_cast<RoomHousekeeping::Condition>(c));
      cell->set_occupancy(static_cast<RoomHousekeeping::Occupancy>(o));
    }
  }
}

void Count(HousekeepingCounts* counts, RoomHousekeeping::Condition condition, RoomHousekeeping::Occupancy occupancy,
           int rooms) {
  if (counts->cells_size() == 0) AddAllCells(counts);
  counts->set_rooms(counts->rooms() + rooms);
  // A value the enums do not know (a newer writer's) counts in the total only.
  for (auto& cell : *counts->mutable_cells()) {
    if (cell.condition() == condition && cell.occupancy() == occupancy) {
      cell.set_rooms(cell.rooms() + rooms);
      return;
    }
  }
}

RoomHousekeeping::Condition ConditionOf(const pqxx::field& field) {
  RoomHousekeeping::Condition value = RoomHousekeeping::CONDITION_UNSPECIFIED;
  RoomHousekeeping::Condition_Parse(field.c_str(), &value);
  return value;
}

RoomHousekeeping::Occupancy OccupancyOf(const pqxx::field& field) {
  RoomHousekeeping::Occupancy value = RoomHousekeeping::OCCUPANCY_UNSPECIFIED;
  RoomHousekeeping::Occupancy_Parse(field.c_str(), &value);
  return value;
}

void ReadEvent(const pqxx::row& row, HousekeepingEvent* out) {
  out->set_sequence(row["sequence"].as<int64_t>());
  out->set_condition(ConditionOf(row["condition"]));
  out->set_occupancy(OccupancyOf(row["occupancy"]));
  out->set_previous_condition(ConditionOf(row["previous_condition"]));
  out->set_previous_occupancy(OccupancyOf(row["previous_occupancy"]));
  out->set_occupancy_source(row["occupancy_source"].c_str());
  if (!row["observed_micros"].is_null())
    db::ReadTimestamp(row["observed_micros"], out->mutable_occupancy_observe_time());
  out->set_reason(row["reason"].c_str());
  out->set_updated_by(row["updated_by"].c_str());
  db::ReadTimestamp(row["updated_micros"], out->mutable_update_time());
}

}  // namespace

absl::Status HousekeepingRepository::Write(const HousekeepingWrite& write,
                                           google::protobuf::RepeatedPtrField<RoomHousekeeping>* out) {
  const std::string numbers = db::TextArrayLiteral(write.room_numbers);
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    out->Clear();
    pqxx::work txn(session.connection());
    auto claim = api::ClaimRequest(
        session, txn, {std::string(sql::housekeeping::kClaimRequest), {write.request_id, write.request_hash}},
        sql::housekeeping::kFindRequest, write.request_id, write.request_hash);
    if (!claim.ok()) return claim.status();
    pqxx::result rows;
    if (!claim->first) {  // the same request_id and request made it already: answer, change nothing
      rows = session.Exec(txn, {std::string(sql::housekeeping::kSelectHousekeeping), {write.property_id, numbers}});
    } else {
      absl::flat_hash_map<std::string, LockedRoom> locked;
      for (const auto& row :
           session.Exec(txn, {std::string(sql::housekeeping::kLockRooms), {write.property_id, numbers}})) {
        locked[row["number"].c_str()] = {row["condition"].c_str(), row["retired"].as<bool>()};
      }
      if (auto s = CheckRooms(session, txn, write, locked); !s.ok()) return s;
      if (!write.etag.empty() || !write.if_match.empty()) {
        const auto current = rooms::ReadRoomRecords(session, txn, write.property_id, write.room_numbers);
        if (auto s = api::CheckEtags(write.etag, write.if_match, current.at(0).etag(), "room"); !s.ok()) return s;
      }
      session.Exec(txn, {std::string(sql::db::kSetActor), {write.actor}});
      rows = session.Exec(
          txn, {std::string(sql::housekeeping::kSetHousekeeping),
                {write.property_id, numbers, write.condition.value_or(""), write.occupancy.value_or(""),
                 write.occupancy_source, write.observed_micros ? absl::StrCat(*write.observed_micros) : std::string(),
                 write.reason, write.actor}});
    }
    // In the order of the write's room numbers.
    absl::flat_hash_map<std::string, const pqxx::row*> by_number;
    std::vector<pqxx::row> kept(rows.begin(), rows.end());
    for (const pqxx::row& row : kept) by_number[row["number"].c_str()] = &row;
    for (const std::string& number : write.room_numbers) {
      auto row = by_number.find(number);
      if (row != by_number.end()) rooms::ReadRoomHousekeeping(*row->second, out->Add());
    }
    // A one-room write answers the room's etag, which it changed; a bulk set's rooms carry none (it
    // would cost a read of every room's equipment and galleries).
    if (write.mode == WriteMode::kOneRoom && out->size() == 1) {
      const auto room = rooms::ReadRoomRecords(session, txn, write.property_id, write.room_numbers);
      if (!room.empty()) (*out)[0].set_etag(room[0].etag());
    }
    session.Commit(txn);
    return absl::OkStatus();
  });
}

absl::Status HousekeepingRepository::Overview(const std::string& property_id, HousekeepingOverview* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    Snapshot txn(session.connection());
    auto groups = session.Exec(txn, {std::string(sql::housekeeping::kSelectOverview), {property_id}});
    if (groups.empty()) {
      if (auto s = db::CheckPropertyExists(session, txn, property_id); !s.ok()) return s;
    }
    out->Clear();
    out->set_property_id(property_id);
    AddAllCells(out->mutable_total());
    std::map<std::string, HousekeepingCounts> by_type;
    for (const auto& row : groups) {
      const auto condition = ConditionOf(row["condition"]);
      const auto occupancy = OccupancyOf(row["occupancy"]);
      const int rooms = row["rooms"].as<int>();
      const int floor = row["floor"].as<int>();
      if (out->floors_size() == 0 || out->floors(out->floors_size() - 1).floor() != floor) {
        out->add_floors()->set_floor(floor);
      }
      Count(out->mutable_floors(out->floors_size() - 1)->mutable_counts(), condition, occupancy, rooms);
      Count(&by_type[row["room_type_id"].c_str()], condition, occupancy, rooms);
      Count(out->mutable_total(), condition, occupancy, rooms);
    }
    for (auto& [room_type_id, counts] : by_type) {
      auto* type = out->add_room_types();
      type->set_room_type_id(room_type_id);
      *type->mutable_counts() = std::move(counts);
    }
    for (const auto& row : session.Exec(txn, {std::string(sql::housekeeping::kSelectWorkList), {property_id}})) {
      auto* item = out->add_work_list();
      item->set_room_number(row["number"].c_str());
      item->set_floor(row["floor"].as<int>());
      item->set_room_type_id(row["room_type_id"].c_str());
      item->set_condition(ConditionOf(row["condition"]));
    }
    return absl::OkStatus();
  });
}

absl::Status HousekeepingRepository::History(const HistoryQuery& query,
                                             hotel::v1::ListHousekeepingHistoryResponse* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::nontransaction txn(session.connection());
    auto rows = session.Exec(txn, {std::string(sql::housekeeping::kListHistory),
                                   {query.property_id, query.room_number, query.after.empty() ? "" : query.after[0],
                                    absl::StrCat(query.page_size + 1)}});
    if (rows.empty()) {
      if (auto s = db::CheckRoomExists(session, txn, query.property_id, query.room_number); !s.ok()) return s;
    }
    out->Clear();
    api::FillPage(rows, query.page_size, "housekeeping-history", Fingerprint(query), out, ReadEvent,
                  [](const pqxx::row& row) { return std::vector<std::string>{row["sequence"].c_str()}; });
    return absl::OkStatus();
  });
}

}  // namespace hotel::housekeeping
