// hotel-server: the Hotel Data Service's gRPC server. Start-up lives in app/ (app/app.h): this
// file reads the settings, starts the app, and on a signal drains and stops it.
#include <malloc.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "app/app.h"
#include "common/command_line.h"
#include "common/crash_report.h"
#include "common/log.h"
#include "images/ingest/image_renderer.h"

namespace {

// Signals are taken by one thread with sigwait; every other thread inherits the mask.
sigset_t BlockTerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Graceful termination (docs/operations.md#rolling-deploys): readiness fails at once while
// everything is still served for shutdown_delay; a second signal cuts the delay short.
void StopOnSignal(sigset_t signals, absl::Duration shutdown_delay, hotel::app::App& app) {
  int signal = 0;
  sigwait(&signals, &signal);
  hotel::LogInfo("shutting down", {{"signal", signal}, {"delay_ms", absl::ToInt64Milliseconds(shutdown_delay)}});
  app.Drain();
  const timespec delay = absl::ToTimespec(shutdown_delay);
  if (shutdown_delay > absl::ZeroDuration() && sigtimedwait(&signals, nullptr, &delay) > 0) {
    hotel::LogInfo("second signal: stopping now");
  }
  hotel::LogInfo("stopping: no new calls, in-flight ones finish");
  app.Stop();
}

}  // namespace

int main(int argc, char** argv) {
  hotel::InstallCrashReport(argv[0]);
  // Debian's Abseil checks for deadlocks with a lock graph on every acquisition: in tests only.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // glibc gives each new thread an arena, up to 8 per core, which a burst of calls spread over
  // many threads leaves behind; four serve two cores without contention.
  mallopt(M_ARENA_MAX, 4);
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (hotel::AsksForVersion(args)) {
    std::cout << hotel::VersionLine("hotel-server");
    return 0;
  }
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << hotel::ConfigUsage();
    return 0;
  }
  auto settings = hotel::app::LoadSettings(args, [](const char* name) -> const char* { return std::getenv(name); });
  if (!settings.ok()) {
    std::cerr << "hotel-server: " << settings.status().message() << "\n\n" << hotel::ConfigUsage();
    return 2;
  }
  if (settings->config.migrate_only) return hotel::app::MigrateOnly(settings->config).ok() ? 0 : 1;
  if (!hotel::images::InitImageLibrary(argv[0])) {
    hotel::LogError("libvips failed to start", {});
    return 1;
  }
  const sigset_t signals = BlockTerminationSignals();
  hotel::app::App app(*settings);
  if (const absl::Status started = app.Start(); !started.ok()) {
    hotel::LogError("cannot start", {{"error", std::string(started.message())}});
    return 1;
  }
  std::cout << "hotel-server listening on " << app.address() << std::endl;
  hotel::LogInfo("listening", {{"address", app.address()}, {"version", HOTEL_VERSION}});
  std::thread signal_thread([&] { StopOnSignal(signals, settings->config.shutdown_delay, app); });
  app.Wait();
  signal_thread.join();
  hotel::LogInfo("stopped");
  return 0;
}
