// gRPC handlers of hotel.v1.ImageService: validate the request, read or change a gallery;
// uploads go to ImageUploads.
#pragma once

#include "api/call_runner.h"
#include "hotel/v1/images.grpc.pb.h"
#include "images/image_repository.h"

namespace hotel::images {

// The UploadImage calls: images/ingest/image_upload.h implements them (with the renderer, which
// this library does not link).
class ImageUploads {
 public:
  virtual ~ImageUploads() = default;
  virtual grpc::ServerReadReactor<hotel::v1::UploadImageRequest>* Upload(grpc::CallbackServerContext* context,
                                                                         hotel::v1::UploadImageResponse* response) = 0;
};

class ImageServiceImpl final : public hotel::v1::ImageService::CallbackService {
 public:
  // Without uploads, UploadImage answers UNIMPLEMENTED.
  ImageServiceImpl(ImageRepository& repository, api::CallRunner& calls, ImageUploads* uploads = nullptr)
      : repository_(repository), calls_(calls), uploads_(uploads) {}

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
  grpc::ServerReadReactor<hotel::v1::UploadImageRequest>* UploadImage(
      grpc::CallbackServerContext* context, hotel::v1::UploadImageResponse* response) override;

 private:
  ImageRepository& repository_;
  api::CallRunner& calls_;
  ImageUploads* const uploads_;
};

}  // namespace hotel::images
