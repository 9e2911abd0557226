package httpapi

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"hotel/gateway"
	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/telemetry"
)

// operation is what one operation of the OpenAPI document takes in its query.
type operation struct {
	name  string          // "GET /api/v1/rooms", as the document has it
	query map[string]bool // each parameter's proto name, and its JSON name (grpc-gateway reads both)
	names []string        // the proto names, in the document's order
}

// operations are the OpenAPI document's operations, by "<METHOD> <path>" ("GET /api/v1/rooms/{number}").
var operations = readOperations(gateway.OpenAPI)

func readOperations(document []byte) map[string]*operation {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(document, &doc); err != nil {
		panic("the embedded OpenAPI document: " + err.Error())
	}
	ops := map[string]*operation{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
				Parameters  []struct{ Name, In string }
			}
			if json.Unmarshal(raw, &op) != nil || op.OperationID == "" {
				continue // not an operation (a summary, path-wide parameters)
			}
			o := &operation{name: strings.ToUpper(method) + " " + path, query: map[string]bool{}}
			input := requestMessage(op.OperationID)
			for _, p := range op.Parameters {
				if p.In != "query" {
					continue
				}
				o.names, o.query[p.Name] = append(o.names, p.Name), true
				if input != nil {
					o.query[jsonPath(input, p.Name)] = true
				}
			}
			ops[o.name] = o
		}
	}
	return ops
}

// requestMessage is the request message of an operation id such as RoomService_ListRooms, nil
// for one that is not an RPC of its own (the uploads).
func requestMessage(operationID string) protoreflect.MessageDescriptor {
	service, method, _ := strings.Cut(operationID, "_")
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName("hotel.v1." + service))
	if err != nil {
		return nil
	}
	if m := d.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(method)); m != nil {
		return m.Input()
	}
	return nil
}

// jsonPath is a parameter's dotted proto path in JSON names (read_mask: readMask).
func jsonPath(message protoreflect.MessageDescriptor, path string) string {
	var out []string
	for part := range strings.SplitSeq(path, ".") {
		if message == nil || message.Fields().ByName(protoreflect.Name(part)) == nil {
			return path
		}
		field := message.Fields().ByName(protoreflect.Name(part))
		out, message = append(out, field.JSONName()), field.Message()
	}
	return strings.Join(out, ".")
}

// unknownQuery refuses the first parameter (by name) the operation does not take.
func (o *operation) unknownQuery(r *http.Request) *status.Status {
	if r.URL.RawQuery == "" {
		return nil
	}
	// The URL's query only: r.Form would also read a body sent as a form (curl -d's default type).
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil // a malformed query is the handler's to refuse
	}
	var unknown []string
	for key := range query {
		if !o.query[key] {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	takes := "takes no query parameters"
	if len(o.names) > 0 {
		takes = "takes " + strings.Join(o.names, ", ")
	}
	field := slices.Min(unknown)
	return apierror.Field(codes.InvalidArgument, "UNKNOWN_FIELD", field+": not a query parameter of "+o.name+", which "+
		takes, field, "is not a query parameter of this operation, which "+takes)
}

// knownQuery refuses a query parameter the route's operation does not take (a route served by hand).
func knownQuery(pattern string) middleware {
	op := operations[pattern]
	return func(next http.Handler) http.Handler {
		if op == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if st := op.unknownQuery(r); st != nil {
				apierror.Write(w, st)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// knownQueryParameters is knownQuery for the generated handlers, a grpc-gateway middleware: it runs
// once the mux has matched a pattern. Each pattern's handler is wrapped apart, so its operation is
// looked up once.
func knownQueryParameters(next runtime.HandlerFunc) runtime.HandlerFunc {
	var op atomic.Pointer[operation]
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if op.Load() == nil {
			pattern, _ := runtime.HTTPPattern(r.Context())
			op.Store(cmp.Or(operations[r.Method+" "+telemetry.PatternRoute(pattern)], &operation{}))
		}
		if o := op.Load(); o.name != "" {
			if st := o.unknownQuery(r); st != nil {
				apierror.Write(w, st)
				return
			}
		}
		next(w, r, params)
	}
}
