// Existence look-ups every area makes before it writes or reads under a property, room or room
// type: NOT_FOUND with the reason that names what is missing. In db/ so that no area includes
// another area's repository for them.
#pragma once

#include <pqxx/pqxx>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "db/pool.h"

namespace hotel::db {

// NOT_FOUND with reason PROPERTY_NOT_FOUND unless the property exists.
absl::Status CheckPropertyExists(Session& session, pqxx::transaction_base& txn, absl::string_view id);
// NOT_FOUND PROPERTY_NOT_FOUND or ROOM_NOT_FOUND unless the room exists; returns the property's
// time zone in *time_zone when not null.
absl::Status CheckRoomExists(Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                             absl::string_view number, std::string* time_zone = nullptr);
// NOT_FOUND ROOM_TYPE_NOT_FOUND unless the room type exists.
absl::Status CheckRoomTypeExists(Session& session, pqxx::transaction_base& txn, absl::string_view id);

// For an empty list page filtered by property (and maybe room): NOT_FOUND unless they exist.
absl::Status CheckListScopeExists(Session& session, pqxx::transaction_base& txn, const std::string& property_id,
                                  const std::string& room_number);
// NOT_FOUND EQUIPMENT_NOT_FOUND unless the equipment exists in that room.
absl::Status CheckEquipmentInRoom(Session& session, pqxx::transaction_base& txn, absl::string_view equipment_id,
                                  absl::string_view property_id, absl::string_view number);
// What a create in a room refers to: NOT_FOUND as CheckRoomExists, then as CheckEquipmentInRoom
// when equipment_id is not empty.
absl::Status CheckRoomTarget(Session& session, pqxx::transaction_base& txn, absl::string_view property_id,
                             absl::string_view number, absl::string_view equipment_id);

}  // namespace hotel::db
