// The pure parts of reads from replicas (docs/consistency.md): the consistency token's form, and
// how a multi-host DATABASE_READ_URL becomes one pool per host.
#include "db/read_replicas.h"

#include <gtest/gtest.h>

#include "common/change_cursor.h"

namespace hotel {
namespace {

TEST(ConsistencyToken, RoundTripsAWalPosition) {
  for (uint64_t position : {uint64_t{0}, uint64_t{0x1A2B3C4D}, ~uint64_t{0}}) {
    const std::string token = EncodeConsistencyToken(position);
    EXPECT_EQ(token.size(), 12u);
    auto decoded = DecodeConsistencyToken("consistency_token", token);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, position);
  }
}

TEST(ConsistencyToken, IsNeverTakenForAChangeCursorNorTheOtherWay) {
  auto token = DecodeConsistencyToken("consistency_token", EncodeChangeCursor(42));
  EXPECT_EQ(token.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(token.status().ToString().find("consistency_token"), std::string::npos) << token.status();
  EXPECT_FALSE(DecodeChangeCursor("after", EncodeConsistencyToken(42)).ok());
  for (const char* bad : {"", "not-a-token", "AgAAAAABAAAAAA", "AgAAAAABAA=="}) {
    EXPECT_FALSE(DecodeConsistencyToken("consistency_token", bad).ok()) << bad;
  }
}

TEST(SplitHosts, AMultiHostUrlBecomesOneUrlPerHostWithoutTargetSessionAttrs) {
  EXPECT_EQ(db::SplitHosts("postgresql://u:p%40ss@127.0.0.1:5433,127.0.0.1:5434/hotel?target_session_attrs="
                           "prefer-standby&sslmode=disable"),
            (std::vector<std::string>{"postgresql://u:p%40ss@127.0.0.1:5433/hotel?sslmode=disable",
                                      "postgresql://u:p%40ss@127.0.0.1:5434/hotel?sslmode=disable"}));
  EXPECT_EQ(db::SplitHosts("postgres://db2,db3/hotel?target_session_attrs=any"),
            (std::vector<std::string>{"postgres://db2/hotel", "postgres://db3/hotel"}));
}

TEST(SplitHosts, OneHostOrAKeywordStringStaysAsItIs) {
  const std::string service = "postgresql://hotel_runtime:pw@hotel-database-ro:5432/hotel";
  EXPECT_EQ(db::SplitHosts(service), std::vector<std::string>{service});
  const std::string keywords = "host=a,b port=5432 dbname=hotel";
  EXPECT_EQ(db::SplitHosts(keywords), std::vector<std::string>{keywords});
}

}  // namespace
}  // namespace hotel
