// The command line of the C++ binaries (hotel-server, hotel-images, hotel-admin), one style for
// all (docs/configuration.md, "Flags"): --name=value or --name value, names in kebab-case
// (--origin-dir) as the gateway's; a switch may stand alone (--dry-run means --dry-run=true).
// The snake_case spellings of the releases before (--origin_dir) keep working through 1.x, each
// with a warning naming the new spelling. --version prints the release.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hotel {

struct CommandLine {
  std::map<std::string, std::string> flags;  // by kebab-case name; a repeated flag keeps its last value
  std::vector<std::string> old_spellings;    // the names given in snake_case, as given ("origin_dir")
};

// The kebab-case spelling of a flag name: origin_dir -> origin-dir.
std::string KebabFlagName(absl::string_view name);

// args: flags only (no program name, no command). known: the flags the binary takes, switches
// among them those that need no value, both in kebab-case. An unknown flag, a missing value or
// an argument that is no flag is an InvalidField naming it.
absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& args, const std::set<std::string>& known,
                                             const std::set<std::string>& switches);

// Logs a warning for each old spelling of command_line, naming the new one.
void WarnOfOldSpellings(const CommandLine& command_line);

// Whether args ask for --version: then the binary prints VersionLine(its name) and exits 0.
bool AsksForVersion(const std::vector<std::string>& args);
std::string VersionLine(absl::string_view program);  // "hotel-server 1.4.0\n": HOTEL_VERSION, CMake's project()

}  // namespace hotel
