#include "equipment/equipment_service.h"

#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"

namespace hotel::equipment {

using hotel::v1::CreateEquipmentRequest;
using hotel::v1::Equipment;
using hotel::v1::ListEquipmentRequest;
using hotel::v1::ListEquipmentResponse;

grpc::ServerUnaryReactor* EquipmentServiceImpl::ListEquipment(grpc::CallbackServerContext* context,
                                                              const ListEquipmentRequest* request,
                                                              ListEquipmentResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseListEquipment(*request),
                        [&](const auto& query) { return repository_.List(query, response); });
  });
}

grpc::ServerUnaryReactor* EquipmentServiceImpl::CreateEquipment(grpc::CallbackServerContext* context,
                                                                const CreateEquipmentRequest* request,
                                                                Equipment* response) {
  return calls_.Run(context, *request, api::Created(context, [=, this] {
                      return api::IfValid(ValidateCreateEquipment(*request), [&](const auto& equipment) {
                        return repository_.Create(equipment, response);
                      });
                    }));
}

}  // namespace hotel::equipment
