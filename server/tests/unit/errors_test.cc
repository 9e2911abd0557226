#include "common/errors.h"

#include <gtest/gtest.h>

#include "api/handle_rpc.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace hotel {
namespace {

google::rpc::Status Decode(const grpc::Status& status) {
  google::rpc::Status rpc;
  EXPECT_TRUE(rpc.ParseFromString(status.error_details()));
  return rpc;
}

TEST(Errors, FieldErrorsCarryEveryViolation) {
  FieldErrors errors;
  errors.Add("floor", "must be from 0 to 200");
  errors.Add("guests", "must be from 1 to 20");
  grpc::Status status = api::ToGrpcStatus(errors.ToStatus());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "floor: must be from 0 to 200; guests: must be from 1 to 20");

  google::rpc::Status rpc = Decode(status);
  EXPECT_EQ(rpc.code(), 3);
  ASSERT_EQ(rpc.details_size(), 2);
  google::rpc::ErrorInfo info;
  ASSERT_TRUE(rpc.details(0).UnpackTo(&info));
  EXPECT_EQ(info.reason(), "INVALID_ARGUMENT");
  EXPECT_EQ(info.domain(), "hotel.v1");
  google::rpc::BadRequest bad_request;
  ASSERT_TRUE(rpc.details(1).UnpackTo(&bad_request));
  ASSERT_EQ(bad_request.field_violations_size(), 2);
  EXPECT_EQ(bad_request.field_violations(1).field(), "guests");
}

TEST(Errors, ReasonSurvivesToTheWire) {
  grpc::Status status = api::ToGrpcStatus(NotFoundError("ROOM_NOT_FOUND", "room 999 does not exist"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  google::rpc::ErrorInfo info;
  ASSERT_TRUE(Decode(status).details(0).UnpackTo(&info));
  EXPECT_EQ(info.reason(), "ROOM_NOT_FOUND");
}

TEST(Errors, InternalErrorsHideTheirMessage) {
  grpc::Status status = api::ToGrpcStatus(absl::InternalError("relation \"rooms\" does not exist: SELECT ..."));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(status.error_message(), "internal error");
  EXPECT_EQ(status.error_details().find("SELECT"), std::string::npos);
}

TEST(Errors, OkStaysOk) { EXPECT_TRUE(api::ToGrpcStatus(absl::OkStatus()).ok()); }

}  // namespace
}  // namespace hotel

namespace hotel {
namespace {

TEST(Errors, ValidUtf8KeepsTextAndReplacesBrokenBytes) {
  EXPECT_EQ(ValidUtf8("plain ascii"), "plain ascii");
  EXPECT_EQ(ValidUtf8("Zürich – 東京 🏨"), "Zürich – 東京 🏨");
  EXPECT_EQ(ValidUtf8("cut \xC3"), "cut \xEF\xBF\xBD");                          // a character cut in half
  EXPECT_EQ(ValidUtf8("\xFF\xFE"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // never valid
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
}

TEST(Errors, FieldErrorsQuotingBrokenInputStillReachTheWire) {
  const std::string cut = std::string("unknown amenity '\xF1\xBF\x8E") + "'";  // 4-byte character cut after 3
  grpc::Status status = api::ToGrpcStatus(InvalidField("amenities", cut));
  google::rpc::Status rpc;
  ASSERT_TRUE(rpc.ParseFromString(status.error_details()));
  ASSERT_EQ(rpc.details_size(), 2);
  google::rpc::BadRequest bad_request;
  ASSERT_TRUE(rpc.details(1).UnpackTo(&bad_request));
  EXPECT_EQ(bad_request.field_violations(0).description(),
            "unknown amenity '\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD'");  // one per byte
}

}  // namespace
}  // namespace hotel
