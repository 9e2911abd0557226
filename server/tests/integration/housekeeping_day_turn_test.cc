// The housekeeping day turn (1.5.0) against a real PostgreSQL: the plan per room
// (housekeeping_day_turn_plan, a pure function of the room and the policy, case by case), a
// property's first pass recording its date without touching a room, and two runners applying the
// same date at once: each room changed once, one history entry by "system" and one ROOM change.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "housekeeping/day_turn.h"
#include "test_database.h"

namespace hotel {
namespace {

using housekeeping::HousekeepingDayTurn;

// A property of its own per test in a zone far from UTC (its date is not the database's), rooms
// 101 to 106 on floor 1, all DIRTY and of UNKNOWN occupancy, as migration 0020 makes a room.
std::string NewProperty() {
  static std::atomic<int> next{0};
  const std::string id = absl::StrCat("D", absl::ToUnixMicros(absl::Now()) % 100000000, next++ % 10);
  testing::TestDatabase::Get().Exec(absl::StrCat(
      "WITH p AS (INSERT INTO properties (id, name, time_zone, city, country_code) VALUES ('", id,
      "', 'Day turn', 'Pacific/Auckland', 'Auckland', 'NZ') RETURNING id), "
      "t AS (INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, bed_type) "
      "SELECT p.id || '-A', p.id, 'A', 'A', 'STANDARD', 20, 2, 'DOUBLE' FROM p RETURNING id) "
      "INSERT INTO rooms (property_id, number, floor, room_type_id) "
      "SELECT p.id, n::text, 1, (SELECT id FROM t) FROM p, generate_series(101, 106) n"));
  return id;
}

// Sets a room's housekeeping as a write long ago would have left it (written days ago).
void SetRoom(const std::string& property, const std::string& number, const std::string& condition,
             const std::string& occupancy, int written_days_ago) {
  testing::TestDatabase::Get().Exec(
      absl::StrCat("UPDATE rooms SET housekeeping_condition = '", condition, "', housekeeping_occupancy = '", occupancy,
                   "', housekeeping_updated_by = 'it-test', housekeeping_updated_at = now() - interval '",
                   written_days_ago, " days' WHERE property_id = '", property, "' AND number = '", number, "'"));
}

std::string Plan(const std::string& condition, const std::string& occupancy, bool in_order,
                 const std::string& untouched_days, const std::string& occupied_nightly, const std::string& downgrade,
                 int dirty_after_days) {
  return testing::TestDatabase::Get().Scalar(
      absl::StrCat("SELECT coalesce((SELECT condition || ' ' || reason FROM housekeeping_day_turn_plan('", condition,
                   "', '", occupancy, "', ", in_order ? "true" : "false", ", ", untouched_days, ", '", occupied_nightly,
                   "', '", downgrade, "', ", dirty_after_days, ")), 'unchanged')"));
}

std::string Rooms(const std::string& property) {
  return testing::TestDatabase::Get().Scalar(
      absl::StrCat("SELECT string_agg(number || ' ' || housekeeping_condition, ',' ORDER BY number) FROM rooms "
                   "WHERE property_id = '",
                   property, "'"));
}

std::string Count(const std::string& property, const std::string& from_where) {
  return testing::TestDatabase::Get().Scalar(
      absl::StrCat("SELECT count(*) FROM ", from_where, " AND property_id = '", property, "'"));
}

TEST(HousekeepingDayTurnPlan, EachRuleOfThePolicyRoomByRoom) {
  // Occupied rooms in order: the policy's occupied_nightly_condition.
  EXPECT_EQ(Plan("INSPECTED", "OCCUPIED", true, "NULL", "DIRTY", "NONE", 0),
            "DIRTY Day turn: occupied, DIRTY by the housekeeping policy");
  EXPECT_EQ(Plan("CLEAN", "OCCUPIED", true, "NULL", "KEEP", "INSPECTED_TO_CLEAN", 1), "unchanged");
  EXPECT_EQ(Plan("DIRTY", "OCCUPIED", true, "NULL", "DIRTY", "NONE", 0), "unchanged") << "already DIRTY";
  // Vacant rooms: the downgrade, only of INSPECTED ones.
  EXPECT_EQ(Plan("INSPECTED", "VACANT", true, "0", "DIRTY", "INSPECTED_TO_CLEAN", 0),
            "CLEAN Day turn: vacant, INSPECTED to CLEAN by the housekeeping policy");
  EXPECT_EQ(Plan("CLEAN", "VACANT", true, "0", "DIRTY", "INSPECTED_TO_CLEAN", 0), "unchanged");
  EXPECT_EQ(Plan("INSPECTED", "VACANT", true, "0", "DIRTY", "NONE", 0), "unchanged");
  // Vacant and untouched for the policy's days: DIRTY, before any downgrade; 0 days is off.
  EXPECT_EQ(Plan("INSPECTED", "VACANT", true, "3", "KEEP", "INSPECTED_TO_CLEAN", 3),
            "DIRTY Day turn: vacant and untouched for 3 days, DIRTY by the housekeeping policy");
  EXPECT_EQ(Plan("CLEAN", "VACANT", true, "1", "KEEP", "NONE", 1),
            "DIRTY Day turn: vacant and untouched for 1 day, DIRTY by the housekeeping policy");
  EXPECT_EQ(Plan("CLEAN", "VACANT", true, "2", "KEEP", "NONE", 3), "unchanged");
  EXPECT_EQ(Plan("CLEAN", "VACANT", true, "NULL", "KEEP", "NONE", 0), "unchanged");
  // Out of order, or of unknown occupancy: nothing.
  EXPECT_EQ(Plan("INSPECTED", "OCCUPIED", false, "NULL", "DIRTY", "NONE", 0), "unchanged");
  EXPECT_EQ(Plan("INSPECTED", "VACANT", false, "9", "DIRTY", "INSPECTED_TO_CLEAN", 1), "unchanged");
  EXPECT_EQ(Plan("INSPECTED", "UNKNOWN", true, "NULL", "DIRTY", "INSPECTED_TO_CLEAN", 1), "unchanged");
}

TEST(HousekeepingDayTurn, APropertysFirstPassRecordsItsDateAndChangesNoRoom) {
  const std::string property = NewProperty();
  SetRoom(property, "101", "CLEAN", "OCCUPIED", 0);
  HousekeepingDayTurn turn(testing::TestDatabase::Get().pool(), absl::Hours(1));
  ASSERT_TRUE(turn.ApplyOnce(absl::Now()).ok());
  EXPECT_EQ(Rooms(property), "101 CLEAN,102 DIRTY,103 DIRTY,104 DIRTY,105 DIRTY,106 DIRTY");
  EXPECT_EQ(Count(property, "housekeeping_day_turns WHERE true"), "1");
}

TEST(HousekeepingDayTurn, TwoRunnersOfOneDateChangeEachRoomOnce) {
  const std::string property = NewProperty();
  auto& db = testing::TestDatabase::Get();
  db.Exec(
      absl::StrCat("INSERT INTO housekeeping_policies (property_id, vacant_nightly_downgrade, "
                   "vacant_dirty_after_days) VALUES ('",
                   property, "', 'INSPECTED_TO_CLEAN', 2)"));
  HousekeepingDayTurn first(db.pool(), absl::Hours(1));
  HousekeepingDayTurn second(db.pool(), absl::Hours(1));
  const absl::Time now = absl::Now();
  ASSERT_TRUE(first.ApplyOnce(now).ok());
  SetRoom(property, "101", "CLEAN", "OCCUPIED", 0);      // a stay-over: DIRTY
  SetRoom(property, "102", "INSPECTED", "VACANT", 0);    // ready: CLEAN
  SetRoom(property, "103", "INSPECTED", "VACANT", 5);    // untouched for days: DIRTY
  SetRoom(property, "104", "CLEAN", "UNKNOWN", 5);       // no PMS said: unchanged
  SetRoom(property, "105", "INSPECTED", "OCCUPIED", 0);  // out of order below: unchanged
  db.Exec(
      absl::StrCat("UPDATE rooms SET out_of_order = true, out_of_order_reason = 'Leak', out_of_order_since = "
                   "now() WHERE property_id = '",
                   property, "' AND number = '105'"));
  const std::string history_before = Count(property, "room_housekeeping_history WHERE true");

  auto run_both = [&](absl::Time at) {
    absl::StatusOr<int64_t> a, b;
    std::thread t1([&] { a = first.ApplyOnce(at); });
    std::thread t2([&] { b = second.ApplyOnce(at); });
    t1.join();
    t2.join();
    ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
    ASSERT_TRUE(first.ApplyOnce(at).ok());
  };
  run_both(now + absl::Hours(24));
  EXPECT_EQ(Rooms(property), "101 DIRTY,102 CLEAN,103 DIRTY,104 CLEAN,105 INSPECTED,106 DIRTY");
  const std::string written = absl::StrCat("room_housekeeping_history WHERE id > 0 AND updated_by = 'system' AND ",
                                           "reason LIKE 'Day turn: %'");
  EXPECT_EQ(Count(property, written), "3");
  EXPECT_EQ(std::stoi(Count(property, "room_housekeeping_history WHERE true")), std::stoi(history_before) + 3);
  // One ROOM change per room changed (staged for the feed, or sequenced already).
  const std::string changes =
      "(SELECT resource_type, property_id, actor, changed_fields FROM change_log UNION ALL SELECT resource_type, "
      "property_id, actor, changed_fields FROM change_staging) c WHERE resource_type = 'ROOM' AND actor = 'system' "
      "AND 'housekeeping_condition' = ANY (changed_fields)";
  EXPECT_EQ(Count(property, changes), "3");

  // The next date: room 102, CLEAN since the turn and untouched by anyone since day 0, is 2 days
  // untouched (the turn's own write does not count).
  run_both(now + absl::Hours(48));
  EXPECT_EQ(Rooms(property), "101 DIRTY,102 DIRTY,103 DIRTY,104 CLEAN,105 INSPECTED,106 DIRTY");
  EXPECT_EQ(Count(property, written), "4");
  EXPECT_EQ(Count(property, changes), "4");
}

}  // namespace
}  // namespace hotel
