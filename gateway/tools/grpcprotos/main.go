// Command grpcprotos writes the descriptors of grpc/reflection/v1/reflection.proto,
// grpc/reflection/v1alpha/reflection.proto and grpc/health/v1/health.proto, as compiled into the
// pinned grpc-go module, to a FileDescriptorSet. The C++ build feeds it to protoc
// (--descriptor_set_in): Debian's gRPC 1.51 ships neither the reflection v1 service, nor a
// callback v1alpha one, nor C++ classes for Health, and no .proto file is copied into the repo.
//
//	go run ./tools/grpcprotos <output.pb>
package main

import (
	"fmt"
	"os"

	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: grpcprotos <output.pb>")
		os.Exit(2)
	}
	set := &descriptorpb.FileDescriptorSet{}
	set.File = append(set.File,
		protodesc.ToFileDescriptorProto(grpc_reflection_v1.File_grpc_reflection_v1_reflection_proto),
		protodesc.ToFileDescriptorProto(grpc_reflection_v1alpha.File_grpc_reflection_v1alpha_reflection_proto),
		protodesc.ToFileDescriptorProto(grpc_health_v1.File_grpc_health_v1_health_proto))
	out, err := proto.Marshal(set)
	if err == nil {
		err = os.WriteFile(os.Args[1], out, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpcprotos:", err)
		os.Exit(1)
	}
}
