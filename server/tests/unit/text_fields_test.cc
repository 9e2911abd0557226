#include "common/text_fields.h"

#include <gtest/gtest.h>

#include "common/errors.h"
#include "hotel/v1/maintenance.pb.h"
#include "hotel/v1/rooms.pb.h"

namespace hotel {
namespace {

using namespace std::string_literals;

TEST(TextFields, PlainTextPasses) {
  hotel::v1::CreateIssueRequest request;
  request.set_title("Leaking tap; DROP TABLE issues; --");
  request.set_description("Ünïcödé is fine, so are \t tabs and \n newlines");
  EXPECT_TRUE(RejectNulCharacters(request).ok());
}

TEST(TextFields, NulInAStringIsNamed) {
  hotel::v1::CreateIssueRequest request;
  request.set_title("before\0after"s);
  request.set_reported_by("ok");
  request.set_assignee("\0"s);
  absl::Status status = RejectNulCharacters(request);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ViolatedFields(status), (std::vector<std::string>{"title", "assignee"}));
}

TEST(TextFields, NestedAndRepeatedFieldsAreChecked) {
  hotel::v1::UpdateIssueRequest update;
  update.mutable_issue()->set_description("x\0"s);
  EXPECT_EQ(ViolatedFields(RejectNulCharacters(update)), (std::vector<std::string>{"issue.description"}));

  hotel::v1::ListRoomsRequest list;
  list.add_amenities("desk");
  list.add_amenities("wifi\0"s);
  EXPECT_EQ(ViolatedFields(RejectNulCharacters(list)), (std::vector<std::string>{"amenities"}));
}

TEST(CodePoints, CountsCharactersNotBytes) {
  EXPECT_EQ(CodePoints(""), 0u);
  EXPECT_EQ(CodePoints("abc"), 3u);
  EXPECT_EQ(CodePoints("\xc3\xa9t\xc3\xa9"), 3u);             // "été": 5 bytes
  EXPECT_EQ(CodePoints("\xe2\x82\xac\xf0\x9f\x9b\x8f"), 2u);  // "€🛏": 7 bytes
}

}  // namespace
}  // namespace hotel
