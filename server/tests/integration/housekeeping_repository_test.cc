// Housekeeping against a real PostgreSQL: one-room and bulk writes (all or nothing, the etag of a
// one-room write only), a retried request_id answered without a second write, the overview's
// counts by floor, room type and cell, and a room's history in pages; 1.5.0: the policy (defaults,
// masked updates, the feed), check-out and observation order, the return condition that only
// lowers, and the occupancy check of holds.
#include "housekeeping/housekeeping_repository.h"

#include <gtest/gtest.h>

#include <atomic>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/errors.h"
#include "test_database.h"

namespace hotel {
namespace {

using hotel::v1::HousekeepingCounts;
using hotel::v1::HousekeepingPolicy;
using hotel::v1::RoomHousekeeping;
using housekeeping::HousekeepingRepository;

// A property of its own per test: rooms 101 and 102 (type A, floor 1) and 201 (type B, floor 2),
// all DIRTY and of UNKNOWN occupancy, as migration 0020 makes a room.
std::string NewProperty() {
  static std::atomic<int> next{0};
  const std::string id = absl::StrCat("H", absl::ToUnixMicros(absl::Now()) % 100000000, next++ % 10);
  testing::TestDatabase::Get().Exec(absl::StrCat(
      "WITH p AS (INSERT INTO properties (id, name, time_zone, city, country_code) VALUES ('", id,
      "', 'Housekeeping', 'Europe/Berlin', 'Berlin', 'DE') RETURNING id), "
      "t AS (INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, bed_type) "
      "SELECT p.id || '-' || c, p.id, c, c, 'STANDARD', 20, 2, 'DOUBLE' FROM p, unnest(ARRAY['A', 'B']) c "
      "RETURNING id) "
      "INSERT INTO rooms (property_id, number, floor, room_type_id) "
      "SELECT p.id, r.number, r.floor, p.id || '-' || r.code FROM p, (VALUES ('101', 1, 'A'), ('102', 1, 'A'), "
      "('201', 2, 'B')) AS r (number, floor, code) WHERE (SELECT count(*) FROM t) = 2"));
  return id;
}

v1::SetHousekeepingRequest Bulk(const std::string& property, std::vector<std::string> rooms,
                                RoomHousekeeping::Condition condition) {
  v1::SetHousekeepingRequest request;
  request.set_property_id(property);
  for (auto& number : rooms) request.add_room_numbers(std::move(number));
  request.set_condition(condition);
  request.set_updated_by("housekeeping-test");
  return request;
}

int CellRooms(const HousekeepingCounts& counts, RoomHousekeeping::Condition condition,
              RoomHousekeeping::Occupancy occupancy) {
  for (const auto& cell : counts.cells()) {
    if (cell.condition() == condition && cell.occupancy() == occupancy) return cell.rooms();
  }
  return -1;
}

class HousekeepingRepositoryTest : public ::testing::Test {
 protected:
  HousekeepingRepositoryTest() : repository_(testing::TestDatabase::Get().pool()) {}

  absl::Status Set(const v1::SetHousekeepingRequest& request,
                   google::protobuf::RepeatedPtrField<RoomHousekeeping>* out) {
    auto write = housekeeping::ValidateSetHousekeeping(request);
    if (!write.ok()) return write.status();
    return repository_.Write(*write, out);
  }

  int HistoryRows(const std::string& property) {
    return std::stoi(testing::TestDatabase::Get().Scalar(
        absl::StrCat("SELECT count(*) FROM room_housekeeping_history WHERE property_id = '", property, "'")));
  }

  HousekeepingRepository repository_;
};

TEST_F(HousekeepingRepositoryTest, AOneRoomWriteAndABulkWriteAnswerTheirHousekeepingEtags) {
  const std::string property = NewProperty();
  v1::UpdateRoomHousekeepingRequest one;
  one.set_property_id(property);
  one.set_room_number("101");
  one.mutable_housekeeping()->set_condition(RoomHousekeeping::CLEAN);
  one.mutable_housekeeping()->set_updated_by("housekeeping-test");
  auto write = housekeeping::ValidateUpdateRoomHousekeeping(one, "");
  ASSERT_TRUE(write.ok()) << write.status();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  ASSERT_TRUE(repository_.Write(*write, &out).ok());
  ASSERT_EQ(out.size(), 1);
  EXPECT_EQ(out[0].condition(), RoomHousekeeping::CLEAN);
  EXPECT_FALSE(out[0].etag().empty());

  ASSERT_TRUE(Set(Bulk(property, {"201", "102"}, RoomHousekeeping::CLEAN), &out).ok());
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(out[0].room_number(), "201");  // in the write's order
  EXPECT_EQ(out[1].room_number(), "102");
  EXPECT_FALSE(out[0].etag().empty());  // 1.5.0: its own etag, read with the row
  EXPECT_NE(out[0].etag(), out[1].etag());
}

TEST_F(HousekeepingRepositoryTest, ABulkWriteIsAllOrNothingAndNamesTheRoomThatRefused) {
  const std::string property = NewProperty();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  ASSERT_TRUE(Set(Bulk(property, {"101"}, RoomHousekeeping::CLEAN), &out).ok());
  const int history = HistoryRows(property);

  // 101 is CLEAN and may be inspected; 102 is DIRTY and may not.
  const absl::Status refused = Set(Bulk(property, {"101", "102"}, RoomHousekeeping::INSPECTED), &out);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_TRUE(absl::StartsWith(refused.message(), "room_numbers[1]: ")) << refused;
  EXPECT_EQ(HistoryRows(property), history);

  const absl::Status missing = Set(Bulk(property, {"101", "999"}, RoomHousekeeping::DIRTY), &out);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound) << missing;
  EXPECT_TRUE(absl::StartsWith(missing.message(), "room_numbers[1]: ")) << missing;
  EXPECT_EQ(HistoryRows(property), history);
}

TEST_F(HousekeepingRepositoryTest, ARetriedRequestIdAnswersWithoutWritingAgain) {
  const std::string property = NewProperty();
  auto request = Bulk(property, {"101", "201"}, RoomHousekeeping::CLEAN);
  request.set_request_id(absl::StrCat("hk-retry-", property));
  google::protobuf::RepeatedPtrField<RoomHousekeeping> first, again;
  ASSERT_TRUE(Set(request, &first).ok());
  const int history = HistoryRows(property);
  ASSERT_TRUE(Set(request, &again).ok());
  ASSERT_EQ(again.size(), 2);
  EXPECT_EQ(again[1].condition(), RoomHousekeeping::CLEAN);
  EXPECT_EQ(again[1].update_time().seconds(), first[1].update_time().seconds());
  EXPECT_EQ(HistoryRows(property), history);

  request.set_condition(RoomHousekeeping::DIRTY);  // the same id for another request
  const absl::Status reused = Set(request, &again);
  EXPECT_EQ(reused.code(), absl::StatusCode::kFailedPrecondition) << reused;
  EXPECT_TRUE(absl::StrContains(reused.message(), "request_id")) << reused;
}

TEST_F(HousekeepingRepositoryTest, TheOverviewCountsEveryCellByFloorAndRoomType) {
  const std::string property = NewProperty();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  ASSERT_TRUE(Set(Bulk(property, {"101"}, RoomHousekeeping::CLEAN), &out).ok());
  v1::HousekeepingOverview overview;
  ASSERT_TRUE(repository_.Overview(property, &overview).ok());
  EXPECT_EQ(overview.total().rooms(), 3);
  EXPECT_EQ(overview.total().cells_size(), 9);  // every condition with every occupancy
  EXPECT_EQ(CellRooms(overview.total(), RoomHousekeeping::CLEAN, RoomHousekeeping::UNKNOWN), 1);
  EXPECT_EQ(CellRooms(overview.total(), RoomHousekeeping::DIRTY, RoomHousekeeping::UNKNOWN), 2);
  EXPECT_EQ(CellRooms(overview.total(), RoomHousekeeping::INSPECTED, RoomHousekeeping::VACANT), 0);
  ASSERT_EQ(overview.floors_size(), 2);
  EXPECT_EQ(overview.floors(0).floor(), 1);
  EXPECT_EQ(CellRooms(overview.floors(0).counts(), RoomHousekeeping::DIRTY, RoomHousekeeping::UNKNOWN), 1);
  EXPECT_EQ(overview.floors(1).counts().rooms(), 1);
  ASSERT_EQ(overview.room_types_size(), 2);
  EXPECT_EQ(overview.room_types(0).room_type_id(), property + "-A");
  EXPECT_EQ(CellRooms(overview.room_types(0).counts(), RoomHousekeeping::CLEAN, RoomHousekeeping::UNKNOWN), 1);

  EXPECT_EQ(repository_.Overview(property + "X", &overview).code(), absl::StatusCode::kNotFound);
}

TEST_F(HousekeepingRepositoryTest, ARoomsHistoryComesNewestFirstInPages) {
  const std::string property = NewProperty();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  for (auto condition : {RoomHousekeeping::CLEAN, RoomHousekeeping::INSPECTED, RoomHousekeeping::DIRTY}) {
    ASSERT_TRUE(Set(Bulk(property, {"102"}, condition), &out).ok());
  }
  v1::ListHousekeepingHistoryRequest request;
  request.set_property_id(property);
  request.set_room_number("102");
  request.set_page_size(2);
  auto query = housekeeping::ParseListHousekeepingHistory(request);
  ASSERT_TRUE(query.ok()) << query.status();
  v1::ListHousekeepingHistoryResponse page;
  ASSERT_TRUE(repository_.History(*query, &page).ok());
  ASSERT_EQ(page.data_size(), 2);
  EXPECT_EQ(page.data(0).condition(), RoomHousekeeping::DIRTY);
  EXPECT_EQ(page.data(0).previous_condition(), RoomHousekeeping::INSPECTED);
  EXPECT_EQ(page.data(1).condition(), RoomHousekeeping::INSPECTED);
  ASSERT_FALSE(page.next_page_token().empty());

  request.set_page_token(page.next_page_token());
  query = housekeeping::ParseListHousekeepingHistory(request);
  ASSERT_TRUE(query.ok()) << query.status();
  ASSERT_TRUE(repository_.History(*query, &page).ok());
  ASSERT_EQ(page.data_size(), 1);
  EXPECT_EQ(page.data(0).condition(), RoomHousekeeping::CLEAN);
  EXPECT_EQ(page.data(0).previous_condition(), RoomHousekeeping::DIRTY);
  EXPECT_TRUE(page.next_page_token().empty());

  request.set_room_number("999");
  request.clear_page_token();
  query = housekeeping::ParseListHousekeepingHistory(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(repository_.History(*query, &page).code(), absl::StatusCode::kNotFound);
}

// The policy's change entries of a property, oldest first: "kind version".
std::vector<std::string> PolicyChanges(const std::string& property) {
  const std::string staged = testing::TestDatabase::Get().Scalar(
      absl::StrCat("SELECT string_agg(kind || ' ' || version, ',' ORDER BY staging_id) FROM change_staging "
                   "WHERE resource_type = 'HOUSEKEEPING_POLICY' AND resource_id = '",
                   property, "'"));
  const std::string logged = testing::TestDatabase::Get().Scalar(
      absl::StrCat("SELECT string_agg(kind || ' ' || version, ',' ORDER BY seq) FROM change_log "
                   "WHERE resource_type = 'HOUSEKEEPING_POLICY' AND resource_id = '",
                   property, "'"));
  std::vector<std::string> out;
  for (const std::string& list : {logged, staged}) {
    if (list.empty()) continue;
    for (absl::string_view entry : absl::StrSplit(list, ',')) out.emplace_back(entry);
  }
  return out;
}

TEST_F(HousekeepingRepositoryTest, APolicyIsTheDefaultsUntilChangedAndEachChangeIsOneFeedEntry) {
  const std::string property = NewProperty();
  HousekeepingPolicy policy;
  ASSERT_TRUE(repository_.GetPolicy(property, &policy).ok());
  EXPECT_EQ(policy.checkout_condition(), HousekeepingPolicy::DIRTY);
  EXPECT_TRUE(policy.inspection_required());
  EXPECT_EQ(policy.etag(), housekeeping::PolicyEtag(property, 0));
  EXPECT_TRUE(PolicyChanges(property).empty());

  HousekeepingPolicy patch;
  patch.set_checkout_condition(HousekeepingPolicy::KEEP);
  patch.set_etag(policy.etag());
  patch.set_updated_by("Ana");
  HousekeepingPolicy updated;
  ASSERT_TRUE(repository_.UpdatePolicy(property, patch, {"checkout_condition"}, "", &updated).ok());
  EXPECT_EQ(updated.checkout_condition(), HousekeepingPolicy::KEEP);
  EXPECT_EQ(updated.updated_by(), "Ana");
  EXPECT_EQ(updated.etag(), housekeeping::PolicyEtag(property, 1));
  // The stored defaults of the other columns are the API's.
  HousekeepingPolicy expected = housekeeping::DefaultPolicy(property);
  expected.set_checkout_condition(HousekeepingPolicy::KEEP);
  expected.set_updated_by(updated.updated_by());
  *expected.mutable_update_time() = updated.update_time();
  expected.set_etag(updated.etag());
  EXPECT_EQ(updated.SerializeAsString(), expected.SerializeAsString());

  // The stale etag is refused; the same values again change nothing.
  EXPECT_EQ(ErrorReason(repository_.UpdatePolicy(property, patch, {"checkout_condition"}, "", &updated)),
            "ETAG_MISMATCH");
  patch.clear_etag();
  ASSERT_TRUE(repository_.UpdatePolicy(property, patch, {"checkout_condition"}, "", &updated).ok());
  patch.set_vacant_dirty_after_days(2);
  ASSERT_TRUE(repository_.UpdatePolicy(property, patch, {"vacant_dirty_after_days"}, "", &updated).ok());
  EXPECT_EQ(updated.etag(), housekeeping::PolicyEtag(property, 2));
  EXPECT_EQ(PolicyChanges(property), (std::vector<std::string>{"CREATED 1", "UPDATED 2"}));
  EXPECT_EQ(ErrorReason(repository_.GetPolicy("NOPE9", &policy)), "PROPERTY_NOT_FOUND");
  EXPECT_EQ(ErrorReason(repository_.UpdatePolicy("NOPE9", patch, {"vacant_dirty_after_days"}, "", &updated)),
            "PROPERTY_NOT_FOUND");
}

v1::SetHousekeepingRequest Occupancy(const std::string& property, std::vector<std::string> rooms,
                                     RoomHousekeeping::Occupancy occupancy, int64_t observed_seconds) {
  v1::SetHousekeepingRequest request = Bulk(property, std::move(rooms), RoomHousekeeping::CONDITION_UNSPECIFIED);
  request.set_occupancy(occupancy);
  request.set_occupancy_source("pms");
  request.mutable_occupancy_observe_time()->set_seconds(observed_seconds);
  return request;
}

TEST_F(HousekeepingRepositoryTest, ACheckOutDirtiesAndAnOlderObservationChangesNothing) {
  const std::string property = NewProperty();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  const int64_t t = absl::ToUnixSeconds(absl::Now()) - 3600;
  ASSERT_TRUE(Set(Bulk(property, {"101", "102"}, RoomHousekeeping::CLEAN), &out).ok());
  ASSERT_TRUE(Set(Bulk(property, {"101", "102"}, RoomHousekeeping::INSPECTED), &out).ok());
  ASSERT_TRUE(Set(Occupancy(property, {"101", "102"}, RoomHousekeeping::OCCUPIED, t), &out).ok());
  EXPECT_TRUE(out[0].occupancy_applied() && out[1].occupancy_applied());
  const int before = HistoryRows(property);

  // Room 101's check-out observed earlier than its arrival is not applied; 102's is, and dirties it.
  auto checkout = Occupancy(property, {"101", "102"}, RoomHousekeeping::VACANT, t);
  ASSERT_TRUE(Set(Occupancy(property, {"101"}, RoomHousekeeping::OCCUPIED, t + 60), &out).ok());
  ASSERT_TRUE(Set(checkout, &out).ok());
  ASSERT_EQ(out.size(), 2);
  EXPECT_FALSE(out[0].occupancy_applied());
  EXPECT_EQ(out[0].occupancy(), RoomHousekeeping::OCCUPIED);
  EXPECT_EQ(out[0].condition(), RoomHousekeeping::INSPECTED);
  EXPECT_EQ(out[0].occupancy_observe_time().seconds(), t + 60);
  EXPECT_TRUE(out[1].occupancy_applied()) << "an equal observation applies";
  EXPECT_EQ(out[1].occupancy(), RoomHousekeeping::VACANT);
  EXPECT_EQ(out[1].condition(), RoomHousekeeping::DIRTY);
  EXPECT_EQ(out[1].reason(), housekeeping::kCheckoutReason);
  // One entry for 101's arrival, one for 102's check-out; none for 101's stale one.
  EXPECT_EQ(HistoryRows(property), before + 2);
}

TEST_F(HousekeepingRepositoryTest, BackInOrderARoomTakesTheStricterOfItsConditionAndTheReturnCondition) {
  const std::string property = NewProperty();
  auto& db = testing::TestDatabase::Get();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  ASSERT_TRUE(Set(Bulk(property, {"102"}, RoomHousekeeping::CLEAN), &out).ok());
  // 101 DIRTY and 102 CLEAN come back from an issue that names INSPECTED: neither is raised.
  db.Exec(
      absl::StrCat("UPDATE rooms SET out_of_order = true, out_of_order_reason = 'Leak', out_of_order_since = now() "
                   "WHERE property_id = '",
                   property, "'"));
  db.Exec(
      absl::StrCat("UPDATE rooms SET out_of_order = false, out_of_order_reason = '', out_of_order_since = NULL, "
                   "housekeeping_return_condition = 'INSPECTED' WHERE property_id = '",
                   property, "' AND number IN ('101', '102')"));
  EXPECT_EQ(db.Scalar(absl::StrCat("SELECT string_agg(number || ' ' || housekeeping_condition, ',' ORDER BY number) "
                                   "FROM rooms WHERE property_id = '",
                                   property, "' AND number IN ('101', '102')")),
            "101 DIRTY,102 CLEAN");
  // A return condition stricter than the room's lowers it.
  ASSERT_TRUE(Set(Bulk(property, {"102"}, RoomHousekeeping::INSPECTED), &out).ok());
  db.Exec(
      absl::StrCat("UPDATE rooms SET out_of_order = true, out_of_order_reason = 'Leak', out_of_order_since = now() "
                   "WHERE property_id = '",
                   property, "' AND number = '102'"));
  db.Exec(
      absl::StrCat("UPDATE rooms SET out_of_order = false, out_of_order_reason = '', out_of_order_since = NULL, "
                   "housekeeping_return_condition = 'CLEAN' WHERE property_id = '",
                   property, "' AND number = '102'"));
  EXPECT_EQ(db.Scalar(absl::StrCat("SELECT housekeeping_condition FROM rooms WHERE property_id = '", property,
                                   "' AND number = '102'")),
            "CLEAN");
}

TEST_F(HousekeepingRepositoryTest, AHoldOfAnOccupiedRoomIsRefusedUnlessAllowedOrNotToday) {
  const std::string property = NewProperty();
  google::protobuf::RepeatedPtrField<RoomHousekeeping> out;
  ASSERT_TRUE(
      Set(Occupancy(property, {"101"}, RoomHousekeeping::OCCUPIED, absl::ToUnixSeconds(absl::Now())), &out).ok());
  const std::string today =
      testing::TestDatabase::Get().Scalar("SELECT to_char((now() AT TIME ZONE 'Europe/Berlin')::date, 'YYYY-MM-DD')");
  const std::string tomorrow = testing::TestDatabase::Get().Scalar(
      "SELECT to_char((now() AT TIME ZONE 'Europe/Berlin')::date + 1, 'YYYY-MM-DD')");
  auto check = [&](const std::string& room, const std::string& start, const std::string& end, bool allow) {
    return testing::TestDatabase::Get().pool().Run(db::Access::kWrite, [&](db::Session& session) {
      pqxx::work txn(session.connection());
      return housekeeping::CheckRoomNotOccupied(session, txn, {property, room, start, end, allow});
    });
  };
  const absl::Status refused = check("101", "", "", false);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorReason(refused), "ROOM_OCCUPIED");
  EXPECT_TRUE(absl::StrContains(refused.message(), "room 101")) << refused;
  EXPECT_EQ(ErrorReason(check("101", today, tomorrow, false)), "ROOM_OCCUPIED");
  EXPECT_TRUE(check("101", "", "", true).ok());
  EXPECT_TRUE(check("101", tomorrow, "", false).ok()) << "from tomorrow: the guest may be gone by then";
  EXPECT_TRUE(check("101", "2020-01-01", today, false).ok()) << "ended before today";
  EXPECT_TRUE(check("102", "", "", false).ok()) << "UNKNOWN occupancy passes";
}

}  // namespace
}  // namespace hotel
