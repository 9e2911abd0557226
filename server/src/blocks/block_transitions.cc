#include "blocks/block_transitions.h"

#include <string>
#include <utility>

#include "sql/blocks.h"

namespace hotel::blocks {

RoomBlockTransitions::RoomBlockTransitions(db::ConnectionPool& pool, absl::Duration interval,
                                           std::function<bool()> ready)
    : db::DailyPass(pool, std::string(sql::blocks::kApplyTransitions), "room block transitions failed",
                    {"hotel_server_room_block_passes_total",
                     "Runs of the room blocks' daily pass by this replica, by result: ok (idle ones included), "
                     "failed (the next run applies what it did not).",
                     "hotel_server_room_block_rooms_changed_total",
                     "Rooms whose availability this replica's daily pass flipped (a room block started or ended); "
                     "summed over the replicas, each start or end counts once."},
                    interval, std::move(ready)) {}

}  // namespace hotel::blocks
