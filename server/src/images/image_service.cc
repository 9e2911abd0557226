#include "images/image_service.h"

#include "api/gateway_metadata.h"
#include "api/identifiers.h"
#include "api/update_mask.h"
#include "images/image_request.h"

namespace hotel::images {
namespace {

namespace v1 = hotel::v1;

// A gallery response: the images and their etag.
template <typename Response>
absl::Status WithGalleryEtag(absl::Status status, Response* response) {
  if (status.ok()) response->set_etag(GalleryEtag(response->data()));
  return status;
}

// Reorders owner's gallery as order says, into response.
template <typename Response>
absl::Status Reorder(ImageRepository& repository, const ImageOwner& owner, const v1::GalleryOrder& order,
                     absl::string_view if_match, Response* response) {
  auto ids = ParseGalleryOrder(order);
  if (!ids.ok()) return ids.status();
  return WithGalleryEtag(repository.Reorder(owner, *ids, order.etag(), if_match, response->mutable_data()), response);
}

}  // namespace

grpc::ServerUnaryReactor* ImageServiceImpl::ListRoomTypeImages(grpc::CallbackServerContext* context,
                                                               const v1::ListRoomTypeImagesRequest* request,
                                                               v1::ListRoomTypeImagesResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidateRoomTypeId("room_type_id", request->room_type_id()), [&] {
      return WithGalleryEtag(repository_.List(ImageOwner::RoomType(request->room_type_id()), response->mutable_data()),
                             response);
    });
  });
}

grpc::ServerUnaryReactor* ImageServiceImpl::ListRoomImages(grpc::CallbackServerContext* context,
                                                           const v1::ListRoomImagesRequest* request,
                                                           v1::ListRoomImagesResponse* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidateRoomAddress(request->property_id(), request->number()), [&] {
      return WithGalleryEtag(
          repository_.List(ImageOwner::Room(request->property_id(), request->number()), response->mutable_data()),
          response);
    });
  });
}

grpc::ServerUnaryReactor* ImageServiceImpl::GetImage(grpc::CallbackServerContext* context,
                                                     const v1::GetImageRequest* request, v1::Image* response) {
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()),
                        [&](const auto& id) { return repository_.Get(id, response); });
  });
}

grpc::ServerUnaryReactor* ImageServiceImpl::UpdateImage(grpc::CallbackServerContext* context,
                                                        const v1::UpdateImageRequest* request, v1::Image* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()), [&](const auto& id) {
      return repository_.Update(id, request->image(), api::MaskPaths(request->update_mask()), if_match, response);
    });
  });
}

grpc::ServerUnaryReactor* ImageServiceImpl::DeleteImage(grpc::CallbackServerContext* context,
                                                        const v1::DeleteImageRequest* request,
                                                        v1::DeleteImageResponse* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ParseUuid("id", request->id()), [&](const std::string& id) {
      if (auto s = repository_.Delete(id, request->etag(), if_match); !s.ok()) return s;
      response->set_id(id);
      return absl::OkStatus();
    });
  });
}

grpc::ServerUnaryReactor* ImageServiceImpl::ReorderRoomTypeImages(grpc::CallbackServerContext* context,
                                                                  const v1::ReorderRoomTypeImagesRequest* request,
                                                                  v1::ListRoomTypeImagesResponse* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidateRoomTypeId("room_type_id", request->room_type_id()), [&] {
      return Reorder(repository_, ImageOwner::RoomType(request->room_type_id()), request->order(), if_match, response);
    });
  });
}

grpc::ServerUnaryReactor* ImageServiceImpl::ReorderRoomImages(grpc::CallbackServerContext* context,
                                                              const v1::ReorderRoomImagesRequest* request,
                                                              v1::ListRoomImagesResponse* response) {
  const std::string if_match = api::IfMatchHeader(context);
  return calls_.Run(context, *request, [=, this] {
    return api::IfValid(api::ValidateRoomAddress(request->property_id(), request->number()), [&] {
      return Reorder(repository_, ImageOwner::Room(request->property_id(), request->number()), request->order(),
                     if_match, response);
    });
  });
}

grpc::ServerReadReactor<v1::UploadImageRequest>* ImageServiceImpl::UploadImage(grpc::CallbackServerContext* context,
                                                                               v1::UploadImageResponse* response) {
  if (uploads_ != nullptr) return uploads_->Upload(context, response);
  // A reactor that refuses at once: this server was built without the renderer.
  class Unimplemented : public grpc::ServerReadReactor<v1::UploadImageRequest> {
   public:
    Unimplemented() { Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "uploads are not enabled")); }
    void OnDone() override { delete this; }
  };
  return new Unimplemented;
}

}  // namespace hotel::images
