package httpapi

import (
	"context"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

// Service is one proto service's name and the registration of its generated REST handlers.
type Service struct {
	Name     string
	Register func(context.Context, *runtime.ServeMux, *grpc.ClientConn) error
}

// Services is every service of proto/hotel/v1 with HTTP bindings (http.yaml), by its proto name:
// services_test.go fails when the generated code has one that is not here. They are registered in
// this order, and grpc-gateway's mux is last-match-wins: a literal path must come after the
// pattern it also matches (StatsService's GET /issues/stats after IssueService's GET /issues/{id}).
var Services = []Service{
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
