#include "app/services_table.h"

#include "app/components.h"

namespace hotel::app {

namespace {

// Where a row's instance is: one of the areas' services, or one that answers from memory.
template <auto kService>
grpc::Service* Area(Components& parts) {
  return &(parts.areas.*kService);
}
template <auto kService>
grpc::Service* FromMemory(Components& parts) {
  return &(parts.*kService);
}

constexpr bool kHealthChecked = true;
constexpr bool kNotHealthChecked = false;

}  // namespace

const std::vector<ServiceRow>& ServicesTable() {
  static const std::vector<ServiceRow> kTable = {
      {v1::RoomService::service_full_name(), kHealthChecked, Area<&Areas::room_service>},
      {v1::HealthService::service_full_name(), kHealthChecked, Area<&Areas::health_service>},
      {v1::MetricsService::service_full_name(), kNotHealthChecked, FromMemory<&Components::metrics_service>},
      {"grpc.reflection.v1.ServerReflection", kNotHealthChecked, FromMemory<&Components::reflection_v1>},
      {"grpc.reflection.v1alpha.ServerReflection", kNotHealthChecked, FromMemory<&Components::reflection_v1alpha>},
      {v1::EquipmentService::service_full_name(), kHealthChecked, Area<&Areas::equipment_service>},
      {v1::ScheduleService::service_full_name(), kHealthChecked, Area<&Areas::schedule_service>},
      {v1::IssueService::service_full_name(), kHealthChecked, Area<&Areas::issue_service>},
      {v1::MaintenanceService::service_full_name(), kHealthChecked, Area<&Areas::maintenance_service>},
      {v1::StatsService::service_full_name(), kHealthChecked, Area<&Areas::stats_service>},
      {v1::ImageService::service_full_name(), kHealthChecked, Area<&Areas::image_service>},
      {v1::ChangeService::service_full_name(), kHealthChecked, Area<&Areas::change_service>},
      {v1::WebhookService::service_full_name(), kHealthChecked, Area<&Areas::webhook_service>},
      {v1::RoomBlockService::service_full_name(), kHealthChecked, Area<&Areas::room_block_service>},
      {v1::HousekeepingService::service_full_name(), kHealthChecked, Area<&Areas::housekeeping_service>},
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
