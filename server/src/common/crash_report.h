// Every crash leaves its evidence (issue 60): a program that dies of SIGSEGV, SIGABRT, SIGBUS,
// SIGILL, SIGFPE or SIGTRAP first writes a symbolised backtrace of the failing thread to stderr
// (Abseil's failure signal handler), then dies of that signal, so its exit still says how it died
// and the test stacks, which keep each process's stderr, fail the run with that backtrace
// (tests/e2e/crashes.py).
#pragma once

namespace hotel {

// Call first in main, with argv[0] (the symbolizer reads the program's own symbols). SIGTERM keeps
// its default: the server takes it with sigwait to drain (main.cc), the tools simply end. Under a
// sanitizer nothing is installed: the sanitizer's own report of the fault says more.
void InstallCrashReport(const char* argv0);

}  // namespace hotel
