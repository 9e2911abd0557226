#include "equipment/equipment_request.h"

#include <gtest/gtest.h>

#include "api/idempotency.h"
#include "common/errors.h"
#include "common/page_token.h"
#include "equipment/equipment_sql.h"

namespace hotel::equipment {
namespace {

using namespace hotel::v1;

TEST(CreateEquipment, ValidationAndDefaults) {
  CreateEquipmentRequest request;
  request.set_property_id("LIS1");
  request.set_number("G01");
  request.set_name("Air conditioner");
  request.set_type("air_conditioner");
  request.set_installed_on("2024-05-01");
  request.set_warranty_expires_on("2029-04-30");
  auto equipment = ValidateCreateEquipment(request);
  ASSERT_TRUE(equipment.ok()) << equipment.status();
  EXPECT_EQ(equipment->status, "OPERATIONAL");
  EXPECT_EQ(equipment->room_number, "G01");

  request.set_type("Air Conditioner");
  request.set_warranty_expires_on("2020-01-01");
  request.set_status(static_cast<Equipment::Status>(8));
  request.set_name("");
  EXPECT_EQ(ViolatedFields(ValidateCreateEquipment(request).status()),
            (std::vector<std::string>{"name", "type", "warranty_expires_on", "status"}));
  request.clear_property_id();
  EXPECT_EQ(ErrorReason(ValidateCreateEquipment(request).status()), "PROPERTY_ID_REQUIRED");
}

TEST(ListEquipment, NeedsTheRoomAndPagesByCreationTime) {
  ListEquipmentRequest request;
  request.set_property_id("BER1");
  request.set_number("101");
  request.set_status(Equipment::DOWN);
  auto query = ParseListEquipment(request);
  ASSERT_TRUE(query.ok()) << query.status();
  db::SqlQuery sql = BuildListEquipmentSql(*query);
  EXPECT_NE(sql.text.find("e.property_id = $1 AND e.room_number = $2 AND e.status = $3 ORDER BY e.created_at, e.id"),
            std::string::npos)
      << sql.text;
  ListEquipmentRequest no_property;
  no_property.set_number("101");
  EXPECT_EQ(ErrorReason(ParseListEquipment(no_property).status()), "PROPERTY_ID_REQUIRED");
}

}  // namespace
}  // namespace hotel::equipment
