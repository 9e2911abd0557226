// gRPC handlers of hotel.v1.ImageService: validate the owner, read its gallery.
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/images.grpc.pb.h"
#include "images/image_repository.h"

namespace hotel::images {

class ImageServiceImpl final : public hotel::v1::ImageService::CallbackService {
 public:
  ImageServiceImpl(ImageRepository& repository, api::CallRunner& calls) : repository_(repository), calls_(calls) {}

  grpc::ServerUnaryReactor* ListRoomTypeImages(grpc::CallbackServerContext*,
                                               const hotel::v1::ListRoomTypeImagesRequest* request,
                                               hotel::v1::ListRoomTypeImagesResponse* response) override;
  grpc::ServerUnaryReactor* ListRoomImages(grpc::CallbackServerContext*,
                                           const hotel::v1::ListRoomImagesRequest* request,
                                           hotel::v1::ListRoomImagesResponse* response) override;

 private:
  ImageRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::images
