// Package apijson is the API's JSON, the same for every answer, success or error.
package apijson

import "google.golang.org/protobuf/encoding/protojson"

// Options write proto field names, and unset fields too (null, [], {}, zero values).
var Options = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}
