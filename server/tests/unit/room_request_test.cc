#include "rooms/room_request.h"

#include <gtest/gtest.h>

#include "common/errors.h"
#include "common/page_token.h"
#include "rooms/room_sql.h"

namespace hotel::rooms {
namespace {

using hotel::v1::ListRoomsRequest;
using hotel::v1::ListRoomTypesRequest;
using hotel::v1::RoomType;

std::vector<std::string> BadFields(const absl::Status& status) {
  std::vector<std::string> fields;
  for (const auto& v : FieldViolations(status)) fields.push_back(v.field);
  return fields;
}

TEST(ListRooms, NoFiltersSelectsEverythingInKeysetOrder) {
  auto query = ParseListRooms(ListRoomsRequest());
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->page_size, kDefaultPageSize);
  db::SqlQuery sql = BuildListRoomsSql(*query);
  // Only active rooms unless show_retired (1.1.0).
  EXPECT_NE(sql.text.find("WHERE r.retired_at IS NULL ORDER BY"), std::string::npos);
  EXPECT_NE(sql.text.find("ORDER BY r.property_id, r.floor, r.number LIMIT $1::int"), std::string::npos);
  EXPECT_EQ(sql.params, std::vector<std::string>{"51"});
  ListRoomsRequest all;
  all.set_show_retired(true);
  auto with_retired = ParseListRooms(all);
  ASSERT_TRUE(with_retired.ok());
  EXPECT_EQ(BuildListRoomsSql(*with_retired).text.find("retired_at IS NULL"), std::string::npos);
  EXPECT_NE(Fingerprint(*with_retired), Fingerprint(*query));
}

TEST(ListRooms, EveryFilterBecomesAParameter) {
  ListRoomsRequest request;
  request.set_property_id("BER1");
  request.set_floor(3);
  request.set_category(RoomType::DELUXE);
  request.add_amenities("wifi");
  request.add_amenities("balcony");
  request.add_amenities("wifi");
  request.set_available(true);
  request.set_page_size(10);
  auto query = ParseListRooms(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(query->amenities, (std::vector<std::string>{"balcony", "wifi"}));
  db::SqlQuery sql = BuildListRoomsSql(*query);
  EXPECT_NE(sql.text.find("r.property_id = $1 AND r.floor = $2::int AND t.category = $3 AND "
                          "(t.amenities || r.extra_amenities) @> $4::text[] AND r.out_of_order = $5::bool"),
            std::string::npos)
      << sql.text;
  EXPECT_EQ(sql.params, (std::vector<std::string>{"BER1", "3", "DELUXE", R"({"balcony","wifi"})", "false", "11"}));
}

TEST(ListRooms, BadInputNamesEachField) {
  ListRoomsRequest request;
  request.set_floor(-1);
  request.add_amenities("jacuzzi");
  auto query = ParseListRooms(request);
  EXPECT_EQ(BadFields(query.status()), (std::vector<std::string>{"floor", "amenities"}));

  ListRoomsRequest bad_category;
  bad_category.set_category(static_cast<RoomType::Category>(42));
  EXPECT_EQ(BadFields(ParseListRooms(bad_category).status()), std::vector<std::string>{"category"});

  ListRoomsRequest bad_property;
  bad_property.set_property_id("berlin");
  EXPECT_EQ(BadFields(ParseListRooms(bad_property).status()), std::vector<std::string>{"property_id"});
}

TEST(ListRooms, TheReadinessFiltersAreTheirRulesInSqlAndPartOfThePageToken) {
  ListRoomsRequest request;
  request.set_property_id("BER1");
  const auto unfiltered = ParseListRooms(request);
  ASSERT_TRUE(unfiltered.ok());
  request.set_discrepancy(ListRoomsRequest::SKIP);
  request.set_ready(false);
  auto query = ParseListRooms(request);
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(query->discrepancy, "SKIP");
  EXPECT_EQ(query->ready, false);
  EXPECT_NE(Fingerprint(*query), Fingerprint(*unfiltered));
  db::SqlQuery sql = BuildListRoomsSql(*query);
  EXPECT_NE(sql.text.find("THEN 'SLEEP'"), std::string::npos) << sql.text;
  EXPECT_NE(sql.text.find(") = $2 AND NOT (NOT r.out_of_order AND r.housekeeping_occupancy = 'VACANT'"),
            std::string::npos)
      << sql.text;
  EXPECT_EQ(sql.params, (std::vector<std::string>{"BER1", "SKIP", "51"}));
  request.set_discrepancy(ListRoomsRequest::ANY);
  request.set_ready(true);
  sql = BuildListRoomsSql(*ParseListRooms(request));
  EXPECT_NE(sql.text.find(") <> '' AND (NOT r.out_of_order"), std::string::npos) << sql.text;

  request.set_discrepancy(static_cast<ListRoomsRequest::DiscrepancyFilter>(9));
  EXPECT_EQ(BadFields(ParseListRooms(request).status()), std::vector<std::string>{"discrepancy"});
}

TEST(ListRooms, PageTokenContinuesAfterTheKeyWithTheSameFilters) {
  ListRoomsRequest request;
  request.set_floor(2);
  auto first = ParseListRooms(request);
  ASSERT_TRUE(first.ok());
  request.set_page_token(EncodePageToken({"rooms", Fingerprint(*first), {"BER1", "2", "205"}}));
  auto next = ParseListRooms(request);
  ASSERT_TRUE(next.ok()) << next.status();
  db::SqlQuery sql = BuildListRoomsSql(*next);
  EXPECT_NE(sql.text.find("(r.property_id, r.floor, r.number) > ($2, $3::int, $4)"), std::string::npos);
  EXPECT_EQ(sql.params, (std::vector<std::string>{"2", "BER1", "2", "205", "51"}));

  request.set_floor(3);  // same token, other filters
  EXPECT_EQ(BadFields(ParseListRooms(request).status()), std::vector<std::string>{"page_token"});
}

TEST(ListRooms, TokenWithNonNumericFloorIsRefused) {
  ListRoomsRequest request;
  auto query = ParseListRooms(request);
  request.set_page_token(EncodePageToken({"rooms", Fingerprint(*query), {"BER1", "x", "205"}}));
  EXPECT_EQ(BadFields(ParseListRooms(request).status()), std::vector<std::string>{"page_token"});
}

TEST(ListRoomTypes, SizeAndGuestFilters) {
  ListRoomTypesRequest request;
  request.set_min_size_sqm(20);
  request.set_max_size_sqm(40.5);
  request.set_guests(3);
  auto query = ParseListRoomTypes(request);
  ASSERT_TRUE(query.ok()) << query.status();
  db::SqlQuery sql = BuildListRoomTypesSql(*query);
  EXPECT_NE(sql.text.find("t.size_sqm >= $1::numeric AND t.size_sqm <= $2::numeric AND t.max_guests >= $3::int"),
            std::string::npos)
      << sql.text;
  EXPECT_EQ(sql.params, (std::vector<std::string>{"20", "40.5", "3", "51"}));
}

TEST(ListRoomTypes, RefusesNegativeAndInvertedRanges) {
  ListRoomTypesRequest negative;
  negative.set_min_size_sqm(-5);
  negative.set_guests(0);
  EXPECT_EQ(BadFields(ParseListRoomTypes(negative).status()), (std::vector<std::string>{"min_size_sqm", "guests"}));

  ListRoomTypesRequest inverted;
  inverted.set_min_size_sqm(50);
  inverted.set_max_size_sqm(20);
  EXPECT_EQ(BadFields(ParseListRoomTypes(inverted).status()), std::vector<std::string>{"min_size_sqm"});
}

TEST(Categories, FilterAndParse) {
  EXPECT_FALSE(CategoryFilter(RoomType::CATEGORY_UNSPECIFIED)->has_value());
  EXPECT_EQ(**CategoryFilter(RoomType::SUITE), "SUITE");
  EXPECT_FALSE(CategoryFilter(99).ok());
  EXPECT_EQ(ParseCategory("FAMILY"), RoomType::FAMILY);
  EXPECT_EQ(ParseCategory("nonsense"), RoomType::CATEGORY_UNSPECIFIED);
}

}  // namespace
}  // namespace hotel::rooms
