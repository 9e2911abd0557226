#include "blocks/block_repository.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/etag.h"
#include "api/idempotency.h"
#include "api/paging.h"
#include "blocks/block_sql.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "housekeeping/housekeeping_repository.h"
#include "sql/blocks.h"

namespace hotel::blocks {
namespace {

using hotel::v1::RoomBlock;
using Snapshot = pqxx::transaction<pqxx::repeatable_read, pqxx::read_only>;

// SQLSTATE of an exclusion constraint violation: the overlap rule of migration 0017.
constexpr absl::string_view kExclusionViolation = "23P01";

bool IsOverlap(const pqxx::sql_error& e) { return e.sqlstate() == kExclusionViolation; }

// The dates a write wanted for a room, kept to name the block it ran into.
struct WantedDates {
  std::string property_id;
  std::string room_number;
  std::string start_date;
  std::string end_date;
  std::string own_id;  // the block being changed; "" for a create
};

absl::Status LoadRoomBlock(db::Session& session, pqxx::transaction_base& txn, absl::string_view id, bool for_update,
                           RoomBlock* out) {
  auto rows = session.Exec(
      txn, {std::string(for_update ? sql::blocks::kSelectRoomBlockForUpdate : sql::blocks::kSelectRoomBlock),
            {std::string(id)}});
  if (rows.empty()) return NotFoundError("ROOM_BLOCK_NOT_FOUND", absl::StrCat("room block ", id, " does not exist"));
  out->Clear();
  ReadRoomBlock(rows[0], out);
  return absl::OkStatus();
}

// Locks the rooms (property id, room number) a block write creates or changes blocks of, before
// it writes any: racing writes of one room's blocks run one after the other (lock_block_rooms.sql).
void LockRooms(db::Session& session, pqxx::transaction_base& txn,
               const std::vector<std::pair<std::string, std::string>>& rooms) {
  std::vector<std::string> properties, numbers;
  for (const auto& [property_id, number] : rooms) {
    properties.push_back(property_id);
    numbers.push_back(number);
  }
  session.Exec(txn, {std::string(sql::blocks::kLockBlockRooms),
                     {db::TextArrayLiteral(properties), db::TextArrayLiteral(numbers)}});
}

// A block written: its room's out-of-order state (Room.available) as it holds today, in the same
// transaction (the room, locked by LockRooms, is updated after the block is written).
void RefreshRoom(db::Session& session, pqxx::transaction_base& txn, const std::string& property_id,
                 const std::string& room_number) {
  session.Exec(txn, {std::string(sql::blocks::kRefreshRoom), {property_id, room_number}});
}

// Why an insert inserted nothing (after its request_id was found unused): the room or issue.
absl::Status CheckReferences(db::Session& session, pqxx::transaction_base& txn, const NewRoomBlock& in) {
  if (auto s = db::CheckRoomExists(session, txn, in.property_id, in.room_number); !s.ok()) return s;
  auto room = session.Exec(txn, {std::string(sql::blocks::kRoomRetired), {in.property_id, in.room_number}});
  if (!room.empty() && room[0]["retired"].as<bool>()) {
    return FailedPreconditionError("ROOM_RETIRED",
                                   absl::StrCat("room ", in.room_number, " is retired; it takes no new blocks"));
  }
  if (!in.issue_id.empty()) {
    return NotFoundError("ISSUE_NOT_FOUND", absl::StrCat("issue ", in.issue_id, " is no issue of room ", in.room_number,
                                                         " of ", in.property_id));
  }
  return absl::OkStatus();
}

// The answer to a write the overlap rule refused: the block it ran into, read after the write's
// transaction ended (the one that won a race has committed by then).
absl::Status OverlapError(db::ConnectionPool& pool, const WantedDates& wanted) {
  std::optional<std::string> message;
  auto status = pool.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::nontransaction txn(session.connection());
    auto rows = session.Exec(
        txn, {std::string(sql::blocks::kFindOverlappingBlock),
              {wanted.property_id, wanted.room_number, wanted.start_date, wanted.end_date, wanted.own_id}});
    if (rows.empty()) return absl::OkStatus();
    const std::string end = rows[0]["end_date"].c_str();
    message = absl::StrCat("room ", wanted.room_number, " of ", wanted.property_id,
                           " is already out of order in that time: room block ", rows[0]["id"].c_str(), " (",
                           rows[0]["start_date"].c_str(), " to ", end.empty() ? "no end" : end, ")");
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  // The block it ran into was cancelled or moved meanwhile: the write may succeed now.
  if (!message) return AbortedError("CONCURRENT_UPDATE", "a concurrent change to the room's blocks; retry the request");
  return FailedPreconditionError("ROOM_BLOCK_OVERLAP", *message);
}

}  // namespace

absl::Status RoomBlockRepository::CreateAll(const std::vector<NewRoomBlock>& blocks, bool batch,
                                            google::protobuf::RepeatedPtrField<RoomBlock>* out) {
  std::optional<size_t> overlapping;
  auto item = [&](size_t i) { return batch ? absl::StrCat("requests[", i, "]: ") : std::string(); };
  absl::Status status = pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    out->Clear();
    overlapping.reset();
    pqxx::work txn(session.connection());
    std::vector<std::pair<std::string, std::string>> rooms;
    for (const NewRoomBlock& in : blocks) rooms.emplace_back(in.property_id, in.room_number);
    LockRooms(session, txn, rooms);
    for (size_t i = 0; i < blocks.size(); ++i) {
      const NewRoomBlock& in = blocks[i];
      const db::SqlQuery insert{std::string(sql::blocks::kInsertRoomBlock),
                                {in.property_id, in.room_number, in.type, in.start_date, in.end_date, in.reason,
                                 in.issue_id, in.updated_by, in.request_id, in.request_hash, in.return_condition}};
      absl::StatusOr<api::Insertion> created;
      try {
        created = api::InsertOnce(session, txn, insert, sql::blocks::kFindRoomBlockRequest, in.request_id,
                                  in.request_hash, [&] { return CheckReferences(session, txn, in); });
      } catch (const pqxx::sql_error& e) {
        if (!IsOverlap(e)) throw;
        overlapping = i;
        return absl::OkStatus();  // the transaction is rolled back; the overlap is answered below
      }
      if (!created.ok()) return Prefixed(created.status(), item(i));
      if (created->rows.empty()) {
        if (auto s = LoadRoomBlock(session, txn, created->existing_id, false, out->Add()); !s.ok()) return s;
      } else {
        // Checked once the block is new (a retry answers the block it created, whoever is in the
        // room now); the room is locked, so its occupancy cannot change before the commit.
        if (auto s = housekeeping::CheckRoomNotOccupied(
                session, txn, {in.property_id, in.room_number, in.start_date, in.end_date, in.allow_occupied});
            !s.ok()) {
          return Prefixed(s, item(i));
        }
        ReadRoomBlock(created->rows[0], out->Add());
        RefreshRoom(session, txn, in.property_id, in.room_number);
      }
    }
    session.Commit(txn);
    return absl::OkStatus();
  });
  if (!status.ok() || !overlapping) return status;
  out->Clear();
  const NewRoomBlock& in = blocks[*overlapping];
  return Prefixed(OverlapError(pool_, {in.property_id, in.room_number, in.start_date, in.end_date, ""}),
                  item(*overlapping));
}

absl::Status RoomBlockRepository::Create(const NewRoomBlock& block, RoomBlock* out) {
  google::protobuf::RepeatedPtrField<RoomBlock> created;
  if (auto s = CreateAll({block}, false, &created); !s.ok()) return s;
  *out = created[0];
  return absl::OkStatus();
}

absl::Status RoomBlockRepository::BatchCreate(const std::vector<NewRoomBlock>& blocks,
                                              hotel::v1::BatchCreateRoomBlocksResponse* out) {
  return CreateAll(blocks, true, out->mutable_room_blocks());
}

absl::Status RoomBlockRepository::Get(absl::string_view id, RoomBlock* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    pqxx::nontransaction txn(session.connection());
    return LoadRoomBlock(session, txn, id, false, out);
  });
}

absl::Status RoomBlockRepository::List(const RoomBlockListQuery& query, hotel::v1::ListRoomBlocksResponse* out) {
  return api::ListPage(pool_, BuildListRoomBlocksSql(query), query.page_size, "room-blocks", Fingerprint(query),
                       query.property_id, query.room_number, out, ReadRoomBlock, RoomBlockPageKey);
}

absl::Status RoomBlockRepository::Update(absl::string_view id, const RoomBlock& patch,
                                         const std::vector<std::string>& mask, absl::string_view if_match,
                                         RoomBlock* out) {
  std::optional<WantedDates> overlapping;
  absl::Status status = pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    overlapping.reset();
    pqxx::work txn(session.connection());
    RoomBlock current;
    if (auto s = LoadRoomBlock(session, txn, id, true, &current); !s.ok()) return s;
    auto plan = PlanRoomBlockUpdate(current, patch, mask, if_match);
    if (!plan.ok()) return plan.status();
    if (!plan->changed) {
      *out = current;
      return absl::OkStatus();
    }
    const RoomBlock& next = plan->updated;
    LockRooms(session, txn, {{next.property_id(), next.room_number()}});
    // New dates covering today on an occupied room, as on create (1.5.0); a block that covered
    // today already holds the room, and is not refused for its guest.
    if (auto s = housekeeping::CheckRoomNotOccupied(
            session, txn,
            {next.property_id(), next.room_number(), next.start_date(), next.end_date(), patch.allow_occupied()});
        !s.ok() && housekeeping::CheckRoomNotOccupied(
                       session, txn,
                       {current.property_id(), current.room_number(), current.start_date(), current.end_date(), false})
                       .ok()) {
      return s;
    }
    try {
      auto rows =
          session.Exec(txn, {std::string(sql::blocks::kUpdateRoomBlock),
                             {std::string(id), next.start_date(), next.end_date(), next.reason(), plan->actor}});
      out->Clear();
      ReadRoomBlock(rows[0], out);
      RefreshRoom(session, txn, out->property_id(), out->room_number());
    } catch (const pqxx::sql_error& e) {
      if (!IsOverlap(e)) throw;
      overlapping = WantedDates{next.property_id(), next.room_number(), next.start_date(), next.end_date(), next.id()};
      return absl::OkStatus();
    }
    session.Commit(txn);
    return absl::OkStatus();
  });
  if (!status.ok() || !overlapping) return status;
  return OverlapError(pool_, *overlapping);
}

absl::Status RoomBlockRepository::Cancel(absl::string_view id, absl::string_view etag, absl::string_view if_match,
                                         absl::string_view actor, RoomBlock* out) {
  return pool_.Run(db::Access::kWrite, [&](db::Session& session) -> absl::Status {
    pqxx::work txn(session.connection());
    RoomBlock current;
    if (auto s = LoadRoomBlock(session, txn, id, true, &current); !s.ok()) return s;
    if (auto s = api::CheckEtags(etag, if_match, current.etag(), "room block"); !s.ok()) return s;
    if (current.cancelled()) {
      *out = current;
      return absl::OkStatus();
    }
    auto rows = session.Exec(txn, {std::string(sql::blocks::kCancelRoomBlock), {std::string(id), std::string(actor)}});
    out->Clear();
    ReadRoomBlock(rows[0], out);
    RefreshRoom(session, txn, out->property_id(), out->room_number());
    session.Commit(txn);
    return absl::OkStatus();
  });
}

absl::Status RoomBlockRepository::Availability(const AvailabilityQuery& query, hotel::v1::PropertyAvailability* out) {
  return pool_.Run(db::Access::kRead, [&](db::Session& session) -> absl::Status {
    Snapshot txn(session.connection());
    auto property = session.Exec(txn, {std::string(sql::blocks::kSelectPropertyTimeZone), {query.property_id}});
    if (property.empty()) {
      return NotFoundError("PROPERTY_NOT_FOUND", absl::StrCat("property ", query.property_id, " does not exist"));
    }
    out->Clear();
    out->set_property_id(query.property_id);
    out->set_time_zone(property[0]["time_zone"].c_str());
    auto rows = session.Exec(
        txn, {std::string(sql::blocks::kSelectAvailability), {query.property_id, query.dates.from, query.dates.to}});
    hotel::v1::AvailabilityDate* date = nullptr;
    for (const auto& row : rows) {
      const absl::string_view day = row["day"].c_str();
      if (date == nullptr || date->date() != day) {
        date = out->add_dates();
        date->set_date(std::string(day));
      }
      if (row["room_type_id"].is_null()) continue;
      auto* counts = date->add_room_types();
      counts->set_room_type_id(row["room_type_id"].c_str());
      counts->set_in_inventory(row["rooms"].as<int>());
      counts->set_out_of_order(row["out_of_order"].as<int>());
      counts->set_out_of_service(row["out_of_service"].as<int>());
      counts->set_sellable(counts->in_inventory() - counts->out_of_order());
    }
    return absl::OkStatus();
  });
}

}  // namespace hotel::blocks
