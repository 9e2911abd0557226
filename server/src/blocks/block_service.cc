#include "blocks/block_service.h"

#include "absl/strings/ascii.h"
#include "api/area_service.h"
#include "api/gateway_metadata.h"
#include "api/handle_rpc.h"
#include "api/identifiers.h"
#include "api/read_mask.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "blocks/block_repository.h"
#include "common/errors.h"
#include "hotel/v1/room_blocks.grpc.pb.h"

namespace hotel::blocks {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

namespace v1 = hotel::v1;

class RoomBlockServiceImpl final : public api::AreaService<v1::RoomBlockService, RoomBlockRepository> {
 public:
  using AreaService::AreaService;

  ServerUnaryReactor* CreateRoomBlock(CallbackServerContext* context, const v1::CreateRoomBlockRequest* request,
                                      v1::RoomBlock* response) override {
    return calls_.Run(context, *request, api::Created(context, [=, this] {
                        return api::IfValid(ValidateCreateRoomBlock(*request),
                                            [&](const auto& block) { return repository_.Create(block, response); });
                      }));
  }

  ServerUnaryReactor* BatchCreateRoomBlocks(CallbackServerContext* context,
                                            const v1::BatchCreateRoomBlocksRequest* request,
                                            v1::BatchCreateRoomBlocksResponse* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ValidateBatchCreateRoomBlocks(*request),
                          [&](const auto& blocks) { return repository_.BatchCreate(blocks, response); });
    });
  }

  ServerUnaryReactor* GetRoomBlock(CallbackServerContext* context, const v1::GetRoomBlockRequest* request,
                                   v1::RoomBlock* response) override {
    return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                        return api::IfValid(api::ParseUuid("id", request->id()),
                                            [&](const auto& id) { return repository_.Get(id, response); });
                      }));
  }

  ServerUnaryReactor* ListRoomBlocks(CallbackServerContext* context, const v1::ListRoomBlocksRequest* request,
                                     v1::ListRoomBlocksResponse* response) override {
    return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                        return api::IfValid(ParseListRoomBlocks(*request),
                                            [&](const auto& query) { return repository_.List(query, response); });
                      }));
  }

  // The If-Match header arrives as gRPC metadata "if-match" (api::IfMatchHeader).
  ServerUnaryReactor* UpdateRoomBlock(CallbackServerContext* context, const v1::UpdateRoomBlockRequest* request,
                                      v1::RoomBlock* response) override {
    const std::string if_match = api::IfMatchHeader(context);
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(api::ParseUuid("id", request->id()), [&](const auto& id) {
        return repository_.Update(id, request->room_block(), api::MaskPaths(request->update_mask()), if_match,
                                  response);
      });
    });
  }

  ServerUnaryReactor* CancelRoomBlock(CallbackServerContext* context, const v1::CancelRoomBlockRequest* request,
                                      v1::RoomBlock* response) override {
    const std::string if_match = api::IfMatchHeader(context);
    return calls_.Run(context, *request, [=, this]() -> absl::Status {
      FieldErrors errors;
      api::Collect(api::ValidateUuid("id", request->id()), errors);
      const std::string actor = api::Actor(request->updated_by(), errors);
      if (!errors.empty()) return errors.ToStatus();
      return repository_.Cancel(absl::AsciiStrToLower(request->id()), request->etag(), if_match, actor, response);
    });
  }

  ServerUnaryReactor* GetPropertyAvailability(CallbackServerContext* context,
                                              const v1::GetPropertyAvailabilityRequest* request,
                                              v1::PropertyAvailability* response) override {
    return calls_.Run(context, *request, [=, this] {
      return api::IfValid(ParseGetPropertyAvailability(*request),
                          [&](const auto& query) { return repository_.Availability(query, response); });
    });
  }
};

}  // namespace

std::unique_ptr<grpc::Service> NewRoomBlockService(db::ConnectionPool& pool, api::CallRunner& calls) {
  return std::make_unique<RoomBlockServiceImpl>(pool, calls);
}

}  // namespace hotel::blocks
