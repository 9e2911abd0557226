# The sanitizer builds of hotel-server and its C++ tests (sourced by scripts/test.sh and scripts/watch-stress.sh):
#   sanitizer_build asan|tsan <target>...   builds the targets in build-asan (AddressSanitizer and
#                                           UndefinedBehaviorSanitizer, Debug) or build-tsan (ThreadSanitizer)
#   sanitizer_env asan|tsan                 exports what their binaries run with: a report fails the run (abort, so
#                                           a server's crash report and the tests' crash watch see it)
# The ThreadSanitizer build runs against Abseil's synchronisation library rebuilt with it (scripts/tsan-abseil.sh
# says why; CMakeLists.txt, HOTEL_TSAN, how).
sanitizer_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

sanitizer_build() {
  local flavour=$1 dir=$sanitizer_root/build-$1
  shift
  local options=()
  case "$flavour" in
    asan) options=(-DCMAKE_BUILD_TYPE=Debug -DHOTEL_SANITIZE=ON) ;;
    tsan) options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHOTEL_TSAN=ON
                   -DHOTEL_TSAN_ABSEIL_DIR="$(bash "$sanitizer_root/scripts/tsan-abseil.sh" build)") ;;
    *) echo "sanitizer_build: asan or tsan, not $flavour" >&2; return 2 ;;
  esac
  command -v ccache >/dev/null && options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  [ -f "$dir/build.ninja" ] || cmake -S "$sanitizer_root" -B "$dir" -G Ninja -DHOTEL_TESTS=ON "${options[@]}" >/dev/null
  cmake --build "$dir" -j "$(nproc)" --target "$@"
}

sanitizer_env() {
  case "$1" in
    asan)
      export LSAN_OPTIONS="suppressions=$sanitizer_root/server/tests/lsan.supp"
      export ASAN_OPTIONS=abort_on_error=1
      export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 ;;
    tsan)
      export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:suppressions=$sanitizer_root/server/tests/tsan.supp" ;;
    *) echo "sanitizer_env: asan or tsan, not $1" >&2; return 2 ;;
  esac
}
