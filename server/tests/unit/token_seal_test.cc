#include "common/token_seal.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "common/change_cursor.h"
#include "common/errors.h"
#include "common/page_token.h"

namespace hotel {
namespace {

// Every variant a damaged or hostile client could send of a real token: cut, each character
// changed, and characters added.
std::vector<std::string> Tampered(const std::string& token) {
  std::vector<std::string> variants = {token.substr(0, token.size() - 1), token.substr(1), token + "A", token + token};
  for (size_t i = 0; i < token.size(); ++i) {
    for (char c : {'A', 'B', 'Q', 'g', 'w', '_', '-', '0'}) {
      if (token[i] == c) continue;
      std::string changed = token;
      changed[i] = c;
      variants.push_back(changed);
    }
  }
  return variants;
}

class TokenSealTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_TRUE(ConfigureTokenSeal(GetParam()).ok()); }
  void TearDown() override { ASSERT_TRUE(ConfigureTokenSeal("").ok()); }
};

TEST_P(TokenSealTest, AnyChangeToAPageTokenIsRefusedNamingTheField) {
  const std::string token = EncodePageToken({"rooms", "abc", {"BER1", "3", "305"}});
  ASSERT_TRUE(DecodePageToken(token, "rooms", "abc").ok());
  for (const std::string& bad : Tampered(token)) {
    auto decoded = DecodePageToken(bad, "rooms", "abc");
    ASSERT_FALSE(decoded.ok()) << bad;
    EXPECT_EQ(ErrorReason(decoded.status()), "INVALID_PAGE_TOKEN");
    EXPECT_EQ(ViolatedFields(decoded.status()), std::vector<std::string>{"page_token"});
  }
}

TEST_P(TokenSealTest, AnyChangeToAChangeCursorIsRefusedNamingTheField) {
  const std::string cursor = EncodeChangeCursor(123456);
  ASSERT_EQ(*DecodeChangeCursor("after", cursor), 123456);
  for (const std::string& bad : Tampered(cursor)) {
    auto decoded = DecodeChangeCursor("after", bad);
    ASSERT_FALSE(decoded.ok()) << bad;
    EXPECT_EQ(ErrorReason(decoded.status()), "INVALID_CURSOR");
    EXPECT_EQ(ViolatedFields(decoded.status()), std::vector<std::string>{"after"});
  }
}

INSTANTIATE_TEST_SUITE_P(KeyedAndUnkeyed, TokenSealTest,
                         ::testing::Values("", "a-secret-of-32-bytes-0123456789",
                                           "new-key-0123456789,old-key-0123456789"));

TEST(TokenSeal, ATokenOfAnotherKeyIsRefusedAndAnOldKeyStillOpensDuringARotation) {
  ASSERT_TRUE(ConfigureTokenSeal("old-key-0123456789").ok());
  const std::string old_token = EncodePageToken({"rooms", "abc", {"BER1"}});
  ASSERT_TRUE(ConfigureTokenSeal("other-key-0123456789").ok());
  EXPECT_FALSE(DecodePageToken(old_token, "rooms", "abc").ok());
  ASSERT_TRUE(ConfigureTokenSeal("new-key-0123456789,old-key-0123456789").ok());
  EXPECT_TRUE(DecodePageToken(old_token, "rooms", "abc").ok());
  ASSERT_TRUE(ConfigureTokenSeal("").ok());
  EXPECT_FALSE(DecodePageToken(old_token, "rooms", "abc").ok());
}

TEST(TokenSeal, ShortKeysAreRefused) {
  const absl::Status status = ConfigureTokenSeal("short");
  EXPECT_EQ(ViolatedFields(status), std::vector<std::string>{"page_token_keys"});
}

TEST(TokenSeal, PageTokensOfTheEarlierReleaseGetAMessageOfTheirOwn) {
  // As releases up to 1.3 wrote them: unsealed, version p1 and version byte 1.
  const std::string page_token = absl::WebSafeBase64Escape(
      "p1\x1frooms\x1f"
      "abc\x1f"
      "BER1");
  auto page = DecodePageToken(page_token, "rooms", "abc");
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.status().message().find("earlier release"), absl::string_view::npos) << page.status();
}

TEST(TokenSeal, ChangeCursorsOfTheEarlierReleaseAreReadAsTheirPositions) {
  // As releases up to 1.3 wrote them: unsealed, version byte 1 and the position, 8 bytes big-endian.
  const int64_t before = UnsealedChangeCursorsRead();
  auto cursor = DecodeChangeCursor("after", absl::WebSafeBase64Escape(std::string("\x01\0\0\0\0\0\x01\x02\x03", 9)));
  ASSERT_TRUE(cursor.ok()) << cursor.status();
  EXPECT_EQ(*cursor, 0x010203);
  EXPECT_EQ(UnsealedChangeCursorsRead(), before + 1);
  // One changed character still makes it something no release issued.
  EXPECT_FALSE(DecodeChangeCursor("after", "AQAAAAAAAQID_").ok());
}

}  // namespace
}  // namespace hotel
