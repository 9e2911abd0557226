// gRPC handlers of hotel.v1.RoomBlockService: validate, call the repository.
#pragma once

#include "api/call_runner.h"
#include "blocks/block_repository.h"
#include "hotel/v1/room_blocks.grpc.pb.h"

namespace hotel::blocks {

class RoomBlockServiceImpl final : public hotel::v1::RoomBlockService::CallbackService {
 public:
  RoomBlockServiceImpl(RoomBlockRepository& repository, api::CallRunner& calls)
      : repository_(repository), calls_(calls) {}

  grpc::ServerUnaryReactor* CreateRoomBlock(grpc::CallbackServerContext* context,
                                            const hotel::v1::CreateRoomBlockRequest* request,
                                            hotel::v1::RoomBlock* response) override;
  grpc::ServerUnaryReactor* BatchCreateRoomBlocks(grpc::CallbackServerContext* context,
                                                  const hotel::v1::BatchCreateRoomBlocksRequest* request,
                                                  hotel::v1::BatchCreateRoomBlocksResponse* response) override;
  grpc::ServerUnaryReactor* GetRoomBlock(grpc::CallbackServerContext* context,
                                         const hotel::v1::GetRoomBlockRequest* request,
                                         hotel::v1::RoomBlock* response) override;
  grpc::ServerUnaryReactor* ListRoomBlocks(grpc::CallbackServerContext* context,
                                           const hotel::v1::ListRoomBlocksRequest* request,
                                           hotel::v1::ListRoomBlocksResponse* response) override;
  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  grpc::ServerUnaryReactor* UpdateRoomBlock(grpc::CallbackServerContext* context,
                                            const hotel::v1::UpdateRoomBlockRequest* request,
                                            hotel::v1::RoomBlock* response) override;
  grpc::ServerUnaryReactor* CancelRoomBlock(grpc::CallbackServerContext* context,
                                            const hotel::v1::CancelRoomBlockRequest* request,
                                            hotel::v1::RoomBlock* response) override;
  grpc::ServerUnaryReactor* GetPropertyAvailability(grpc::CallbackServerContext* context,
                                                    const hotel::v1::GetPropertyAvailabilityRequest* request,
                                                    hotel::v1::PropertyAvailability* response) override;

 private:
  RoomBlockRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::blocks
