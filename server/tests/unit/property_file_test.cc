#include "rooms/admin/property_file.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "common/errors.h"

namespace hotel::rooms {
namespace {

constexpr char kFile[] = R"(property:
  id: MUC1
  name: Hotel Munich
  time_zone: Europe/Berlin
  city: Munich
  country_code: DE
room_types:
  - code: STD
    name: Standard
    category: STANDARD
    amenities: [wifi, desk]
    size_sqm: 21.5
    max_guests: 2
    bed_type: QUEEN
rooms:
  - {number: "101", floor: 1, room_type: STD}
  - {number: "102", floor: 1, room_type: STD, extra_amenities: [balcony]}
)";

PropertyFile Parse(const std::string& text) {
  auto file = ParsePropertyFile(text);
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *file : PropertyFile();
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(ParsePropertyFile, ReadsAndNormalizesEveryRecord) {
  PropertyFile file = Parse(kFile);
  EXPECT_EQ(file.property.id(), "MUC1");
  EXPECT_TRUE(file.property.enabled());
  EXPECT_FALSE(file.enabled_given);
  ASSERT_EQ(file.room_types.size(), 1u);
  EXPECT_EQ(file.room_types[0].id(), "MUC1-STD");
  EXPECT_EQ(file.room_types[0].amenities(0), "desk");
  ASSERT_EQ(file.rooms.size(), 2u);
  EXPECT_EQ(file.rooms[1].room_type_id(), "MUC1-STD");
  EXPECT_EQ(file.rooms[1].extra_amenities(0), "balcony");
}

TEST(ParsePropertyFile, NamesEveryBadRowByPosition) {
  std::string text = Replace(kFile, "{number: \"102\", floor: 1", "{number: \"102\", floor: -4");
  text = Replace(text, "size_sqm: 21.5", "size_sqm: big");
  text = Replace(text, "[wifi, desk]", "[wifi, jacuzzi]");
  text = Replace(text, "  - {number: \"101\", floor: 1, room_type: STD}",
                 "  - {number: \"101\", floor: 1, room_type: XXX, colour: red}");
  auto file = ParsePropertyFile(text);
  ASSERT_FALSE(file.ok());
  const auto fields = ViolatedFields(file.status());
  EXPECT_EQ(fields, (std::vector<std::string>{
                        "room_types[0] (line 8, code STD).size_sqm",
                        "room_types[0] (line 8, code STD).amenities",
                        "room_types[0] (line 8, code STD).size_sqm",
                        "rooms[0] (line 16, number 101).colour",
                        "rooms[1] (line 17, number 102).floor",
                        "rooms[0] (line 16, number 101).room_type",
                    }));
}

TEST(ParsePropertyFile, DuplicatesRetiredTypesAndSyntax) {
  std::string text = std::string(kFile) + "  - {number: \"101\", floor: 2, room_type: STD}\n";
  text = Replace(text, "bed_type: QUEEN", "bed_type: QUEEN\n    retired: true");
  auto file = ParsePropertyFile(text);
  ASSERT_FALSE(file.ok());
  const std::string message(file.status().message());
  EXPECT_TRUE(absl::StrContains(message, "repeats room 101")) << message;
  EXPECT_TRUE(absl::StrContains(message, "room type STD is retired")) << message;
  EXPECT_FALSE(ParsePropertyFile("property: [unclosed").ok());
  EXPECT_EQ(ViolatedFields(ParsePropertyFile("rooms: []").status()), std::vector<std::string>{"property"});
}

TEST(FormatPropertyFile, RoundTripsThroughTheParser) {
  PropertyFile file = Parse(kFile);
  PropertyFile again = Parse(FormatPropertyFile(file));
  ImportPlan plan = PlanImport(again, file);
  EXPECT_TRUE(plan.changes.empty()) << FormatPlan(plan);
  EXPECT_EQ(plan.unchanged, 4);
}

TEST(PlanImport, CreatesEverythingForANewProperty) {
  ImportPlan plan = PlanImport(Parse(kFile), std::nullopt);
  ASSERT_EQ(plan.changes.size(), 4u);
  EXPECT_TRUE(plan.property.has_value());
  EXPECT_EQ(plan.room_types.size(), 1u);
  EXPECT_EQ(plan.rooms.size(), 2u);
  EXPECT_TRUE(plan.changes[3].needs_room_type);
  EXPECT_EQ(FormatPlan(plan),
            "+ property MUC1\n+ room_type MUC1-STD\n+ room MUC1/101\n+ room MUC1/102\n"
            "4 to create, 0 to update, 0 unchanged\n");
}

TEST(PlanImport, UpdatesOnlyWhatDiffersAndLeavesOmittedRecordsAlone) {
  PropertyFile stored = Parse(kFile);
  stored.property.set_enabled(false);  // disabled since; the file does not say "enabled"
  hotel::v1::Room extra = stored.rooms[0];
  extra.set_number("999");
  stored.rooms.push_back(extra);
  PropertyFile desired = Parse(Replace(kFile, "{number: \"102\", floor: 1", "{number: \"102\", floor: 3"));
  ImportPlan plan = PlanImport(desired, stored);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_FALSE(plan.property.has_value());
  EXPECT_EQ(plan.changes[0].kind, ChangeKind::kUpdate);
  EXPECT_EQ(plan.changes[0].description, "floor: 1 -> 3");
  EXPECT_FALSE(plan.changes[0].needs_room_type);
  EXPECT_EQ(plan.unchanged, 3);
  PropertyFile retire = Parse(Replace(kFile, "room_type: STD, extra", "room_type: STD, retired: true, extra"));
  ImportPlan retiring = PlanImport(retire, stored);
  ASSERT_EQ(retiring.changes.size(), 1u);
  EXPECT_TRUE(retiring.changes[0].retiring);
}

}  // namespace
}  // namespace hotel::rooms
