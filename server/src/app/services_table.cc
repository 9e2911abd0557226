#include "app/services_table.h"

#include "app/components.h"
// One include a row: the header of the service it builds.
#include "blocks/block_service.h"
#include "changes/change_service.h"
#include "equipment/equipment_service.h"
#include "health/health_service.h"
#include "housekeeping/housekeeping_service.h"
#include "images/image_service.h"
#include "issues/issue_service.h"
#include "observability/metrics_service.h"
#include "rooms/room_service.h"
#include "schedules/schedule_service.h"
#include "stats/room_maintenance_service.h"
#include "stats/stats_service.h"
#include "webhooks/webhook_service.h"

namespace hotel::app {

namespace {

// An area's service on the request pool and the call runner (api/area_service.h), from its factory.
template <auto kNewService>
std::unique_ptr<grpc::Service> OnRequestPool(Components& parts) {
  return kNewService(parts.databases.pool, parts.calls.runner);
}

constexpr bool kHealthChecked = true;
constexpr bool kNotHealthChecked = false;

}  // namespace

const std::vector<ServiceRow>& ServicesTable() {
  static const std::vector<ServiceRow> kTable = {
      {v1::RoomService::service_full_name(), kHealthChecked,
       [](Components& parts) -> std::unique_ptr<grpc::Service> {
         return std::make_unique<rooms::RoomServiceImpl>(parts.areas.room_repository, parts.calls.runner);
       }},
      {v1::HealthService::service_full_name(), kHealthChecked,
       [](Components& parts) -> std::unique_ptr<grpc::Service> {
         return std::make_unique<health::HealthServiceImpl>(parts.databases.probe_pool, parts.calls.readiness,
                                                            parts.calls.runner);
       }},
      {v1::MetricsService::service_full_name(), kNotHealthChecked,
       [](Components& parts) -> std::unique_ptr<grpc::Service> {
         return std::make_unique<MetricsServiceImpl>(parts.metrics);
       }},
      {"grpc.reflection.v1.ServerReflection", kNotHealthChecked,
       [](Components& parts) -> std::unique_ptr<grpc::Service> {
         return std::make_unique<api::ReflectionV1Service>(parts.reflection);
       }},
      {"grpc.reflection.v1alpha.ServerReflection", kNotHealthChecked,
       [](Components& parts) -> std::unique_ptr<grpc::Service> {
         return std::make_unique<api::ReflectionV1AlphaService>(parts.reflection);
       }},
      {v1::EquipmentService::service_full_name(), kHealthChecked, OnRequestPool<equipment::NewEquipmentService>},
      {v1::ScheduleService::service_full_name(), kHealthChecked, OnRequestPool<schedules::NewScheduleService>},
      {v1::IssueService::service_full_name(), kHealthChecked, OnRequestPool<issues::NewIssueService>},
      {v1::MaintenanceService::service_full_name(), kHealthChecked, OnRequestPool<stats::NewMaintenanceService>},
      {v1::StatsService::service_full_name(), kHealthChecked, OnRequestPool<stats::NewStatsService>},
      {v1::ImageService::service_full_name(), kHealthChecked,
       [](Components& parts) -> std::unique_ptr<grpc::Service> {
         return std::make_unique<images::ImageServiceImpl>(parts.areas.image_repository, parts.calls.runner,
                                                           &parts.areas.image_uploads);
       }},
      {v1::ChangeService::service_full_name(), kHealthChecked,
       [](Components& parts) -> std::unique_ptr<grpc::Service> {
         return std::make_unique<changes::ChangeServiceImpl>(parts.areas.change_repository, parts.areas.change_hub,
                                                             parts.calls.runner);
       }},
      {v1::WebhookService::service_full_name(), kHealthChecked,
       [](Components& parts) -> std::unique_ptr<grpc::Service> {
         return std::make_unique<webhooks::WebhookServiceImpl>(
             parts.areas.webhook_repository, parts.settings.webhook_allow_list,
             webhooks::HttpOptions::PingFromConfig(parts.settings.config), parts.calls.runner);
       }},
      {v1::RoomBlockService::service_full_name(), kHealthChecked, OnRequestPool<blocks::NewRoomBlockService>},
      {v1::HousekeepingService::service_full_name(), kHealthChecked,
       OnRequestPool<housekeeping::NewHousekeepingService>},
  };
  return kTable;
}

std::vector<std::string> ServedNames() {
  std::vector<std::string> names = {"grpc.health.v1.Health"};
  for (const ServiceRow& row : ServicesTable()) names.push_back(row.name);
  return names;
}

std::vector<std::string> HealthNames() {
  std::vector<std::string> names = {""};
  for (const ServiceRow& row : ServicesTable()) {
    if (row.health_checked) names.push_back(row.name);
  }
  return names;
}

}  // namespace hotel::app
