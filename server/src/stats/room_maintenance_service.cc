#include "stats/room_maintenance_service.h"

#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "common/errors.h"

namespace hotel::stats {

using hotel::v1::GetRoomMaintenanceRequest;
using hotel::v1::RoomMaintenance;

grpc::ServerUnaryReactor* MaintenanceServiceImpl::GetRoomMaintenance(grpc::CallbackServerContext* context,
                                                                     const GetRoomMaintenanceRequest* request,
                                                                     RoomMaintenance* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidateRoomAddress(request->property_id(), request->number()), [&] {
      return repository_.RoomMaintenance(request->property_id(), request->number(), response);
    });
  });
}

}  // namespace hotel::stats
