package main

import (
	"context"

	"google.golang.org/grpc"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

// registerFunc adds a service's generated REST handlers to the mux.
type registerFunc func(context.Context, *runtimeMux, *grpc.ClientConn) error

// service is one proto service's name and the registration of its generated REST handlers.
type service struct {
	name     string
	register registerFunc
}

// services is every service of proto/hotel/v1 with HTTP bindings (http.yaml), by its proto name:
// services_test.go fails when the generated code has one that is not here. They are registered in
// this order, and grpc-gateway's mux is last-match-wins: a literal path must come after the
// pattern it also matches (StatsService's GET /issues/stats after IssueService's GET /issues/{id}).
var services = []service{
	{"RoomService", hotelv1.RegisterRoomServiceHandler},
	{"HealthService", hotelv1.RegisterHealthServiceHandler},
	{"EquipmentService", hotelv1.RegisterEquipmentServiceHandler},
	{"ScheduleService", hotelv1.RegisterScheduleServiceHandler},
	{"IssueService", hotelv1.RegisterIssueServiceHandler},
	{"MaintenanceService", hotelv1.RegisterMaintenanceServiceHandler},
	{"StatsService", hotelv1.RegisterStatsServiceHandler},
	{"ImageService", hotelv1.RegisterImageServiceHandler},
	{"ChangeService", hotelv1.RegisterChangeServiceHandler},
	{"WebhookService", hotelv1.RegisterWebhookServiceHandler},
	{"RoomBlockService", hotelv1.RegisterRoomBlockServiceHandler},
	{"HousekeepingService", hotelv1.RegisterHousekeepingServiceHandler},
}
