// Background loop that keeps the service's health current: checks the database every interval and
// sets the standard grpc.health.v1 status of every service to match. The schema is brought up to
// date before it starts (app/app.h: migrations finish before the port opens).
#pragma once

#include <grpcpp/health_check_service_interface.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "api/readiness.h"
#include "db/pool.h"

namespace hotel::health {

class HealthMonitor {
 public:
  HealthMonitor(db::ConnectionPool& main_pool, db::ConnectionPool& probe_pool, api::Readiness& readiness,
                grpc::HealthCheckServiceInterface* health, std::vector<std::string> services, absl::Duration interval);
  ~HealthMonitor();

  // Checks once, publishing the result, then goes on checking every interval on a thread of its own.
  void Start();
  void Stop();
  // On SIGTERM: stops checking and reports every service NOT_SERVING (readiness), while the
  // server keeps serving; "liveness" is not among the services, so it stays SERVING.
  void Drain();

 private:
  void Check();
  void Publish(bool serving);

  db::ConnectionPool& main_pool_;
  db::ConnectionPool& probe_pool_;
  api::Readiness& readiness_;
  grpc::HealthCheckServiceInterface* health_;
  const std::vector<std::string> services_;
  const absl::Duration interval_;
  absl::Notification stop_;
  std::thread thread_;
  bool published_ = false;  // only touched by the loop thread
  bool last_serving_ = false;
};

}  // namespace hotel::health
