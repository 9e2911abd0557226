package main

import (
	"context"

	"google.golang.org/grpc"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

// registerFunc adds a service's generated REST handlers to the mux.
type registerFunc func(context.Context, *runtimeMux, *grpc.ClientConn) error

// services is every service of proto/hotel/v1 with HTTP bindings (http.yaml), by its proto name:
// services_test.go fails when the generated code has one that is not here.
var services = map[string]registerFunc{
	"RoomService":        hotelv1.RegisterRoomServiceHandler,
	"HealthService":      hotelv1.RegisterHealthServiceHandler,
	"EquipmentService":   hotelv1.RegisterEquipmentServiceHandler,
	"ScheduleService":    hotelv1.RegisterScheduleServiceHandler,
	"IssueService":       hotelv1.RegisterIssueServiceHandler,
	"MaintenanceService": hotelv1.RegisterMaintenanceServiceHandler,
	"StatsService":       hotelv1.RegisterStatsServiceHandler,
	"ImageService":       hotelv1.RegisterImageServiceHandler,
	"ChangeService":      hotelv1.RegisterChangeServiceHandler,
	"WebhookService":     hotelv1.RegisterWebhookServiceHandler,
	"RoomBlockService":   hotelv1.RegisterRoomBlockServiceHandler,
}
