#include "equipment/equipment_service.h"

#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"

namespace hotel::equipment {

using hotel::v1::CreateEquipmentRequest;
using hotel::v1::Equipment;
using hotel::v1::ListEquipmentRequest;
using hotel::v1::ListEquipmentResponse;

grpc::Status EquipmentServiceImpl::ListEquipment(grpc::ServerContext* context, const ListEquipmentRequest* request,
                                                 ListEquipmentResponse* response) {
  return api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
    auto query = ParseListEquipment(*request);
    if (!query.ok()) return query.status();
    return repository_.List(*query, response);
  });
}

grpc::Status EquipmentServiceImpl::CreateEquipment(grpc::ServerContext* context, const CreateEquipmentRequest* request,
                                                   Equipment* response) {
  return api::Created(context, api::HandleRpc(context, readiness_, *request, [&]() -> absl::Status {
                        auto equipment = ValidateCreateEquipment(*request);
                        if (!equipment.ok()) return equipment.status();
                        return repository_.Create(*equipment, response);
                      }));
}

}  // namespace hotel::equipment
