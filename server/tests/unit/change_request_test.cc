// The change feed's pure parts: cursors, request validation, filters and retention checks.
#include "changes/change_request.h"

#include <gtest/gtest.h>

#include "api/change_cursor_interceptor.h"
#include "changes/change_sql.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "common/page_token.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"

namespace hotel::changes {
namespace {

using hotel::v1::Change;

TEST(ChangeCursor, RoundTripsPositions) {
  for (int64_t position : {int64_t{0}, int64_t{1}, int64_t{255}, int64_t{1} << 40, INT64_MAX}) {
    const std::string cursor = EncodeChangeCursor(position);
    EXPECT_EQ(cursor.size(), 28u);
    EXPECT_EQ(cursor.find_first_of("+/="), std::string::npos) << cursor;  // URL-safe, unpadded
    auto decoded = DecodeChangeCursor("after", cursor);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, position);
  }
  EXPECT_LT(EncodeChangeCursor(1), EncodeChangeCursor(2));  // no meaning promised, but stable
}

TEST(ChangeCursor, MalformedOnesNameTheField) {
  const std::string version_two = "AgAAAAAAAAAB";  // a cursor of a future format
  for (const std::string& bad : {std::string("nonsense"), std::string("AQAAAAAAAAAB=="), std::string("AQAAAAAAAAA!"),
                                 version_two, std::string("gAAAAAAAAAAA"), std::string(12, '_')}) {
    auto decoded = DecodeChangeCursor("after", bad);
    ASSERT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(ErrorReason(decoded.status()), "INVALID_CURSOR");
    EXPECT_EQ(ViolatedFields(decoded.status()), std::vector<std::string>{"after"});
  }
}

TEST(ParseListChanges, DefaultsAndFilters) {
  hotel::v1::ListChangesRequest request;
  auto query = ParseListChanges(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_FALSE(query->after.has_value());
  EXPECT_EQ(query->page_size, kDefaultPageSize);
  EXPECT_EQ(query->view, hotel::v1::CHANGE_VIEW_BASIC);

  request.set_after(EncodeChangeCursor(42));
  request.add_resource_type(Change::ROOM);
  request.add_resource_type(Change::ISSUE);
  request.add_resource_type(Change::ROOM);
  request.set_property_id("BER1");
  request.set_page_size(10000);
  request.set_view(hotel::v1::CHANGE_VIEW_FULL);
  query = ParseListChanges(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(query->after, 42);
  EXPECT_EQ(query->filter.resource_types, (std::vector<std::string>{"ROOM", "ISSUE"}));
  EXPECT_EQ(query->filter.property_id, "BER1");
  EXPECT_EQ(query->page_size, kMaxPageSize);
  EXPECT_EQ(query->view, hotel::v1::CHANGE_VIEW_FULL);
}

TEST(ParseListChanges, EveryBadFieldIsNamed) {
  hotel::v1::ListChangesRequest request;
  request.set_after("nonsense");
  auto query = ParseListChanges(request);
  EXPECT_EQ(ErrorReason(query.status()), "INVALID_CURSOR");

  request.add_resource_type(static_cast<Change::ResourceType>(99));
  request.set_property_id("bad id");
  request.set_page_size(-1);
  request.set_view(static_cast<hotel::v1::ChangeView>(7));
  query = ParseListChanges(request);
  ASSERT_EQ(query.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorReason(query.status()), "INVALID_ARGUMENT");
  EXPECT_EQ(ViolatedFields(query.status()),
            (std::vector<std::string>{"after", "resource_type", "property_id", "view", "page_size"}));
}

TEST(ParseWatchChanges, EmptyCursorMeansFromNow) {
  hotel::v1::WatchChangesRequest request;
  request.set_property_id("LIS1");
  auto query = ParseWatchChanges(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_FALSE(query->after.has_value());
  request.set_after("AQAAAAAAAAAA_");
  EXPECT_EQ(ParseWatchChanges(request).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ChangeFilter, MatchesTypeAndProperty) {
  ChangeFilter all;
  EXPECT_TRUE(all.Matches("ROOM", "BER1"));
  ChangeFilter rooms{{"ROOM", "ROOM_TYPE"}, "BER1"};
  EXPECT_TRUE(rooms.Matches("ROOM", "BER1"));
  EXPECT_TRUE(rooms.Matches("ROOM_TYPE", "BER1"));
  EXPECT_FALSE(rooms.Matches("ISSUE", "BER1"));
  EXPECT_FALSE(rooms.Matches("ROOM", "LIS1"));
}

TEST(ChangeFilter, RoomChangesTakesARoomsDataOrItsHousekeepingAndLeavesOtherTypesAlone) {
  const RoomChangeParts housekeeping = RoomChangePartsOf("UPDATED", {"housekeeping_condition", "housekeeping_reason"});
  const RoomChangeParts data = RoomChangePartsOf("UPDATED", {"floor"});
  const RoomChangeParts both = RoomChangePartsOf("UPDATED", {"housekeeping_condition", "out_of_order"});
  const RoomChangeParts created = RoomChangePartsOf("CREATED", {});
  EXPECT_TRUE(housekeeping.housekeeping && !housekeeping.data);
  EXPECT_TRUE(data.data && !data.housekeeping);
  EXPECT_TRUE(both.data && both.housekeeping);
  EXPECT_TRUE(created.data && !created.housekeeping);

  ChangeFilter all;
  EXPECT_TRUE(all.Matches("ROOM", "BER1", housekeeping) && all.Matches("ROOM", "BER1", data));
  ChangeFilter room_data{{}, "", "ROOM_DATA"};
  EXPECT_FALSE(room_data.Matches("ROOM", "BER1", housekeeping));
  EXPECT_TRUE(room_data.Matches("ROOM", "BER1", data));
  EXPECT_TRUE(room_data.Matches("ROOM", "BER1", both));
  EXPECT_TRUE(room_data.Matches("ROOM", "BER1", created));
  EXPECT_TRUE(room_data.Matches("ISSUE", "BER1", housekeeping)) << "other types are not filtered";
  ChangeFilter housekeeping_only{{"ROOM"}, "", "HOUSEKEEPING"};
  EXPECT_TRUE(housekeeping_only.Matches("ROOM", "BER1", housekeeping));
  EXPECT_TRUE(housekeeping_only.Matches("ROOM", "BER1", both));
  EXPECT_FALSE(housekeeping_only.Matches("ROOM", "BER1", data));
  EXPECT_FALSE(housekeeping_only.Matches("ROOM", "BER1", created));
  EXPECT_FALSE(housekeeping_only.Matches("ISSUE", "BER1", housekeeping));
}

TEST(ChangeFilter, RoomChangesIsReadFromARequestAndAnUnknownValueNamesTheField) {
  hotel::v1::ListChangesRequest request;
  request.set_room_changes(hotel::v1::Change::HOUSEKEEPING);
  auto query = ParseListChanges(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(query->filter.room_changes, "HOUSEKEEPING");
  request.set_room_changes(static_cast<hotel::v1::Change::RoomChanges>(9));
  const absl::Status bad = ParseListChanges(request).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("room_changes"), absl::string_view::npos) << bad;
  EXPECT_EQ(ParseListChanges(hotel::v1::ListChangesRequest()).value().filter.room_changes, "");
}

TEST(CheckCursorKept, OlderThanThePrunedPositionIsExpired) {
  EXPECT_TRUE(CheckCursorKept(10, 10).ok());
  EXPECT_TRUE(CheckCursorKept(11, 10).ok());
  const absl::Status expired = CheckCursorKept(9, 10);
  EXPECT_EQ(expired.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorReason(expired), "CURSOR_EXPIRED");
  EXPECT_NE(expired.message().find("list"), absl::string_view::npos);
}

TEST(CheckCursorKept, ACursorTheLogNeverHandedOutIsExpiredToo) {
  // A consumer's cursor from before the database was restored to an earlier point.
  const absl::Status unknown = CheckCursorKept(11, 10, /*known=*/false);
  EXPECT_EQ(unknown.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorReason(unknown), "CURSOR_EXPIRED");
  EXPECT_NE(unknown.message().find("restored"), absl::string_view::npos);
  EXPECT_TRUE(CheckCursorKept(11, 10, /*known=*/true).ok());
}

TEST(ChangeProto, IssueEtagIsTheIssuesOwn) {
  ChangeRecord record;
  record.seq = 7;
  record.resource_type = "ISSUE";
  record.resource_id = "0f528870-2953-49bb-b56f-416991e37aa8";
  record.kind = "UPDATED";
  record.version = "3";
  record.resource_json = R"({"title": "Leak", "version": 3})";
  Change change;
  ASSERT_TRUE(ToChangeProto(record, hotel::v1::CHANGE_VIEW_FULL, &change).ok());
  // issues/issue_sql.cc IssueEtag: FilterFingerprint("issue|<id>|<version>").
  EXPECT_EQ(change.etag(), FilterFingerprint("issue|0f528870-2953-49bb-b56f-416991e37aa8|3"));
  EXPECT_EQ(change.cursor(), EncodeChangeCursor(7));
  EXPECT_EQ(change.resource_type(), Change::ISSUE);
  EXPECT_EQ(change.kind(), Change::UPDATED);
  EXPECT_EQ(change.resource().fields().at("title").string_value(), "Leak");
  Change thin;
  ASSERT_TRUE(ToChangeProto(record, hotel::v1::CHANGE_VIEW_BASIC, &thin).ok());
  EXPECT_FALSE(thin.has_resource());
  record.resource_type = "ROOM";
  EXPECT_EQ(ChangeEtag(record), "3");
}

TEST(ParseWatchChanges, ReadsEveryView) {
  hotel::v1::WatchChangesRequest request;
  for (auto view : {hotel::v1::CHANGE_VIEW_BASIC, hotel::v1::CHANGE_VIEW_FULL, hotel::v1::CHANGE_VIEW_DIFF}) {
    request.set_view(view);
    auto query = ParseWatchChanges(request);
    ASSERT_TRUE(query.ok()) << query.status();
    EXPECT_EQ(query->view, view);
  }
  request.set_view(hotel::v1::CHANGE_VIEW_UNSPECIFIED);
  EXPECT_EQ(ParseWatchChanges(request)->view, hotel::v1::CHANGE_VIEW_BASIC);
}

ChangeRecord RoomRecord(const std::string& kind) {
  ChangeRecord record;
  record.seq = 9;
  record.resource_type = "ROOM";
  record.resource_id = "101";
  record.property_id = "BER1";
  record.kind = kind;
  record.version = "4";
  record.resource_json = R"({"number": "101", "floor": 2, "out_of_order": false, "notes": null, "version": 4})";
  return record;
}

// Whether value is the JSON object json (maps have no order).
bool Is(const google::protobuf::Struct& value, const std::string& json) {
  google::protobuf::Struct expected;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &expected).ok()) << json;
  return google::protobuf::util::MessageDifferencer::Equals(value, expected);
}

TEST(ChangeProto, DiffOfAnUpdateIsTheChangedFieldsBeforeAndAfter) {
  ChangeRecord record = RoomRecord("UPDATED");
  record.changed_fields = {"floor", "notes"};
  record.previous_json = R"({"floor": 1, "notes": "by the lift"})";
  Change change;
  ASSERT_TRUE(ToChangeProto(record, hotel::v1::CHANGE_VIEW_DIFF, &change).ok());
  EXPECT_TRUE(Is(change.resource(), R"({"floor":2,"notes":null})"));
  EXPECT_TRUE(Is(change.previous(), R"({"floor":1,"notes":"by the lift"})"));
  EXPECT_EQ(change.etag(), "4");
  EXPECT_EQ(change.changed_fields_size(), 2);
  // FULL is unchanged: the whole record, nothing before it.
  Change full;
  ASSERT_TRUE(ToChangeProto(record, hotel::v1::CHANGE_VIEW_FULL, &full).ok());
  EXPECT_EQ(full.resource().fields().size(), 5u);
  EXPECT_FALSE(full.has_previous());
  Change basic;
  ASSERT_TRUE(ToChangeProto(record, hotel::v1::CHANGE_VIEW_BASIC, &basic).ok());
  EXPECT_FALSE(basic.has_resource());
  EXPECT_FALSE(basic.has_previous());
}

TEST(ChangeProto, DiffOfAnUpdateLoggedWithoutPreviousValuesHasNone) {
  ChangeRecord record = RoomRecord("UPDATED");
  record.changed_fields = {"floor", "timeline"};  // a field the record does not store is in neither
  Change change;
  ASSERT_TRUE(ToChangeProto(record, hotel::v1::CHANGE_VIEW_DIFF, &change).ok());
  EXPECT_TRUE(Is(change.resource(), R"({"floor":2})"));
  EXPECT_FALSE(change.has_previous());
}

TEST(ChangeProto, DiffOfACreationIsTheRecordAndOfADeletionTheRecordBefore) {
  Change created;
  ASSERT_TRUE(ToChangeProto(RoomRecord("CREATED"), hotel::v1::CHANGE_VIEW_DIFF, &created).ok());
  EXPECT_EQ(created.resource().fields().size(), 5u);
  EXPECT_FALSE(created.has_previous());
  Change deleted;
  ASSERT_TRUE(ToChangeProto(RoomRecord("DELETED"), hotel::v1::CHANGE_VIEW_DIFF, &deleted).ok());
  EXPECT_FALSE(deleted.has_resource());
  EXPECT_EQ(deleted.previous().fields().at("floor").number_value(), 2);
  EXPECT_EQ(deleted.previous().fields().size(), 5u);
}

TEST(ChangeProto, TheHubsSerializationsAreEachViews) {
  ChangeRecord record = RoomRecord("UPDATED");
  record.changed_fields = {"floor"};
  record.previous_json = R"({"floor": 1})";
  WatchResponseViews views;
  ASSERT_TRUE(SerializeWatchResponses(record, &views).ok());
  for (auto view : {hotel::v1::CHANGE_VIEW_BASIC, hotel::v1::CHANGE_VIEW_FULL, hotel::v1::CHANGE_VIEW_DIFF}) {
    std::string one;
    ASSERT_TRUE(SerializeWatchResponse(record, view, &one).ok());
    hotel::v1::WatchChangesResponse expected, got;
    ASSERT_TRUE(expected.ParseFromString(one));
    ASSERT_TRUE(got.ParseFromString(views.of(view)));
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(expected, got)) << hotel::v1::ChangeView_Name(view);
  }
  hotel::v1::WatchChangesResponse diff;
  ASSERT_TRUE(diff.ParseFromString(views.diff));
  EXPECT_EQ(diff.cursor(), EncodeChangeCursor(9));
  EXPECT_TRUE(Is(diff.change().previous(), R"({"floor":1})"));
  // A record whose JSON cannot be read is an error, not a change shown without it.
  record.resource_json = "not json";
  EXPECT_FALSE(SerializeWatchResponses(record, &views).ok());
}

TEST(ChangeCursorInterceptor, FindsTheFieldOfListResponsesOnly) {
  EXPECT_EQ(api::ChangeCursorFieldNumber("/hotel.v1.RoomService/ListRooms"), 3);
  EXPECT_EQ(api::ChangeCursorFieldNumber("/hotel.v1.ImageService/ListRoomImages"), 2);
  EXPECT_EQ(api::ChangeCursorFieldNumber("/hotel.v1.RoomService/GetRoom"), 0);
  EXPECT_EQ(api::ChangeCursorFieldNumber("/hotel.v1.ChangeService/WatchChanges"), 0);
  EXPECT_EQ(api::ChangeCursorFieldNumber("/no.Such/Method"), 0);
  EXPECT_EQ(api::ChangeCursorFieldNumber("nonsense"), 0);
  EXPECT_EQ(api::ChangeCursorFieldNumber(nullptr), 0);
}

}  // namespace
}  // namespace hotel::changes
