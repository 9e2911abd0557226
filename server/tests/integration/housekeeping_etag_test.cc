// Two etags for a room (1.5.0, migration 0027) against a real PostgreSQL: a housekeeping write
// changes the room's housekeeping etag and leaves Room.etag, a room data write the other way
// round, a write changing both (a room back in order) changes both; each write refuses its own
// stale etag, takes the other's never, and takes the room's HTTP ETag by its own part.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "api/etag.h"
#include "common/errors.h"
#include "housekeeping/housekeeping_repository.h"
#include "housekeeping/housekeeping_request.h"
#include "rooms/room_repository.h"
#include "test_database.h"

namespace hotel {
namespace {

using hotel::v1::Room;
using hotel::v1::RoomHousekeeping;

// A property of its own with room 101, DIRTY and of UNKNOWN occupancy.
std::string NewProperty() {
  static std::atomic<int> next{0};
  const std::string id = absl::StrCat("E", absl::ToUnixMicros(absl::Now()) % 100000000, next++ % 10);
  testing::TestDatabase::Get().Exec(absl::StrCat(
      "WITH p AS (INSERT INTO properties (id, name, time_zone, city, country_code) VALUES ('", id,
      "', 'Etags', 'Europe/Berlin', 'Berlin', 'DE') RETURNING id), "
      "t AS (INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, bed_type) "
      "SELECT p.id || '-A', p.id, 'A', 'A', 'STANDARD', 20, 2, 'DOUBLE' FROM p RETURNING id) "
      "INSERT INTO rooms (property_id, number, floor, room_type_id) SELECT p.id, '101', 1, (SELECT id FROM t) FROM p"));
  return id;
}

class HousekeepingEtagTest : public ::testing::Test {
 protected:
  HousekeepingEtagTest() : rooms_(testing::TestDatabase::Get().pool()), housekeeping_(rooms_pool()) {}
  static db::ConnectionPool& rooms_pool() { return testing::TestDatabase::Get().pool(); }

  Room Read(const std::string& property) {
    Room room;
    EXPECT_TRUE(rooms_.GetRoom(property, "101", &room).ok());
    return room;
  }

  absl::Status SetCondition(const std::string& property, RoomHousekeeping::Condition condition,
                            const std::string& if_match) {
    v1::UpdateRoomHousekeepingRequest one;
    one.set_property_id(property);
    one.set_room_number("101");
    one.mutable_housekeeping()->set_condition(condition);
    auto write = housekeeping::ValidateUpdateRoomHousekeeping(one, if_match);
    if (!write.ok()) return write.status();
    google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
    return housekeeping_.Write(*write, &out);
  }

  absl::Status MoveTo(const std::string& property, int floor, const std::string& if_match) {
    Room patch, out;
    patch.set_floor(floor);
    return rooms_.UpdateRoom(property, "101", patch, {"floor"}, if_match, &out);
  }

  rooms::RoomRepository rooms_;
  housekeeping::HousekeepingRepository housekeeping_;
};

TEST_F(HousekeepingEtagTest, EachWriteChangesItsOwnEtagAndChecksItsOwn) {
  const std::string property = NewProperty();
  const Room first = Read(property);
  ASSERT_NE(first.etag(), first.housekeeping().etag());

  ASSERT_TRUE(SetCondition(property, RoomHousekeeping::CLEAN, first.housekeeping().etag()).ok());
  const Room cleaned = Read(property);
  EXPECT_EQ(cleaned.etag(), first.etag()) << "a housekeeping write leaves Room.etag";
  EXPECT_NE(cleaned.housekeeping().etag(), first.housekeeping().etag());

  // The administrator's etag, read before the housekeeping write, still writes the room's data.
  ASSERT_TRUE(MoveTo(property, 2, first.etag()).ok());
  const Room moved = Read(property);
  EXPECT_NE(moved.etag(), first.etag());
  EXPECT_EQ(moved.housekeeping().etag(), cleaned.housekeeping().etag()) << "a room data write leaves housekeeping's";

  // Stale etags of their own, and the other's, are refused.
  EXPECT_EQ(ErrorReason(SetCondition(property, RoomHousekeeping::DIRTY, first.housekeeping().etag())), "ETAG_MISMATCH");
  EXPECT_EQ(ErrorReason(SetCondition(property, RoomHousekeeping::DIRTY, moved.etag())), "ETAG_MISMATCH");
  EXPECT_EQ(ErrorReason(MoveTo(property, 3, first.etag())), "ETAG_MISMATCH");
  EXPECT_EQ(ErrorReason(MoveTo(property, 3, moved.housekeeping().etag())), "ETAG_MISMATCH");

  // The GET's HTTP ETag serves both writes, each by its own part.
  const std::string whole = absl::StrCat("\"", api::RepresentationEtag(moved), "\"");
  ASSERT_TRUE(SetCondition(property, RoomHousekeeping::DIRTY, whole).ok());
  ASSERT_TRUE(MoveTo(property, 3, whole).ok()) << "its room part is still current";
  EXPECT_EQ(ErrorReason(SetCondition(property, RoomHousekeeping::CLEAN, whole)), "ETAG_MISMATCH");
}

TEST_F(HousekeepingEtagTest, ARoomBackInOrderChangesBothAndTheFeedsEtagCountsEveryChange) {
  const std::string property = NewProperty();
  auto& db = testing::TestDatabase::Get();
  const Room first = Read(property);
  const auto row_version = [&] {
    return db.Scalar(absl::StrCat("SELECT version || '/' || housekeeping_version FROM rooms WHERE property_id = '",
                                  property, "' AND number = '101'"));
  };
  EXPECT_EQ(row_version(), "1/0");
  db.Exec(
      absl::StrCat("UPDATE rooms SET out_of_order = true, out_of_order_reason = 'Leak', out_of_order_since = now() "
                   "WHERE property_id = '",
                   property, "'"));
  EXPECT_EQ(row_version(), "2/0");
  // Back in order: the room's data and (the return condition) its housekeeping, in one update.
  db.Exec(
      absl::StrCat("UPDATE rooms SET out_of_order = false, out_of_order_reason = '', out_of_order_since = NULL "
                   "WHERE property_id = '",
                   property, "'"));
  EXPECT_EQ(row_version(), "4/1");
  const Room back = Read(property);
  EXPECT_NE(back.etag(), first.etag());
  EXPECT_NE(back.housekeeping().etag(), first.housekeeping().etag());
  // A statement that changes nothing changes no version.
  db.Exec(absl::StrCat("UPDATE rooms SET floor = floor WHERE property_id = '", property, "'"));
  EXPECT_EQ(row_version(), "4/1");
  // The feed's ROOM changes: the row's version, one more each (no change carries housekeeping_version).
  EXPECT_EQ(
      db.Scalar(absl::StrCat(
          "SELECT string_agg(version, ',' ORDER BY version::int) FROM (SELECT version, changed_fields, property_id "
          "FROM change_log WHERE resource_type = 'ROOM' UNION ALL SELECT version, changed_fields, property_id "
          "FROM change_staging WHERE resource_type = 'ROOM') c WHERE property_id = '",
          property, "' AND NOT 'housekeeping_version' = ANY (changed_fields)")),
      "1,2,4");
}

}  // namespace
}  // namespace hotel
