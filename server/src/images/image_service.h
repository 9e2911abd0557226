// gRPC handlers of hotel.v1.ImageService: validate the request, read or change a gallery.
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
  grpc::ServerUnaryReactor* GetImage(grpc::CallbackServerContext*, const hotel::v1::GetImageRequest* request,
                                     hotel::v1::Image* response) override;
  grpc::ServerUnaryReactor* UpdateImage(grpc::CallbackServerContext*, const hotel::v1::UpdateImageRequest* request,
                                        hotel::v1::Image* response) override;
  grpc::ServerUnaryReactor* DeleteImage(grpc::CallbackServerContext*, const hotel::v1::DeleteImageRequest* request,
                                        hotel::v1::DeleteImageResponse* response) override;
  grpc::ServerUnaryReactor* ReorderRoomTypeImages(grpc::CallbackServerContext*,
                                                  const hotel::v1::ReorderRoomTypeImagesRequest* request,
                                                  hotel::v1::ListRoomTypeImagesResponse* response) override;
  grpc::ServerUnaryReactor* ReorderRoomImages(grpc::CallbackServerContext*,
                                              const hotel::v1::ReorderRoomImagesRequest* request,
                                              hotel::v1::ListRoomImagesResponse* response) override;

 private:
  ImageRepository& repository_;
  api::CallRunner& calls_;
};

}  // namespace hotel::images
