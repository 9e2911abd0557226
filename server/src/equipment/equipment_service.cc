#include "equipment/equipment_service.h"

#include "api/area_service.h"
#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"
#include "equipment/equipment_repository.h"
#include "hotel/v1/maintenance.grpc.pb.h"

namespace hotel::equipment {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

namespace v1 = hotel::v1;

class EquipmentServiceImpl final : public api::AreaService<v1::EquipmentService, EquipmentRepository> {
 public:
  using AreaService::AreaService;

  ServerUnaryReactor* ListEquipment(CallbackServerContext* context, const v1::ListEquipmentRequest* request,
                                    v1::ListEquipmentResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ParseListEquipment(*request),
                          [&](const auto& query) { return repository_.List(query, response); });
    });
  }

  ServerUnaryReactor* CreateEquipment(CallbackServerContext* context, const v1::CreateEquipmentRequest* request,
                                      v1::Equipment* response) override {
    return calls_.Run(context, *request, api::Created(context, [=, this] {
                        return api::IfValid(ValidateCreateEquipment(*request), [&](const auto& equipment) {
                          return repository_.Create(equipment, response);
                        });
                      }));
  }
};

}  // namespace

std::unique_ptr<grpc::Service> NewEquipmentService(db::ConnectionPool& pool, api::CallRunner& calls) {
  return std::make_unique<EquipmentServiceImpl>(pool, calls);
}

}  // namespace hotel::equipment
