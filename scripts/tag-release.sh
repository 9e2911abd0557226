#!/usr/bin/env bash
# Records a release (docs/versioning.md, "Tagging a release"):
#   scripts/tag-release.sh <version> [commit]      commit defaults to HEAD
# The commit must declare <version> in CMakeLists.txt. Appends "<version> <commit>" to
# api/releases.txt (what the previous-release check reads, since a fresh clone may carry no tags)
# and creates the annotated tag v<version> at the commit. Idempotent; refuses to move a release
# that is recorded at another commit. Commit api/releases.txt and push the tag afterwards.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=${1:?usage: tag-release.sh <version> [commit]}
commit=$(git -C "$root" rev-parse --verify "${2:-HEAD}^{commit}")
releases=$root/api/releases.txt
declared=$(git -C "$root" show "$commit:CMakeLists.txt" |
  sed -n 's/^project(hotel_data_service VERSION \([0-9][0-9.]*\).*/\1/p')
[ "$declared" = "$version" ] ||
  { echo "tag-release.sh: $commit declares version $declared in CMakeLists.txt, not $version" >&2; exit 1; }

recorded=$(awk -v v="$version" '$1 == v { print $2 }' "$releases")
if [ -z "$recorded" ]; then
  echo "$version $commit" >>"$releases"
  echo "api/releases.txt: $version $commit"
elif [ "$recorded" != "$commit" ]; then
  echo "tag-release.sh: api/releases.txt has $version at $recorded; a release is never moved" >&2
  exit 1
fi

tagged=$(git -C "$root" rev-parse -q --verify "refs/tags/v$version^{commit}" || true)
if [ -z "$tagged" ]; then
  git -C "$root" tag -a "v$version" -m "Release $version" "$commit"
  echo "tag v$version: $commit"
elif [ "$tagged" != "$commit" ]; then
  echo "tag-release.sh: tag v$version points at $tagged, not $commit" >&2
  exit 1
fi
