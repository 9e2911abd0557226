// gRPC handlers of hotel.v1.ImageService: validate the owner, read its gallery.
#pragma once

#include "api/handle_rpc.h"
#include "hotel/v1/images.grpc.pb.h"
#include "images/image_repository.h"

namespace hotel::images {

class ImageServiceImpl final : public hotel::v1::ImageService::CallbackService {
 public:
  ImageServiceImpl(ImageRepository& repository, const api::Readiness& readiness)
      : repository_(repository), readiness_(readiness) {}

  grpc::ServerUnaryReactor* ListRoomTypeImages(grpc::CallbackServerContext*,
                                               const hotel::v1::ListRoomTypeImagesRequest* request,
                                               hotel::v1::ListRoomTypeImagesResponse* response) override;
  grpc::ServerUnaryReactor* ListRoomImages(grpc::CallbackServerContext*,
                                           const hotel::v1::ListRoomImagesRequest* request,
                                           hotel::v1::ListRoomImagesResponse* response) override;

 private:
  ImageRepository& repository_;
  const api::Readiness& readiness_;
};

}  // namespace hotel::images
