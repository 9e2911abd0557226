#include "api/invalid_utf8.h"

#include <gtest/gtest.h>

namespace hotel::api {
namespace {

TEST(InvalidUtf8Field, NamesTheFieldOfProtobufsParseError) {
  EXPECT_EQ(InvalidUtf8Field("String field 'hotel.v1.CreateIssueRequest.title' contains invalid UTF-8 data when "
                             "parsing a protocol buffer. Use the 'bytes' type if you intend to send raw bytes. "),
            "title");
  EXPECT_EQ(InvalidUtf8Field("String field 'number' contains invalid UTF-8 data when parsing a protocol buffer."),
            "number");
}

TEST(InvalidUtf8Field, IgnoresEveryOtherMessage) {
  EXPECT_EQ(InvalidUtf8Field("String field 'hotel.v1.Issue.title' contains invalid UTF-8 data when serializing a "
                             "protocol buffer."),
            "");
  EXPECT_EQ(InvalidUtf8Field("File already exists in database: hotel/v1/rooms.proto"), "");
  EXPECT_EQ(InvalidUtf8Field(""), "");
}

}  // namespace
}  // namespace hotel::api
