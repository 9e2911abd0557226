#include "images/image_service.h"

#include "api/identifiers.h"

namespace hotel::images {

using hotel::v1::ListRoomImagesRequest;
using hotel::v1::ListRoomImagesResponse;
using hotel::v1::ListRoomTypeImagesRequest;
using hotel::v1::ListRoomTypeImagesResponse;

grpc::ServerUnaryReactor* ImageServiceImpl::ListRoomTypeImages(grpc::CallbackServerContext* context,
                                                               const ListRoomTypeImagesRequest* request,
                                                               ListRoomTypeImagesResponse* response) {
  return calls_.Run(context, *request, [=, this]() -> absl::Status {
    if (auto s = api::ValidateRoomTypeId("room_type_id", request->room_type_id()); !s.ok()) return s;
    return repository_.List(ImageOwner::RoomType(request->room_type_id()), response->mutable_data());
  });
}

grpc::ServerUnaryReactor* ImageServiceImpl::ListRoomImages(grpc::CallbackServerContext* context,
                                                           const ListRoomImagesRequest* request,
                                                           ListRoomImagesResponse* response) {
  return calls_.Run(context, *request, [=, this]() -> absl::Status {
    if (auto s = api::ValidateRoomAddress(request->property_id(), request->number()); !s.ok()) return s;
    return repository_.List(ImageOwner::Room(request->property_id(), request->number()), response->mutable_data());
  });
}

grpc::ServerReadReactor<hotel::v1::UploadImageRequest>* ImageServiceImpl::UploadImage(
    grpc::CallbackServerContext* context, hotel::v1::UploadImageResponse* response) {
  if (uploads_ != nullptr) return uploads_->Upload(context, response);
  // A reactor that refuses at once: this server was built without the renderer.
  class Unimplemented : public grpc::ServerReadReactor<hotel::v1::UploadImageRequest> {
   public:
    Unimplemented() { Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "uploads are not enabled")); }
    void OnDone() override { delete this; }
  };
  return new Unimplemented;
}

}  // namespace hotel::images
