// Command baregateway is the floor of tests/perf/gateway_cpu_bench.py: grpc-gateway's generated
// handlers for the benchmarked services on a runtime.ServeMux with the API's JSON options, served by
// net/http, with nothing else (no limits, logs, metrics or traces).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof" // on http.DefaultServeMux, served only with -pprof (tests/perf/gateway_profile.py --bare)

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "listen address")
	backend := flag.String("grpc-server", "127.0.0.1:50051", "hotel-server address")
	pprof := flag.String("pprof", "", "serve Go's profiles on this address (loopback)")
	flag.Parse()
	if *pprof != "" {
		go func() { log.Fatal(http.ListenAndServe(*pprof, nil)) }()
	}
	conn, err := grpc.NewClient(*backend, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	mux := runtime.NewServeMux(runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.JSONPb{
		MarshalOptions: protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}}))
	for _, register := range []func(context.Context, *runtime.ServeMux, *grpc.ClientConn) error{
		hotelv1.RegisterRoomServiceHandler, hotelv1.RegisterIssueServiceHandler, hotelv1.RegisterHealthServiceHandler,
	} {
		if err := register(context.Background(), mux, conn); err != nil {
			log.Fatal(err)
		}
	}
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("baregateway listening on http://%s\n", listener.Addr())
	log.Fatal(http.Serve(listener, mux))
}
