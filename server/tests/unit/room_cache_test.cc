#include "rooms/room_cache.h"

#include <gtest/gtest.h>

namespace hotel::rooms {
namespace {

hotel::v1::Room MakeRoom(const std::string& number, int floor) {
  hotel::v1::Room room;
  room.set_property_id("BER1");
  room.set_number(number);
  room.set_floor(floor);
  return room;
}

TEST(RoomCache, DisabledUntilEnabled) {
  RoomCache cache(10);
  cache.Put("BER1", "101", MakeRoom("101", 1), cache.Generation());
  hotel::v1::Room out;
  EXPECT_FALSE(cache.Get("BER1", "101", &out));
  EXPECT_EQ(cache.Stats().entries, 0);
}

TEST(RoomCache, ServesWhatWasPut) {
  RoomCache cache(10);
  cache.SetEnabled(true);
  cache.Put("BER1", "101", MakeRoom("101", 1), cache.Generation());
  hotel::v1::Room out;
  ASSERT_TRUE(cache.Get("BER1", "101", &out));
  EXPECT_EQ(out.floor(), 1);
  EXPECT_FALSE(cache.Get("BER1", "102", &out));
  EXPECT_FALSE(cache.Get("BER2", "101", &out));
  RoomCacheStats stats = cache.Stats();
  EXPECT_EQ(stats.hits, 1);
  EXPECT_EQ(stats.misses, 2);
}

TEST(RoomCache, KeysDoNotCollideAcrossPropertyAndNumber) {
  RoomCache cache(10);
  cache.SetEnabled(true);
  cache.Put("AB", "C1", MakeRoom("C1", 1), cache.Generation());
  hotel::v1::Room out;
  EXPECT_FALSE(cache.Get("ABC", "1", &out));
  EXPECT_FALSE(cache.Get("A", "BC1", &out));
}

TEST(RoomCache, InvalidationDropsEverything) {
  RoomCache cache(10);
  cache.SetEnabled(true);
  cache.Put("BER1", "101", MakeRoom("101", 1), cache.Generation());
  cache.InvalidateAll();
  hotel::v1::Room out;
  EXPECT_FALSE(cache.Get("BER1", "101", &out));
  EXPECT_EQ(cache.Stats().invalidations, 1);
}

// A reader that fetched before a write committed must not store what it read after the
// write's invalidation: it would serve the old room until the next change.
TEST(RoomCache, FillThatRacedAnInvalidationIsDropped) {
  RoomCache cache(10);
  cache.SetEnabled(true);
  const uint64_t before_read = cache.Generation();
  cache.InvalidateAll();  // the write commits while the reader is still reading
  cache.Put("BER1", "101", MakeRoom("101", 1), before_read);
  hotel::v1::Room out;
  EXPECT_FALSE(cache.Get("BER1", "101", &out));
}

TEST(RoomCache, DisablingForgetsAndAFillFromBeforeIsDropped) {
  RoomCache cache(10);
  cache.SetEnabled(true);
  cache.Put("BER1", "101", MakeRoom("101", 1), cache.Generation());
  const uint64_t before_outage = cache.Generation();
  cache.SetEnabled(false);
  cache.SetEnabled(true);
  hotel::v1::Room out;
  EXPECT_FALSE(cache.Get("BER1", "101", &out));
  cache.Put("BER1", "102", MakeRoom("102", 1), before_outage);
  EXPECT_FALSE(cache.Get("BER1", "102", &out));
}

TEST(RoomCache, StopsGrowingAtItsLimit) {
  RoomCache cache(2);
  cache.SetEnabled(true);
  for (const char* number : {"101", "102", "103"}) cache.Put("BER1", number, MakeRoom(number, 1), cache.Generation());
  EXPECT_EQ(cache.Stats().entries, 2);
  hotel::v1::Room out;
  EXPECT_FALSE(cache.Get("BER1", "103", &out));
  // An entry already present may still be refreshed.
  cache.Put("BER1", "101", MakeRoom("101", 7), cache.Generation());
  ASSERT_TRUE(cache.Get("BER1", "101", &out));
  EXPECT_EQ(out.floor(), 7);
}

}  // namespace
}  // namespace hotel::rooms
