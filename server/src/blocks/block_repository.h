// Room blocks in PostgreSQL: creates (idempotent by request_id; a batch in one transaction),
// reads, updates and cancels under a row lock, and the availability of a property by date. The
// overlap rule of OUT_OF_ORDER blocks is the database's (an exclusion constraint, migration
// 0017); an overlap it refuses is answered FAILED_PRECONDITION ROOM_BLOCK_OVERLAP naming the
// other block.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "blocks/block_request.h"
#include "db/pool.h"
#include "hotel/v1/room_blocks.pb.h"

namespace hotel::blocks {

class RoomBlockRepository {
 public:
  explicit RoomBlockRepository(db::ConnectionPool& pool) : pool_(pool) {}

  // NOT_FOUND PROPERTY_NOT_FOUND / ROOM_NOT_FOUND / ISSUE_NOT_FOUND for unknown references,
  // FAILED_PRECONDITION ROOM_RETIRED, ROOM_BLOCK_OVERLAP.
  absl::Status Create(const NewRoomBlock& block, hotel::v1::RoomBlock* out);
  // All or nothing; the errors of Create, their message starting with the item (requests[i]).
  absl::Status BatchCreate(const std::vector<NewRoomBlock>& blocks, hotel::v1::BatchCreateRoomBlocksResponse* out);
  // NOT_FOUND ROOM_BLOCK_NOT_FOUND.
  absl::Status Get(absl::string_view id, hotel::v1::RoomBlock* out);
  absl::Status List(const RoomBlockListQuery& query, hotel::v1::ListRoomBlocksResponse* out);
  // See PlanRoomBlockUpdate; ROOM_BLOCK_OVERLAP when the new dates overlap another block.
  absl::Status Update(absl::string_view id, const hotel::v1::RoomBlock& patch, const std::vector<std::string>& mask,
                      absl::string_view if_match, hotel::v1::RoomBlock* out);
  // ABORTED ETAG_MISMATCH when etag or if_match name another version.
  absl::Status Cancel(absl::string_view id, absl::string_view etag, absl::string_view if_match, absl::string_view actor,
                      hotel::v1::RoomBlock* out);
  // NOT_FOUND PROPERTY_NOT_FOUND.
  absl::Status Availability(const AvailabilityQuery& query, hotel::v1::PropertyAvailability* out);

 private:
  // Inserts blocks in one transaction; names the item (requests[i]) in errors when batch.
  absl::Status CreateAll(const std::vector<NewRoomBlock>& blocks, bool batch,
                         google::protobuf::RepeatedPtrField<hotel::v1::RoomBlock>* out);
  db::ConnectionPool& pool_;
};

}  // namespace hotel::blocks
