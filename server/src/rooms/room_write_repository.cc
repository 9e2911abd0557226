// The writes of RoomRepository: creates and updates of properties, room types and rooms, and the
// single-record writes hotel-admin's import shares. Lock order (docs/performance.md#write-path):
// the record's own row first (FOR NO KEY UPDATE before an update; a create's new row, after its
// request_id claim, a key only retries of the same request contend for), then the room type a
// room is given (FOR SHARE).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/idempotency.h"
#include "api/locked_update.h"
#include "common/errors.h"
#include "db/existence.h"
#include "db/sql.h"
#include "rooms/room_repository.h"
#include "rooms/room_sql.h"
#include "sql/db.h"
#include "sql/rooms.h"

namespace hotel::rooms {
namespace {

using hotel::v1::Property;
using hotel::v1::Room;
using hotel::v1::RoomType;

constexpr size_t kNamedInErrors = 20;

std::string Flag(bool value) { return value ? "true" : "false"; }

std::string Amenities(const google::protobuf::RepeatedPtrField<std::string>& codes) {
  return db::TextArrayLiteral({codes.begin(), codes.end()});
}

std::string RoomId(const Room& room) { return absl::StrCat(room.property_id(), "/", room.number()); }

void SetActor(db::Session& session, pqxx::transaction_base& txn, absl::string_view actor) {
  session.Exec(txn, {std::string(sql::db::kSetActor), {std::string(actor)}});
}

// "a, b, c" of the first kNamedInErrors names (column "name"), and whether there are more.
std::string NameSome(const pqxx::result& rows) {
  std::vector<std::string> names;
  for (size_t i = 0; i < rows.size() && i < kNamedInErrors; ++i) names.push_back(rows[i]["name"].c_str());
  std::string text = absl::StrJoin(names, ", ");
  if (rows.size() > kNamedInErrors) absl::StrAppend(&text, " and more");
  return text;
}

// A create in one transaction: the actor, the request_id claim (api::ClaimRequest: a retry returns
// what the first request created, once its transaction has ended), the insert, and the record
// read back.
absl::Status RunCreate(
    db::ConnectionPool& pool, absl::string_view actor, const std::string& request_id, const std::string& request_hash,
    const std::string& id, const std::function<absl::Status(db::Session&, pqxx::transaction_base&)>& insert,
    const std::function<absl::Status(db::Session&, pqxx::transaction_base&, const std::string&)>& read) {
  return pool.Run(db::Access::kWrite, [&](db::Session& session) {
    pqxx::work txn(session.connection());
    SetActor(session, txn, actor);
    auto claim =
        api::ClaimRequest(session, txn, {std::string(sql::rooms::kClaimRequest), {request_id, request_hash, id}},
                          sql::rooms::kFindRoomDataRequest, request_id, request_hash);
    if (!claim.ok()) return claim.status();
    if (!claim->first) return read(session, txn, claim->existing_id);
    if (auto s = insert(session, txn); !s.ok()) return s;
    if (auto s = read(session, txn, id); !s.ok()) return s;
    session.Commit(txn);
    return absl::OkStatus();
  });
}

}  // namespace

namespace {
absl::Status CheckTimeZoneKnown(db::Session& session, pqxx::transaction_base& txn, const Property& p) {
  if (session.Exec(txn, {std::string(sql::rooms::kTimeZoneKnown), {p.time_zone()}})[0]["known"].as<bool>()) {
    return absl::OkStatus();
  }
  return InvalidField("time_zone", "must be an IANA time zone such as Europe/Berlin");
}
}  // namespace

absl::Status InsertProperty(db::Session& session, pqxx::transaction_base& txn, const Property& p,
                            absl::string_view actor) {
  if (auto s = CheckTimeZoneKnown(session, txn, p); !s.ok()) return s;
  auto rows = session.Exec(
      txn, {std::string(sql::rooms::kInsertProperty),
            {p.id(), p.name(), p.time_zone(), p.city(), p.country_code(), Flag(p.enabled()), std::string(actor)}});
  if (rows.empty()) return AlreadyExistsError("PROPERTY_EXISTS", absl::StrCat("property ", p.id(), " already exists"));
  return absl::OkStatus();
}

absl::Status WriteProperty(db::Session& session, pqxx::transaction_base& txn, const Property& p,
                           absl::string_view actor) {
  if (auto s = CheckTimeZoneKnown(session, txn, p); !s.ok()) return s;
  session.Exec(txn,
               {std::string(sql::rooms::kUpdateProperty),
                {p.id(), p.name(), p.time_zone(), p.city(), p.country_code(), Flag(p.enabled()), std::string(actor)}});
  return absl::OkStatus();
}

namespace {
std::vector<std::string> RoomTypeParams(const RoomType& t, absl::string_view actor) {
  return {t.id(),
          t.property_id(),
          t.code(),
          t.name(),
          t.description(),
          RoomType::Category_Name(t.category()),
          Amenities(t.amenities()),
          absl::StrCat(t.size_sqm()),
          absl::StrCat(t.max_guests()),
          t.bed_type(),
          Flag(t.retired()),
          std::string(actor)};
}

std::vector<std::string> RoomParams(const Room& r, absl::string_view actor) {
  return {
      r.property_id(),   r.number(),        absl::StrCat(r.floor()), r.room_type_id(), Amenities(r.extra_amenities()),
      Flag(r.retired()), std::string(actor)};
}
}  // namespace

absl::Status InsertRoomType(db::Session& session, pqxx::transaction_base& txn, const RoomType& t,
                            absl::string_view actor) {
  if (auto s = db::CheckPropertyExists(session, txn, t.property_id()); !s.ok()) return s;
  if (session.Exec(txn, {std::string(sql::rooms::kInsertRoomType), RoomTypeParams(t, actor)}).empty()) {
    return AlreadyExistsError("ROOM_TYPE_EXISTS", absl::StrCat("room type ", t.id(), " already exists"));
  }
  return absl::OkStatus();
}

void WriteRoomType(db::Session& session, pqxx::transaction_base& txn, const RoomType& t, absl::string_view actor) {
  session.Exec(txn, {std::string(sql::rooms::kUpdateRoomType), RoomTypeParams(t, actor)});
}

absl::Status InsertRoom(db::Session& session, pqxx::transaction_base& txn, const Room& r, absl::string_view actor) {
  if (auto s = db::CheckPropertyExists(session, txn, r.property_id()); !s.ok()) return s;
  if (!r.retired()) {
    if (auto s = CheckRoomType(session, txn, r.property_id(), r.room_type_id()); !s.ok()) return s;
  }
  if (session.Exec(txn, {std::string(sql::rooms::kInsertRoom), RoomParams(r, actor)}).empty()) {
    return AlreadyExistsError("ROOM_EXISTS",
                              absl::StrCat("room ", r.number(), " already exists in property ", r.property_id()));
  }
  return absl::OkStatus();
}

void WriteRoom(db::Session& session, pqxx::transaction_base& txn, const Room& r, absl::string_view actor) {
  session.Exec(txn, {std::string(sql::rooms::kUpdateRoom), RoomParams(r, actor)});
}

absl::Status CheckRoomType(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                           absl::string_view room_type_id) {
  auto rows = session.Exec(txn, {std::string(sql::rooms::kShareRoomType), {std::string(room_type_id)}});
  if (rows.empty()) {
    return NotFoundError("ROOM_TYPE_NOT_FOUND", absl::StrCat("room type ", room_type_id, " does not exist"));
  }
  if (rows[0]["property_id"].c_str() != property_id) {
    return InvalidField("room_type_id", absl::StrCat("must be a room type of property ", property_id));
  }
  if (rows[0]["retired"].as<bool>()) {
    return FailedPreconditionError("ROOM_TYPE_RETIRED",
                                   absl::StrCat("room type ", room_type_id, " is retired and takes no rooms"));
  }
  return absl::OkStatus();
}

absl::Status CheckRoomRetirable(db::Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                                absl::string_view number) {
  auto rows =
      session.Exec(txn, {std::string(sql::rooms::kRoomHolders), {std::string(property_id), std::string(number)}});
  if (rows.empty()) return absl::OkStatus();
  return FailedPreconditionError(
      "ROOM_HELD_BY_ISSUE",
      absl::StrCat("room ", number, " of property ", property_id, " is held out of order by open issues ",
                   NameSome(rows), "; resolve them or release the room before retiring it"));
}

absl::Status CheckRoomTypeRetirable(db::Session& session, pqxx::transaction_base& txn, absl::string_view id) {
  auto rows = session.Exec(txn, {std::string(sql::rooms::kRoomTypeUsers), {std::string(id)}});
  if (rows.empty()) return absl::OkStatus();
  return FailedPreconditionError("ROOM_TYPE_IN_USE",
                                 absl::StrCat("room type ", id, " is used by active rooms ", NameSome(rows),
                                              "; give them another type or retire them first"));
}

absl::Status RoomRepository::CreateProperty(const NewRecord<Property>& in, Property* out) {
  return RunCreate(
      pool_, in.actor, in.request_id, in.request_hash, in.record.id(),
      [&](db::Session& session, pqxx::transaction_base& txn) {
        return InsertProperty(session, txn, in.record, in.actor);
      },
      [&](db::Session& session, pqxx::transaction_base& txn, const std::string& id) {
        out->Clear();
        return ReadPropertyRecord(session, txn, id, out);
      });
}

absl::Status RoomRepository::CreateRoomType(const NewRecord<RoomType>& in, RoomType* out) {
  return RunCreate(
      pool_, in.actor, in.request_id, in.request_hash, in.record.id(),
      [&](db::Session& session, pqxx::transaction_base& txn) {
        return InsertRoomType(session, txn, in.record, in.actor);
      },
      [&](db::Session& session, pqxx::transaction_base& txn, const std::string& id) {
        out->Clear();
        return ReadRoomTypeWithImages(session, txn, id, out);
      });
}

absl::Status RoomRepository::CreateRoom(const NewRecord<Room>& in, Room* out) {
  return RunCreate(
      pool_, in.actor, in.request_id, in.request_hash, RoomId(in.record),
      [&](db::Session& session, pqxx::transaction_base& txn) { return InsertRoom(session, txn, in.record, in.actor); },
      [&](db::Session& session, pqxx::transaction_base& txn, const std::string& id) {
        std::pair<std::string, std::string> address = absl::StrSplit(id, absl::MaxSplits('/', 1));
        out->Clear();
        return ReadRoomWithImages(session, txn, address.first, address.second, out);
      });
}

absl::Status RoomRepository::UpdateProperty(absl::string_view id, const Property& patch,
                                            const std::vector<std::string>& mask, absl::string_view if_match,
                                            Property* out) {
  using Plan = UpdatePlan<Property>;
  return api::RunLockedUpdate<Property, Plan>(
      pool_, {std::string(sql::rooms::kLockProperty), {std::string(id)}}, "PROPERTY_NOT_FOUND",
      absl::StrCat("property ", id, " does not exist"),
      [&](db::Session& session, pqxx::transaction_base& txn, Property* record) {
        return ReadPropertyRecord(session, txn, id, record);
      },
      [&](const Property& current) { return PlanPropertyUpdate(current, patch, mask, if_match); },
      [&](db::Session& session, pqxx::transaction_base& txn, const Plan& plan) {
        return WriteProperty(session, txn, plan.updated, plan.actor);
      },
      out);
}

absl::Status RoomRepository::UpdateRoomType(absl::string_view id, const RoomType& patch,
                                            const std::vector<std::string>& mask, absl::string_view if_match,
                                            RoomType* out) {
  using Plan = UpdatePlan<RoomType>;
  return api::RunLockedUpdate<RoomType, Plan>(
      pool_, {std::string(sql::rooms::kLockRoomType), {std::string(id)}}, "ROOM_TYPE_NOT_FOUND",
      absl::StrCat("room type ", id, " does not exist"),
      [&](db::Session& session, pqxx::transaction_base& txn, RoomType* record) {
        return ReadRoomTypeWithImages(session, txn, id, record);
      },
      [&](const RoomType& current) { return PlanRoomTypeUpdate(current, patch, mask, if_match); },
      [&](db::Session& session, pqxx::transaction_base& txn, const Plan& plan) {
        if (plan.retiring) {
          if (auto s = CheckRoomTypeRetirable(session, txn, id); !s.ok()) return s;
        }
        WriteRoomType(session, txn, plan.updated, plan.actor);
        return absl::OkStatus();
      },
      out);
}

absl::Status RoomRepository::UpdateRoom(absl::string_view property_id, absl::string_view number, const Room& patch,
                                        const std::vector<std::string>& mask, absl::string_view if_match, Room* out) {
  using Plan = UpdatePlan<Room>;
  return api::RunLockedUpdate<Room, Plan>(
      pool_, {std::string(sql::rooms::kLockRoom), {std::string(property_id), std::string(number)}}, "ROOM_NOT_FOUND",
      absl::StrCat("room ", number, " does not exist in property ", property_id),
      [&](db::Session& session, pqxx::transaction_base& txn, Room* record) {
        return ReadRoomWithImages(session, txn, property_id, number, record);
      },
      [&](const Room& current) { return PlanRoomUpdate(current, patch, mask, if_match); },
      [&](db::Session& session, pqxx::transaction_base& txn, const Plan& plan) {
        if (plan.needs_room_type) {
          if (auto s = CheckRoomType(session, txn, property_id, plan.updated.room_type_id()); !s.ok()) return s;
        }
        if (plan.retiring) {
          if (auto s = CheckRoomRetirable(session, txn, property_id, number); !s.ok()) return s;
        }
        WriteRoom(session, txn, plan.updated, plan.actor);
        return absl::OkStatus();
      },
      out);
}

}  // namespace hotel::rooms
