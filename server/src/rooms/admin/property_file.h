// The property file of hotel-admin (docs/room-data.md#import-format): one property with its room
// types and rooms, in YAML. Parsing validates every record with the API's field checks and names
// each bad one by its position; planning compares the file with the stored property and lists
// what an import creates and changes. Pure, unit-tested.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hotel/v1/rooms.pb.h"

namespace hotel::rooms {

struct PropertyFile {
  hotel::v1::Property property;
  bool enabled_given = false;  // "enabled" omitted: a new property is enabled, a stored one keeps its flag
  std::vector<hotel::v1::RoomType> room_types;
  std::vector<hotel::v1::Room> rooms;
  // Where each record starts in the file ("room_types[2] (line 14)"), for error messages.
  std::vector<std::string> room_type_positions;
  std::vector<std::string> room_positions;
};

// INVALID_ARGUMENT naming every bad record and field ("rooms[3] (line 40, number 104).floor"):
// YAML syntax, unknown or missing keys, values of the wrong type, the API's field checks,
// duplicate codes or numbers, rooms naming a room type the file does not have.
absl::StatusOr<PropertyFile> ParsePropertyFile(const std::string& yaml);

// The file hotel-admin export writes: every room type and room, retired ones included, in list order.
std::string FormatPropertyFile(const PropertyFile& file);

enum class ChangeKind { kCreate, kUpdate };

struct PlannedChange {
  ChangeKind kind = ChangeKind::kCreate;
  std::string what;         // "property MUC1", "room_type MUC1-STD", "room MUC1/101"
  std::string position;     // where the record is in the file
  std::string description;  // for updates: "floor: 1 -> 2; retired: false -> true"
  bool retiring = false;
  bool needs_room_type = false;  // a room's type is new to it, or it returns from retirement
};

struct ImportPlan {
  std::optional<hotel::v1::Property> property;  // to create or update; unset when unchanged
  std::vector<hotel::v1::RoomType> room_types;  // to create or update
  std::vector<hotel::v1::Room> rooms;           // to create or update
  std::vector<PlannedChange> changes;           // one per record above, in the same order
  int unchanged = 0;                            // records of the file already stored as they are
};

// What an import of desired writes over current (the stored property; nullopt when new). Records
// stored but missing from the file are left alone: an import never deletes or retires by omission.
ImportPlan PlanImport(const PropertyFile& desired, const std::optional<PropertyFile>& current);

// The plan as a diff: "+ room MUC1/101", "~ room MUC1/102: floor: 1 -> 2", and a summary line.
std::string FormatPlan(const ImportPlan& plan);

}  // namespace hotel::rooms
