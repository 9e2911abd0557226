// Housekeeping in PostgreSQL: writes to one room or many of a property in one transaction (the
// rooms locked in number order, checked, then set; the history and the feed follow from migration
// 0020's and 0011's triggers), the overview of a property and a room's history.
#pragma once

#include "absl/status/status.h"
#include "db/pool.h"
#include "hotel/v1/housekeeping.pb.h"
#include "housekeeping/housekeeping_request.h"

namespace hotel::housekeeping {

class HousekeepingRepository {
 public:
  explicit HousekeepingRepository(db::ConnectionPool& pool) : pool_(pool) {}

  // All or nothing; out gets each room's state after the write, in the write's order. Errors
  // name the room (write.RoomField(i)): NOT_FOUND PROPERTY_NOT_FOUND / ROOM_NOT_FOUND,
  // FAILED_PRECONDITION ROOM_RETIRED, HOUSEKEEPING_CONDITION_CHANGED, ROOM_NOT_CLEAN, ABORTED
  // ETAG_MISMATCH (one room), REQUEST_ID_REUSED.
  absl::Status Write(const HousekeepingWrite& write,
                     google::protobuf::RepeatedPtrField<hotel::v1::RoomHousekeeping>* out);
  // NOT_FOUND PROPERTY_NOT_FOUND.
  absl::Status Overview(const std::string& property_id, hotel::v1::HousekeepingOverview* out);
  // NOT_FOUND PROPERTY_NOT_FOUND / ROOM_NOT_FOUND.
  absl::Status History(const HistoryQuery& query, hotel::v1::ListHousekeepingHistoryResponse* out);

 private:
  db::ConnectionPool& pool_;
};

}  // namespace hotel::housekeeping
