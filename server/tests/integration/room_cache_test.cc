// The room read cache against a real PostgreSQL: filled by GetRoom, dropped by the NOTIFY that
// any connection's write sends, and by this process's own writes before they are acknowledged.
#include "rooms/room_cache.h"

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "db/change_listener.h"
#include "rooms/room_repository.h"
#include "test_database.h"

namespace hotel::rooms {
namespace {

class RoomCacheTest : public ::testing::Test {
 protected:
  RoomCacheTest()
      : db_(testing::TestDatabase::Get()),
        pool_({db_.url(), 2, absl::Seconds(2), absl::Seconds(2), absl::Seconds(5), [this] { cache_.InvalidateAll(); }}),
        repository_(pool_, "", &cache_) {}

  int Floor(const char* number) {
    hotel::v1::Room room;
    absl::Status status = repository_.GetRoom("BER1", number, &room);
    EXPECT_TRUE(status.ok()) << status;
    return room.floor();
  }

  testing::TestDatabase& db_;
  RoomCache cache_{100};
  db::ConnectionPool pool_;
  RoomRepository repository_;
};

TEST_F(RoomCacheTest, RepeatedReadsAreServedFromMemoryOnceListening) {
  db::ChangeListener listener(
      db_.url(), "room_data_changed", [this] { cache_.InvalidateAll(); },
      [this](bool listening) { cache_.SetEnabled(listening); });
  ASSERT_TRUE(testing::Eventually([&] { return cache_.Stats().enabled; }));
  EXPECT_EQ(Floor("101"), 1);
  const int64_t acquired = pool_.Stats().acquired_total;
  EXPECT_EQ(Floor("101"), 1);
  EXPECT_EQ(Floor("101"), 1);
  EXPECT_EQ(pool_.Stats().acquired_total, acquired) << "a cached read went to the database";
  EXPECT_EQ(cache_.Stats().hits, 2);
}

TEST_F(RoomCacheTest, AnotherConnectionsCommitInvalidatesThroughNotify) {
  db::ChangeListener listener(
      db_.url(), "room_data_changed", [this] { cache_.InvalidateAll(); },
      [this](bool listening) { cache_.SetEnabled(listening); });
  ASSERT_TRUE(testing::Eventually([&] { return cache_.Stats().enabled; }));
  ASSERT_EQ(Floor("101"), 1);
  db_.Exec("UPDATE rooms SET floor = 9 WHERE property_id = 'BER1' AND number = '101'");
  EXPECT_TRUE(testing::Eventually([&] { return Floor("101") == 9; }));
  EXPECT_GE(cache_.Stats().invalidations, 1);
}

TEST_F(RoomCacheTest, OwnWritesAreVisibleAsSoonAsTheyAreAcknowledged) {
  // No listener here, and the cache forced on: only the pool's after-write hook can invalidate.
  cache_.SetEnabled(true);
  ASSERT_EQ(Floor("102"), 1);
  ASSERT_TRUE(pool_
                  .Run(db::Access::kWrite,
                       [](db::Session& session) {
                         pqxx::work txn(session.connection());
                         txn.exec("UPDATE rooms SET floor = 8 WHERE property_id = 'BER1' AND number = '102'");
                         txn.commit();
                         return absl::OkStatus();
                       })
                  .ok());
  EXPECT_EQ(Floor("102"), 8);
}

TEST_F(RoomCacheTest, ListenerOnAnUnreachableDatabaseKeepsTheCacheOff) {
  cache_.SetEnabled(true);
  db::ChangeListener listener(
      "postgresql://hotel@127.0.0.1:1/hotel", "room_data_changed", [this] { cache_.InvalidateAll(); },
      [this](bool listening) { cache_.SetEnabled(listening); });
  ASSERT_TRUE(testing::Eventually([&] { return !cache_.Stats().enabled; }));
  Floor("101");
  Floor("101");
  EXPECT_EQ(cache_.Stats().hits, 0);
}

}  // namespace
}  // namespace hotel::rooms
