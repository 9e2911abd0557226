#include "api/identifiers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/errors.h"

namespace hotel::api {
namespace {

TEST(Validators, PropertyIds) {
  EXPECT_TRUE(ValidatePropertyId("id", "BER1").ok());
  for (auto bad : {"", "ber1", "B", "1BER", "BER1;DROP", "ABCDEFGHIJK"}) {
    EXPECT_EQ(ViolatedFields(ValidatePropertyId("id", bad)), std::vector<std::string>{"id"}) << bad;
  }
}

TEST(Validators, RoomNumbersAndTypeIds) {
  EXPECT_TRUE(ValidateRoomNumber("number", "12A").ok());
  EXPECT_FALSE(ValidateRoomNumber("number", "1 01").ok());
  EXPECT_FALSE(ValidateRoomNumber("number", "").ok());
  EXPECT_TRUE(ValidateRoomTypeId("id", "BER1-DBL").ok());
  EXPECT_FALSE(ValidateRoomTypeId("id", "BER1").ok());
}

TEST(Uuid, Validation) {
  EXPECT_TRUE(IsUuid("123e4567-e89b-12d3-a456-426614174000"));
  EXPECT_TRUE(IsUuid("123E4567-E89B-12D3-A456-426614174000"));
  EXPECT_FALSE(IsUuid("123e4567e89b12d3a456426614174000"));
  EXPECT_FALSE(IsUuid("123e4567-e89b-12d3-a456-42661417400g"));
  EXPECT_EQ(ViolatedFields(ValidateUuid("id", "")), std::vector<std::string>{"id"});
  EXPECT_EQ(ViolatedFields(ValidateUuid("id", "1; DROP TABLE issues")), std::vector<std::string>{"id"});
}

TEST(Uuid, ParseAnswersTheStoredLowerCaseForm) {
  EXPECT_EQ(*ParseUuid("id", "123E4567-E89B-12D3-A456-426614174000"), "123e4567-e89b-12d3-a456-426614174000");
  EXPECT_EQ(ViolatedFields(ParseUuid("id", "123e4567").status()), std::vector<std::string>{"id"});
}

TEST(Validators, RoomAddressNamesEveryBadPartAndAsksForTheProperty) {
  EXPECT_TRUE(ValidateRoomAddress("BER1", "101").ok());
  EXPECT_EQ(ErrorReason(ValidateRoomAddress("", "101")), "PROPERTY_ID_REQUIRED");
  EXPECT_EQ(ViolatedFields(ValidateRoomAddress("ber1", "1 01")), (std::vector<std::string>{"property_id", "number"}));
}

}  // namespace
}  // namespace hotel::api
