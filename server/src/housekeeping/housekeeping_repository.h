// Housekeeping in PostgreSQL: writes to one room or many of a property in one transaction (the
// rooms locked in number order, checked, then set; the history and the feed follow from migration
// 0020's and 0011's triggers; 1.5.0: what housekeeping found, service requests and cleaning
// priorities, migration 0025), the overview of a property (ready rooms, discrepancies, the typed
// work list), a room's history, the properties' housekeeping policies (migration 0023), and the
// occupancy check of the writes that take a room out of order or out of service (blocks, issues).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "db/pool.h"
#include "hotel/v1/housekeeping.pb.h"
#include "housekeeping/housekeeping_request.h"

namespace hotel::housekeeping {

class HousekeepingRepository {
 public:
  explicit HousekeepingRepository(db::ConnectionPool& pool) : pool_(pool) {}

  // All or nothing; out gets each room's state after the write, in the write's order. Errors
  // name the room (write.RoomField(i)): NOT_FOUND PROPERTY_NOT_FOUND / ROOM_NOT_FOUND,
  // FAILED_PRECONDITION ROOM_RETIRED, HOUSEKEEPING_CONDITION_CHANGED, ROOM_NOT_CLEAN,
  // ROOM_NOT_OCCUPIED, ABORTED ETAG_MISMATCH (one room), REQUEST_ID_REUSED.
  absl::Status Write(const HousekeepingWrite& write,
                     google::protobuf::RepeatedPtrField<hotel::v1::RoomHousekeeping>* out);
  // NOT_FOUND PROPERTY_NOT_FOUND.
  absl::Status Overview(const std::string& property_id, hotel::v1::HousekeepingOverview* out);
  // NOT_FOUND PROPERTY_NOT_FOUND / ROOM_NOT_FOUND.
  absl::Status History(const HistoryQuery& query, hotel::v1::ListHousekeepingHistoryResponse* out);
  // The property's policy, the defaults while it was never changed. NOT_FOUND PROPERTY_NOT_FOUND.
  absl::Status GetPolicy(const std::string& property_id, hotel::v1::HousekeepingPolicy* out);
  // PlanPolicyUpdate's errors, NOT_FOUND PROPERTY_NOT_FOUND.
  absl::Status UpdatePolicy(const std::string& property_id, const hotel::v1::HousekeepingPolicy& patch,
                            const std::vector<std::string>& mask, absl::string_view if_match,
                            hotel::v1::HousekeepingPolicy* out);

 private:
  db::ConnectionPool& pool_;
};

// The etag of a stored version of a property's policy (0: the defaults, never stored), also the
// etag of its changes on the feed.
std::string PolicyEtag(absl::string_view property_id, int64_t version);

// A write that takes a room out of order or out of service from start_date to end_date
// (YYYY-MM-DD; "": today, no end).
struct RoomHold {
  std::string property_id;
  std::string room_number;
  std::string start_date;
  std::string end_date;
  bool allow_occupied = false;  // a guest being moved: the hold is taken anyway
};
// A guest is not in a room taken out of order or out of service: FAILED_PRECONDITION
// ROOM_OCCUPIED naming the room when its occupancy is OCCUPIED (UNKNOWN passes) and the hold
// covers its property's today, unless allow_occupied. The caller has locked the room, so no
// housekeeping write changes its occupancy before the hold commits.
absl::Status CheckRoomNotOccupied(db::Session& session, pqxx::transaction_base& txn, const RoomHold& hold);

}  // namespace hotel::housekeeping
