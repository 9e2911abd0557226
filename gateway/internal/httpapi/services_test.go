package httpapi

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "hotel/gateway/gen/hotel/v1"
)

// Every service of hotel.v1 that grpc-gateway generated REST handlers for (it does for those
// with HTTP bindings) is registered by the gateway, and nothing else is.
func TestEveryServiceWithHTTPBindingsIsRegistered(t *testing.T) {
	generated := map[string]bool{}
	files, _ := filepath.Glob("../../gen/hotel/v1/*.pb.gw.go")
	handler := regexp.MustCompile(`(?m)^func Register(\w+)Handler\(`)
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range handler.FindAllSubmatch(text, -1) {
			generated[string(m[1])] = true
		}
	}
	registered := map[string]int{}
	for i, service := range Services {
		registered[service.Name] = i
	}
	protoServices := 0
	protoregistry.GlobalFiles.RangeFilesByPackage("hotel.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := range fd.Services().Len() {
			name := string(fd.Services().Get(i).Name())
			protoServices++
			if _, ok := registered[name]; generated[name] && !ok {
				t.Errorf("service %s has HTTP bindings but the gateway does not register it (services.go)", name)
			}
		}
		return true
	})
	if protoServices == 0 || len(generated) == 0 {
		t.Fatalf("%d services in proto/hotel/v1, %d with REST handlers: is gen/ built?", protoServices, len(generated))
	}
	for name := range registered {
		if !generated[name] {
			t.Errorf("services.go registers %s, which has no generated REST handlers", name)
		}
	}
}

// The mux is last-match-wins: GET /issues/stats is answered by StatsService only when it is
// registered after IssueService, whose GET /issues/{id} matches the same path.
func TestLiteralPathsAreRegisteredAfterThePatternsTheyMatch(t *testing.T) {
	order := map[string]int{}
	for i, service := range Services {
		order[service.Name] = i
	}
	if order["StatsService"] < order["IssueService"] {
		t.Errorf("StatsService (GET /issues/stats) is registered before IssueService (GET /issues/{id})")
	}
}
