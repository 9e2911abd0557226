// gRPC handlers of hotel.v1.EquipmentService: validate, call the repository, map errors.
#pragma once

#include "api/call_runner.h"
#include "equipment/equipment_repository.h"
#include "hotel/v1/maintenance.grpc.pb.h"

namespace hotel::equipment {

class EquipmentServiceImpl final : public hotel::v1::EquipmentService::CallbackService {
 public:
  EquipmentServiceImpl(EquipmentRepository& repository, api::CallRunner& calls)
      : repository_(repository), calls_(calls) {}

  grpc::ServerUnaryReactor* ListEquipment(grpc::CallbackServerContext*, const hotel::v1::ListEquipmentRequest* request,
                                          hotel::v1::ListEquipmentResponse* response) override;
  grpc::ServerUnaryReactor* CreateEquipment(grpc::CallbackServerContext* context,
                                            const hotel::v1::CreateEquipmentRequest* request,
                                            hotel::v1::Equipment* response) override;

 private:
  EquipmentRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::equipment
