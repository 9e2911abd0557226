#include "housekeeping/housekeeping_repository.h"

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "api/idempotency.h"
#include "api/locked_update.h"
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
using hotel::v1::HousekeepingPolicy;
using hotel::v1::RoomHousekeeping;
using Snapshot = pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>;

// A locked room as the write found it.
struct LockedRoom {
  RoomState state;
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
    const std::string& condition = room->second.state.condition;
    if (write.expected_condition && condition != *write.expected_condition) {
      return Prefixed(FailedPreconditionError("HOUSEKEEPING_CONDITION_CHANGED",
                                              absl::StrCat("room ", number, " is ", condition, ", not ",
                                                           *write.expected_condition, ": nothing was changed")),
                      field);
    }
    if (write.condition) {
      if (auto s = CheckTransition(number, condition, *write.condition); !s.ok()) {
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

// One group of select_overview.sql: rooms in one state.
struct RoomGroup {
  RoomHousekeeping::Condition condition;
  RoomHousekeeping::Occupancy occupancy;
  bool ready;
  std::string discrepancy;  // SKIP | SLEEP | ""
  int rooms;
};

void Count(HousekeepingCounts* counts, const RoomGroup& group) {
  if (counts->cells_size() == 0) AddAllCells(counts);
  const int rooms = group.rooms;
  counts->set_rooms(counts->rooms() + rooms);
  if (group.ready) counts->set_ready_rooms(counts->ready_rooms() + rooms);
  if (group.discrepancy == "SKIP") counts->set_skip_rooms(counts->skip_rooms() + rooms);
  if (group.discrepancy == "SLEEP") counts->set_sleep_rooms(counts->sleep_rooms() + rooms);
  // A value the enums do not know (a newer writer's) counts in the total only.
  for (auto& cell : *counts->mutable_cells()) {
    if (cell.condition() == group.condition && cell.occupancy() == group.occupancy) {
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
  out->set_observed_occupancy(OccupancyOf(row["observed_occupancy"]));
  out->set_service_request(db::ParseEnum<RoomHousekeeping::ServiceRequest>(row["service_request"].c_str()));
  out->set_cleaning_priority(row["cleaning_priority"].as<int>());
}

// The property's policy as stored, or the defaults (version 0) while it was never changed.
// NOT_FOUND PROPERTY_NOT_FOUND.
absl::Status ReadPolicy(db::Session& session, pqxx::transaction_base& txn, const std::string& property_id,
                        HousekeepingPolicy* out) {
  auto rows = session.Exec(txn, {std::string(sql::housekeeping::kSelectPolicy), {property_id}});
  if (rows.empty())
    return NotFoundError("PROPERTY_NOT_FOUND", absl::StrCat("property ", property_id, " does not exist"));
  *out = DefaultPolicy(property_id);
  const pqxx::row& row = rows[0];
  int64_t version = 0;
  if (!row["property_id"].is_null()) {
    out->set_checkout_condition(db::ParseEnum<HousekeepingPolicy::ConditionRule>(row["checkout_condition"].c_str()));
    out->set_occupied_nightly_condition(
        db::ParseEnum<HousekeepingPolicy::ConditionRule>(row["occupied_nightly_condition"].c_str()));
    out->set_vacant_nightly_downgrade(
        db::ParseEnum<HousekeepingPolicy::VacantDowngrade>(row["vacant_nightly_downgrade"].c_str()));
    out->set_vacant_dirty_after_days(row["vacant_dirty_after_days"].as<int>());
    out->set_inspection_required(row["inspection_required"].as<bool>());
    out->set_updated_by(row["updated_by"].c_str());
    db::ReadTimestamp(row["updated_micros"], out->mutable_update_time());
    version = row["version"].as<int64_t>();
  }
  out->set_etag(PolicyEtag(property_id, version));
  return absl::OkStatus();
}

// What the write does to each room (PlanRoomWrite), in the order of its room numbers; the first
// room refused a service request (CheckServiceRequest) fails them all, named.
absl::StatusOr<std::vector<RoomWritePlan>> PlanRooms(const HousekeepingWrite& write,
                                                     const absl::flat_hash_map<std::string, LockedRoom>& locked,
                                                     int64_t now_micros, const HousekeepingPolicy& policy) {
  const std::string checkout = HousekeepingPolicy::ConditionRule_Name(policy.checkout_condition());
  std::vector<RoomWritePlan> plans;
  for (size_t i = 0; i < write.room_numbers.size(); ++i) {
    const std::string& number = write.room_numbers[i];
    plans.push_back(
        PlanRoomWrite(write, locked.at(number).state, write.observed_micros.value_or(now_micros), checkout));
    if (auto s = CheckServiceRequest(number, plans.back()); !s.ok()) {
      return Prefixed(s, absl::StrCat(write.RoomField(i), ": "));
    }
  }
  return plans;
}

// Sets the rooms the plans write; returns their new state and the numbers of those it left as
// they are.
pqxx::result SetRooms(db::Session& session, pqxx::transaction_base& txn, const HousekeepingWrite& write,
                      const std::vector<RoomWritePlan>& plans, int64_t now_micros,
                      std::vector<std::string>* unwritten) {
  std::vector<std::string> numbers, conditions, applied, reasons, service_requests;
  for (size_t i = 0; i < plans.size(); ++i) {
    if (!plans[i].Writes()) {
      unwritten->push_back(write.room_numbers[i]);
      continue;
    }
    numbers.push_back(write.room_numbers[i]);
    conditions.push_back(plans[i].condition.value_or(""));
    applied.push_back(plans[i].occupancy_applied ? "true" : "false");
    reasons.push_back(plans[i].reason);
    service_requests.push_back(plans[i].service_request.value_or(""));
  }
  if (numbers.empty()) return {};
  session.Exec(txn, {std::string(sql::db::kSetActor), {write.actor}});
  return session.Exec(txn, {std::string(sql::housekeeping::kSetHousekeeping),
                            {write.property_id, db::TextArrayLiteral(numbers), db::TextArrayLiteral(conditions),
                             db::TextArrayLiteral(applied), db::TextArrayLiteral(reasons), write.occupancy.value_or(""),
                             write.occupancy_source, absl::StrCat(write.observed_micros.value_or(now_micros)),
                             write.actor, db::TextArrayLiteral(service_requests), write.observed_occupancy.value_or(""),
                             write.cleaning_priority ? absl::StrCat(*write.cleaning_priority) : ""}});
}

}  // namespace

std::string PolicyEtag(absl::string_view property_id, int64_t version) {
  return api::VersionEtag("housekeeping-policy", property_id, {version});
}

absl::Status CheckRoomNotOccupied(db::Session& session, pqxx::transaction_base& txn, const RoomHold& hold) {
  if (hold.allow_occupied) return absl::OkStatus();
  auto rows = session.Exec(txn, {std::string(sql::housekeeping::kRoomOccupied),
                                 {hold.property_id, hold.room_number, hold.start_date, hold.end_date}});
  if (rows.empty()) return absl::OkStatus();
  return FailedPreconditionError(
      "ROOM_OCCUPIED", absl::StrCat("room ", hold.room_number, " is OCCUPIED: a guest is in it; set allow_occupied to ",
                                    "take it out of order or out of service anyway (a guest being moved)"));
}

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
    std::vector<pqxx::row> rows;
    std::vector<std::string> unwritten;  // rooms answered as they are
    std::vector<RoomWritePlan> plans;
    if (!claim->first) {  // the same request_id and request made it already: answer, change nothing
      unwritten = write.room_numbers;
    } else {
      absl::flat_hash_map<std::string, LockedRoom> locked;
      int64_t now_micros = 0;
      for (const auto& row :
           session.Exec(txn, {std::string(sql::housekeeping::kLockRooms), {write.property_id, numbers}})) {
        LockedRoom& room = locked[row["number"].c_str()];
        room.state = {row["condition"].c_str(), row["occupancy"].c_str(), std::nullopt};
        if (!row["observed_micros"].is_null()) room.state.observed_micros = row["observed_micros"].as<int64_t>();
        room.retired = row["retired"].as<bool>();
        now_micros = row["now_micros"].as<int64_t>();
      }
      if (auto s = CheckRooms(session, txn, write, locked); !s.ok()) return s;
      // The room's housekeeping etag (1.5.0), not Room.etag: room data writes do not make it stale.
      if (!write.etag.empty() || !write.if_match.empty()) {
        RoomHousekeeping current;
        rooms::ReadRoomHousekeeping(session
                                        .Exec(txn, {std::string(sql::housekeeping::kSelectHousekeeping),
                                                    {write.property_id, db::TextArrayLiteral(write.room_numbers)}})
                                        .at(0),
                                    &current);
        if (auto s = api::CheckEtags(write.etag, write.if_match, current.etag(), "room's housekeeping"); !s.ok()) {
          return s;
        }
      }
      HousekeepingPolicy policy;
      if (auto s = ReadPolicy(session, txn, write.property_id, &policy); !s.ok()) return s;
      auto planned = PlanRooms(write, locked, now_micros, policy);
      if (!planned.ok()) return planned.status();
      plans = *std::move(planned);
      const pqxx::result set = SetRooms(session, txn, write, plans, now_micros, &unwritten);
      rows.assign(set.begin(), set.end());
    }
    if (!unwritten.empty()) {
      const pqxx::result as_they_are = session.Exec(txn, {std::string(sql::housekeeping::kSelectHousekeeping),
                                                          {write.property_id, db::TextArrayLiteral(unwritten)}});
      rows.insert(rows.end(), as_they_are.begin(), as_they_are.end());
    }
    // In the order of the write's room numbers.
    absl::flat_hash_map<std::string, const pqxx::row*> by_number;
    for (const pqxx::row& row : rows) by_number[row["number"].c_str()] = &row;
    for (size_t i = 0; i < write.room_numbers.size(); ++i) {
      auto row = by_number.find(write.room_numbers[i]);
      if (row == by_number.end()) continue;
      RoomHousekeeping* room = out->Add();
      rooms::ReadRoomHousekeeping(*row->second, room);
      room->set_occupancy_applied(!plans.empty() && plans[i].occupancy_applied);
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
      const RoomGroup group{ConditionOf(row["condition"]), OccupancyOf(row["occupancy"]), row["ready"].as<bool>(),
                            row["discrepancy"].c_str(), row["rooms"].as<int>()};
      const int floor = row["floor"].as<int>();
      if (out->floors_size() == 0 || out->floors(out->floors_size() - 1).floor() != floor) {
        out->add_floors()->set_floor(floor);
      }
      Count(out->mutable_floors(out->floors_size() - 1)->mutable_counts(), group);
      Count(&by_type[row["room_type_id"].c_str()], group);
      Count(out->mutable_total(), group);
    }
    for (auto& [room_type_id, counts] : by_type) {
      auto* type = out->add_room_types();
      type->set_room_type_id(room_type_id);
      *type->mutable_counts() = std::move(counts);
    }
    HousekeepingPolicy policy;
    if (auto s = ReadPolicy(session, txn, property_id, &policy); !s.ok()) return s;
    for (const auto& row : session.Exec(txn, {std::string(sql::housekeeping::kSelectWorkList), {property_id}})) {
      const char* service_request = row["service_request"].c_str();
      const auto type = WorkItemType(row["condition"].c_str(), row["occupancy"].c_str(), policy.inspection_required());
      if (!type) continue;
      const bool withheld = *type == HousekeepingOverview::WorkItem::STAYOVER && ServiceWithheld(service_request);
      auto* item = withheld ? out->add_no_service_list() : out->add_work_list();
      item->set_room_number(row["number"].c_str());
      item->set_floor(row["floor"].as<int>());
      item->set_room_type_id(row["room_type_id"].c_str());
      item->set_condition(ConditionOf(row["condition"]));
      item->set_type(*type);
      item->set_cleaning_priority(row["cleaning_priority"].as<int>());
      item->set_occupancy(OccupancyOf(row["occupancy"]));
      item->set_service_request(db::ParseEnum<RoomHousekeeping::ServiceRequest>(service_request));
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

absl::Status HousekeepingRepository::GetPolicy(const std::string& property_id, HousekeepingPolicy* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::nontransaction txn(session.connection());
    return ReadPolicy(session, txn, property_id, out);
  });
}

absl::Status HousekeepingRepository::UpdatePolicy(const std::string& property_id, const HousekeepingPolicy& patch,
                                                  const std::vector<std::string>& mask, absl::string_view if_match,
                                                  HousekeepingPolicy* out) {
  using Plan = api::UpdatePlan<HousekeepingPolicy>;
  return api::RunLockedUpdate<HousekeepingPolicy, Plan>(
      pool_, {std::string(sql::housekeeping::kLockProperty), {property_id}}, "PROPERTY_NOT_FOUND",
      absl::StrCat("property ", property_id, " does not exist"),
      [&](db::Session& session, pqxx::transaction_base& txn, HousekeepingPolicy* policy) {
        return ReadPolicy(session, txn, property_id, policy);
      },
      [&](const HousekeepingPolicy& current) { return PlanPolicyUpdate(current, patch, mask, if_match); },
      [&](db::Session& session, pqxx::transaction_base& txn, const Plan& plan) {
        const HousekeepingPolicy& p = plan.updated;
        session.Exec(
            txn, {std::string(sql::housekeeping::kUpsertPolicy),
                  {property_id, HousekeepingPolicy::ConditionRule_Name(p.checkout_condition()),
                   HousekeepingPolicy::ConditionRule_Name(p.occupied_nightly_condition()),
                   HousekeepingPolicy::VacantDowngrade_Name(p.vacant_nightly_downgrade()),
                   absl::StrCat(p.vacant_dirty_after_days()), p.inspection_required() ? "true" : "false", plan.actor}});
        return absl::OkStatus();
      },
      out);
}

}  // namespace hotel::housekeeping
