// Command grpcprotos writes the descriptors of grpc/reflection/v1/reflection.proto,
// grpc/reflection/v1alpha/reflection.proto and grpc/health/v1/health.proto, as compiled into the
// pinned grpc-go module, and of google/rpc/status.proto and google/rpc/error_details.proto, as
// compiled into the pinned genproto module (with the well-known types they import), to a
// FileDescriptorSet. The C++ build feeds it to protoc (--descriptor_set_in): Debian's gRPC 1.51
// ships neither the reflection v1 service, nor a callback v1alpha one, nor C++ classes for Health,
// Debian has no google/rpc protos, and no .proto file is copied into the repo. go.sum pins them all,
// so the build needs neither pip nor PyPI.
//
//	go run ./tools/grpcprotos <output.pb>
package main

import (
	"fmt"
	"os"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: grpcprotos <output.pb>")
		os.Exit(2)
	}
	set := &descriptorpb.FileDescriptorSet{}
	rpc := []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(status.File_google_rpc_status_proto),
		protodesc.ToFileDescriptorProto(errdetails.File_google_rpc_error_details_proto),
	}
	// As protoc compiles a .proto file, with no json_name its fields do not declare: the descriptors the
	// server's reflection serves (grpcurl prints error details by them) stay those of the .proto files.
	for _, file := range rpc {
		for _, message := range file.MessageType {
			clearJSONNames(message)
		}
	}
	set.File = append(set.File,
		protodesc.ToFileDescriptorProto(grpc_reflection_v1.File_grpc_reflection_v1_reflection_proto),
		protodesc.ToFileDescriptorProto(grpc_reflection_v1alpha.File_grpc_reflection_v1alpha_reflection_proto),
		protodesc.ToFileDescriptorProto(grpc_health_v1.File_grpc_health_v1_health_proto),
		protodesc.ToFileDescriptorProto(anypb.File_google_protobuf_any_proto),
		protodesc.ToFileDescriptorProto(durationpb.File_google_protobuf_duration_proto))
	set.File = append(set.File, rpc...)
	out, err := proto.Marshal(set)
	if err == nil {
		err = os.WriteFile(os.Args[1], out, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpcprotos:", err)
		os.Exit(1)
	}
}

func clearJSONNames(message *descriptorpb.DescriptorProto) {
	for _, field := range message.Field {
		field.JsonName = nil
	}
	for _, nested := range message.NestedType {
		clearJSONNames(nested)
	}
}
