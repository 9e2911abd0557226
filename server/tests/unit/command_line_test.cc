#include "common/command_line.h"

#include <gtest/gtest.h>

#include "common/errors.h"

namespace hotel {
namespace {

const std::set<std::string> kKnown = {"origin-dir", "database-url", "dry-run"};
const std::set<std::string> kSwitches = {"dry-run"};

TEST(CommandLine, TakesKebabFlagsWithOrWithoutEquals) {
  auto parsed =
      ParseCommandLine({"--origin-dir=/srv/cdn", "--database-url", "postgresql://db/hotel"}, kKnown, kSwitches);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flags, (std::map<std::string, std::string>{{"origin-dir", "/srv/cdn"},
                                                               {"database-url", "postgresql://db/hotel"}}));
  EXPECT_TRUE(parsed->old_spellings.empty());
}

TEST(CommandLine, OldSnakeCaseSpellingsMeanTheSameFlagAndAreReported) {
  auto parsed = ParseCommandLine({"--origin_dir", "/srv/cdn", "--dry_run"}, kKnown, kSwitches);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flags.at("origin-dir"), "/srv/cdn");
  EXPECT_EQ(parsed->flags.at("dry-run"), "true");
  EXPECT_EQ(parsed->old_spellings, (std::vector<std::string>{"origin_dir", "dry_run"}));
}

TEST(CommandLine, ASwitchStandsAloneOrTakesAnExplicitValue) {
  auto parsed = ParseCommandLine({"--dry-run", "--origin-dir=x"}, kKnown, kSwitches);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flags.at("dry-run"), "true");
  EXPECT_EQ(parsed->flags.at("origin-dir"), "x");
  parsed = ParseCommandLine({"--dry-run=false"}, kKnown, kSwitches);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flags.at("dry-run"), "false");
}

TEST(CommandLine, TheLastOfARepeatedFlagWins) {
  auto parsed = ParseCommandLine({"--origin_dir=a", "--origin-dir=b"}, kKnown, kSwitches);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flags.at("origin-dir"), "b");
}

TEST(CommandLine, BadArgumentsNameTheFlag) {
  const auto field = [](const std::vector<std::string>& args) {
    return FieldViolations(ParseCommandLine(args, kKnown, kSwitches).status()).at(0).field;
  };
  EXPECT_EQ(field({"--bogus=1"}), "bogus");
  EXPECT_EQ(field({"--bogus_flag"}), "bogus-flag");
  EXPECT_EQ(field({"--origin-dir"}), "origin-dir");  // its value is missing
  EXPECT_EQ(field({"origin-dir=x"}), "origin-dir=x");
  EXPECT_EQ(field({"-"}), "-");
  EXPECT_EQ(field({"--"}), "--");
  EXPECT_EQ(field({"--=x"}), "--=x");
}

TEST(CommandLine, KebabFlagName) {
  EXPECT_EQ(KebabFlagName("change_max_watchers_per_client"), "change-max-watchers-per-client");
  EXPECT_EQ(KebabFlagName("listen"), "listen");
}

TEST(CommandLine, VersionIsAskedAnywhereAndNamesTheRelease) {
  EXPECT_TRUE(AsksForVersion({"--version"}));
  EXPECT_TRUE(AsksForVersion({"--listen=x", "--version"}));
  EXPECT_FALSE(AsksForVersion({"--listen=x"}));
  EXPECT_EQ(VersionLine("hotel-admin"), std::string("hotel-admin ") + HOTEL_VERSION + "\n");
}

}  // namespace
}  // namespace hotel
