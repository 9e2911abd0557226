#include "common/page_token.h"

#include <gtest/gtest.h>

#include "common/errors.h"

namespace hotel {
namespace {

TEST(PageToken, RoundTripsTheKey) {
  std::string token = EncodePageToken({"rooms", "abc", {"BER1", "3", "305"}});
  auto decoded = DecodePageToken(token, "rooms", "abc");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->key, (std::vector<std::string>{"BER1", "3", "305"}));
}

TEST(PageToken, EmptyTokenMeansFirstPage) {
  auto decoded = DecodePageToken("", "rooms", "abc");
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->key.empty());
}

TEST(PageToken, MalformedTokenNamesTheField) {
  for (const std::string& bad : std::vector<std::string>{"not base64!", "Zm9v", std::string(3000, 'A')}) {
    auto decoded = DecodePageToken(bad, "rooms", "abc");
    ASSERT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(ErrorReason(decoded.status()), "INVALID_PAGE_TOKEN");
    ASSERT_EQ(FieldViolations(decoded.status()).size(), 1u);
    EXPECT_EQ(FieldViolations(decoded.status())[0].field, "page_token");
  }
}

TEST(PageToken, ForeignListOrFiltersAreRefused) {
  std::string token = EncodePageToken({"rooms", "abc", {"BER1"}});
  EXPECT_EQ(DecodePageToken(token, "properties", "abc").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodePageToken(token, "rooms", "other").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PageToken, AKeyThatIsNotTextIsRefusedBeforeItReachesTheDatabase) {
  for (const std::string& value : {std::string("BER1\xff"), std::string("\xc3"), std::string("a\0b", 3)}) {
    auto decoded = DecodePageToken(EncodePageToken({"rooms", "abc", {value, "3"}}), "rooms", "abc");
    ASSERT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ErrorReason(decoded.status()), "INVALID_PAGE_TOKEN");
  }
  EXPECT_TRUE(DecodePageToken(EncodePageToken({"rooms", "abc", {"Zürich", "3"}}), "rooms", "abc").ok());
}

TEST(PageToken, FingerprintIsStableAndDiscriminates) {
  EXPECT_EQ(FilterFingerprint("floor=1"), FilterFingerprint("floor=1"));
  EXPECT_NE(FilterFingerprint("floor=1"), FilterFingerprint("floor=2"));
  EXPECT_EQ(FilterFingerprint(""), "cbf29ce484222325");  // FNV-1a offset basis: same in every build
}

TEST(PageSize, DefaultsClampsAndRejectsNegative) {
  EXPECT_EQ(*EffectivePageSize(0), kDefaultPageSize);
  EXPECT_EQ(*EffectivePageSize(7), 7);
  EXPECT_EQ(*EffectivePageSize(100000), kMaxPageSize);
  EXPECT_EQ(EffectivePageSize(-1).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hotel
