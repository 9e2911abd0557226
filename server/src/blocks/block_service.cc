#include "blocks/block_service.h"

#include "absl/strings/ascii.h"
#include "api/gateway_metadata.h"
#include "api/handle_rpc.h"
#include "api/identifiers.h"
#include "api/read_mask.h"
#include "api/request_fields.h"
#include "api/update_mask.h"
#include "common/errors.h"

namespace hotel::blocks {

using hotel::v1::BatchCreateRoomBlocksRequest;
using hotel::v1::BatchCreateRoomBlocksResponse;
using hotel::v1::CancelRoomBlockRequest;
using hotel::v1::CreateRoomBlockRequest;
using hotel::v1::GetPropertyAvailabilityRequest;
using hotel::v1::GetRoomBlockRequest;
using hotel::v1::ListRoomBlocksRequest;
using hotel::v1::ListRoomBlocksResponse;
using hotel::v1::PropertyAvailability;
using hotel::v1::RoomBlock;
using hotel::v1::UpdateRoomBlockRequest;

grpc::ServerUnaryReactor* RoomBlockServiceImpl::CreateRoomBlock(grpc::CallbackServerContext* context,
                                                                const CreateRoomBlockRequest* request,
                                                                RoomBlock* response) {
  return calls_.Run(context, *request, api::Created(context, [=, this] {
                      return api::IfValid(ValidateCreateRoomBlock(*request),
                                          [&](const auto& block) { return repository_.Create(block, response); });
                    }));
}

grpc::ServerUnaryReactor* RoomBlockServiceImpl::BatchCreateRoomBlocks(grpc::CallbackServerContext* context,
                                                                      const BatchCreateRoomBlocksRequest* request,
                                                                      BatchCreateRoomBlocksResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ValidateBatchCreateRoomBlocks(*request),
                        [&](const auto& blocks) { return repository_.BatchCreate(blocks, response); });
  });
}

grpc::ServerUnaryReactor* RoomBlockServiceImpl::GetRoomBlock(grpc::CallbackServerContext* context,
                                                             const GetRoomBlockRequest* request, RoomBlock* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(api::ParseUuid("id", request->id()),
                                          [&](const auto& id) { return repository_.Get(id, response); });
                    }));
}

grpc::ServerUnaryReactor* RoomBlockServiceImpl::ListRoomBlocks(grpc::CallbackServerContext* context,
                                                               const ListRoomBlocksRequest* request,
                                                               ListRoomBlocksResponse* response) {
  return calls_.Run(context, *request, api::ReadMasked(context, *request, response, [=, this] {
                      return api::IfValid(ParseListRoomBlocks(*request),
                                          [&](const auto& query) { return repository_.List(query, response); });
                    }));
}

grpc::ServerUnaryReactor* RoomBlockServiceImpl::UpdateRoomBlock(grpc::CallbackServerContext* context,
                                                                const UpdateRoomBlockRequest* request,
                                                                RoomBlock* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()), [&](const auto& id) {
      return repository_.Update(id, request->room_block(), api::MaskPaths(request->update_mask()), if_match, response);
    });
  });
}

grpc::ServerUnaryReactor* RoomBlockServiceImpl::CancelRoomBlock(grpc::CallbackServerContext* context,
                                                                const CancelRoomBlockRequest* request,
                                                                RoomBlock* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this]() -> absl::Status {
    FieldErrors errors;
    api::Collect(api::ValidateUuid("id", request->id()), errors);
    const std::string actor = api::Actor(request->updated_by(), errors);
    if (!errors.empty()) return errors.ToStatus();
    return repository_.Cancel(absl::AsciiStrToLower(request->id()), request->etag(), if_match, actor, response);
  });
}

grpc::ServerUnaryReactor* RoomBlockServiceImpl::GetPropertyAvailability(grpc::CallbackServerContext* context,
                                                                        const GetPropertyAvailabilityRequest* request,
                                                                        PropertyAvailability* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(ParseGetPropertyAvailability(*request),
                        [&](const auto& query) { return repository_.Availability(query, response); });
  });
}

}  // namespace hotel::blocks
