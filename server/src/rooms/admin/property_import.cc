#include "rooms/admin/property_import.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/errors.h"
#include "rooms/room_repository.h"
#include "rooms/room_sql.h"
#include "sql/db.h"
#include "sql/rooms.h"

namespace hotel::rooms {
namespace {

using hotel::v1::Property;
using hotel::v1::Room;
using hotel::v1::RoomType;

// Larger than any property: an import reads all of its records in one statement.
constexpr int kEveryRecord = 1000000;

db::SqlQuery BuildSql(const RoomTypeListQuery& query) { return BuildListRoomTypesSql(query); }
db::SqlQuery BuildSql(const RoomListQuery& query) { return BuildListRoomsSql(query); }

// The stored property (retired records included) in the caller's transaction; nullopt when new.
absl::StatusOr<std::optional<PropertyFile>> LoadPropertyFile(db::Session& session, pqxx::transaction_base& txn,
                                                             const std::string& property_id) {
  PropertyFile file;
  absl::Status found = ReadPropertyRecord(session, txn, property_id, &file.property);
  if (absl::IsNotFound(found)) return std::optional<PropertyFile>();
  if (!found.ok()) return found;
  file.enabled_given = true;
  // Every record of the property, retired ones included, in list order.
  auto read_all = [&](auto query, auto read, auto& records, auto& positions, auto position) {
    query.property_id = property_id;
    query.show_retired = true;
    query.page_size = kEveryRecord;
    for (const auto& row : session.Exec(txn, BuildSql(query))) {
      read(row, &records.emplace_back());
      positions.push_back(position(records.back()));
    }
  };
  read_all(RoomTypeListQuery(), ReadRoomType, file.room_types, file.room_type_positions,
           [](const RoomType& t) { return t.id(); });
  read_all(RoomListQuery(), ReadRoom, file.rooms, file.room_positions, [](const Room& r) { return r.number(); });
  return std::optional<PropertyFile>(std::move(file));
}

// Writes the plan; the refusals, each naming its record, when any.
std::vector<std::string> WritePlan(db::Session& session, pqxx::transaction_base& txn, const ImportPlan& plan,
                                   const std::string& actor) {
  std::vector<std::string> refused;
  size_t next = 0;
  auto check = [&](const PlannedChange& change, const absl::Status& status) {
    if (!status.ok()) refused.push_back(absl::StrCat(change.position, " ", change.what, ": ", status.message()));
  };
  if (plan.property) {
    const PlannedChange& change = plan.changes[next++];
    check(change, change.kind == ChangeKind::kCreate ? InsertProperty(session, txn, *plan.property, actor)
                                                     : WriteProperty(session, txn, *plan.property, actor));
  }
  std::vector<std::pair<const PlannedChange*, std::string>> retiring_types;
  for (const RoomType& t : plan.room_types) {
    const PlannedChange& change = plan.changes[next++];
    if (change.kind == ChangeKind::kCreate) {
      check(change, InsertRoomType(session, txn, t, actor));
    } else {
      WriteRoomType(session, txn, t, actor);
    }
    if (change.retiring) retiring_types.emplace_back(&change, t.id());
  }
  for (const Room& r : plan.rooms) {
    const PlannedChange& change = plan.changes[next++];
    if (change.kind == ChangeKind::kCreate) {
      check(change, InsertRoom(session, txn, r, actor));
      continue;
    }
    if (change.needs_room_type) check(change, CheckRoomType(session, txn, r.property_id(), r.room_type_id()));
    if (change.retiring) check(change, CheckRoomRetirable(session, txn, r.property_id(), r.number()));
    WriteRoom(session, txn, r, actor);
  }
  // After the rooms: the file may move rooms off a type it retires.
  for (const auto& [change, id] : retiring_types) check(*change, CheckRoomTypeRetirable(session, txn, id));
  return refused;
}

}  // namespace

absl::StatusOr<PropertyFile> ExportPropertyFile(db::ConnectionPool& pool, const std::string& property_id) {
  PropertyFile out;
  absl::Status status = pool.Run(db::Access::kRead, [&](db::Session& session) {
    pqxx::read_transaction txn(session.connection());
    auto file = LoadPropertyFile(session, txn, property_id);
    if (!file.ok()) return file.status();
    if (!file->has_value()) {
      return NotFoundError("PROPERTY_NOT_FOUND", absl::StrCat("property ", property_id, " does not exist"));
    }
    out = std::move(**file);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<ImportPlan> ImportPropertyFile(db::ConnectionPool& pool, const PropertyFile& file, bool dry_run,
                                              const std::string& actor) {
  ImportPlan plan;
  absl::Status status = pool.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    const std::string& id = file.property.id();
    // Lock order: the property, its rooms, then its room types (the order of room updates).
    session.Exec(txn, {std::string(sql::rooms::kLockProperty), {id}});
    session.Exec(txn, {std::string(sql::rooms::kLockPropertyRooms), {id}});
    session.Exec(txn, {std::string(sql::rooms::kLockPropertyRoomTypes), {id}});
    auto current = LoadPropertyFile(session, txn, id);
    if (!current.ok()) return current.status();
    plan = PlanImport(file, *current);
    session.Exec(txn, {std::string(sql::db::kSetActor), {actor}});
    std::vector<std::string> refused = WritePlan(session, txn, plan, actor);
    if (!refused.empty()) {
      return FailedPreconditionError("IMPORT_REFUSED",
                                     absl::StrCat("nothing was imported; ", refused.size(), " record(s) refused:\n  ",
                                                  absl::StrJoin(refused, "\n  ")));
    }
    if (!dry_run) txn.commit();  // a dry run wrote and checked everything, and rolls it back
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return plan;
}

}  // namespace hotel::rooms
