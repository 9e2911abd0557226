#include "common/command_line.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/errors.h"
#include "common/log.h"

namespace hotel {

std::string KebabFlagName(absl::string_view name) {
  std::string kebab(name);
  std::replace(kebab.begin(), kebab.end(), '_', '-');
  return kebab;
}

absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& args, const std::set<std::string>& known,
                                             const std::set<std::string>& switches) {
  CommandLine command_line;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const size_t eq = arg.find('=');
    if (!absl::StartsWith(arg, "--") || arg.size() == 2 || eq == 2) return InvalidField(arg, "expected --flag=value");
    const std::string given = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const std::string name = KebabFlagName(given);
    if (!known.count(name)) return InvalidField(name, "unknown flag; see --help");
    if (name != given) command_line.old_spellings.push_back(given);
    if (eq != std::string::npos) {
      command_line.flags[name] = arg.substr(eq + 1);
    } else if (switches.count(name)) {
      command_line.flags[name] = "true";
    } else if (i + 1 < args.size()) {
      command_line.flags[name] = args[++i];
    } else {
      return InvalidField(name, "missing value");
    }
  }
  return command_line;
}

void WarnOfOldSpellings(const CommandLine& command_line) {
  for (const std::string& given : command_line.old_spellings) {
    const std::string kebab = KebabFlagName(given);
    LogWarning(absl::StrCat("--", given, " is an old spelling, accepted through 1.x: use --", kebab),
               {{"flag", absl::StrCat("--", given)}, {"replacement", absl::StrCat("--", kebab)}});
  }
}

bool AsksForVersion(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--version") != args.end();
}

std::string VersionLine(absl::string_view program) { return absl::StrCat(program, " ", HOTEL_VERSION, "\n"); }

}  // namespace hotel
