// Read masks (AIP-157) of the gets, lists and batch gets: a request's optional `read_mask`
// (google.protobuf.FieldMask) names the fields of the resource to return. Any request message
// with a field of that name takes part; its handler wraps its body in ReadMasked, the one place
// a mask is checked and applied (docs/room-data.md, "Read masks").
#pragma once

#include <grpcpp/server_context.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/handle_rpc.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace hotel::api {

class ReadMask {
 public:
  // The mask a request asks for over the resources of response (a message of its method's
  // response type): the response itself, or, for a list or batch response (a type whose name
  // ends in "Response"), each element of its one repeated message field ("data", "rooms").
  // Paths are proto field names; nested fields by dots ("images.id"), also through repeated
  // messages (applied to every element). No read_mask field, no paths or a "*" path: the whole
  // resource. INVALID_ARGUMENT naming read_mask and each path that is no field.
  static absl::StatusOr<ReadMask> Of(const google::protobuf::Message& request,
                                     const google::protobuf::Descriptor& response);
  // The same, from the paths themselves.
  static absl::StatusOr<ReadMask> FromPaths(const std::vector<std::string>& paths,
                                            const google::protobuf::Descriptor& response);

  // True when the mask keeps everything (nothing to do).
  bool all() const { return all_; }
  // Clears every field outside the mask, of response or of each resource it lists.
  void Apply(google::protobuf::Message* response) const;
  // The mask over the whole response, comma-separated, in the order of the paths' names: a list's
  // paths under its collection field plus the response's other fields ("data.number,
  // next_page_token"). The gateway writes only these fields into JSON.
  std::string ResponsePaths() const;
  // Whether the resource's own field (top level) is kept.
  bool Keeps(const std::string& field) const { return all_ || root_.children.contains(field); }
  // The field of the response that lists the resources; null when the response is the resource.
  const google::protobuf::FieldDescriptor* collection() const { return collection_; }

 private:
  // A field kept: whole (no children) or only the named fields of its message.
  struct Node {
    std::map<std::string, Node> children;
  };

  ReadMask(const google::protobuf::Descriptor& response, const google::protobuf::FieldDescriptor* collection)
      : response_(&response), collection_(collection) {}
  static void Trim(const Node& node, google::protobuf::Message* message);

  const google::protobuf::Descriptor* response_;
  const google::protobuf::FieldDescriptor* collection_;
  bool all_ = true;
  Node root_;
};

// Metadata keys read by the gateway: the response's paths (it writes only those fields into
// JSON, which otherwise shows every field) and a single resource's HTTP ETag when its etag field
// is not it: when the mask leaves the etag out (the ETag header stays the full resource's), or
// when parts of it have etags of their own (a room's housekeeping, api::RepresentationEtag).
inline constexpr char kReadMaskHeader[] = "x-read-mask";
inline constexpr char kResourceEtagHeader[] = "x-resource-etag";

// body, with request's read mask checked before it runs and applied to response after it
// succeeds (telling the gateway through the metadata above).
RpcBody ReadMasked(grpc::ServerContextBase* context, const google::protobuf::Message& request,
                   google::protobuf::Message* response, RpcBody body);

}  // namespace hotel::api
