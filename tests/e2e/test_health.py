"""Health over REST and the standard gRPC health service, plus reflection via grpcurl."""
import json

from stack import VERSION


def test_health_reports_version_uptime_and_database(api):
    resp = api.get("/health")
    assert resp.status == 200, resp
    body = resp.json
    assert body["status"] == "SERVING" and body["version"] == VERSION
    assert int(body["uptime_seconds"]) >= 0
    database = next(c for c in body["checks"] if c["name"] == "database")
    assert database["status"] == "SERVING" and database["latency_ms"] >= 0


def test_liveness_and_startup(api):
    live = api.get("/health/live")
    assert live.status == 200 and live.json["status"] == "SERVING"
    startup = api.get("/health/startup")
    assert startup.status == 200 and startup.json["schema_version"] >= 2


def test_grpc_health_probe_reports_serving(api):
    for service in ("", "hotel.v1.RoomService"):
        out = api.tool("grpc-health-probe", "-addr", api.grpc_addr, "-service", service)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "SERVING" in out.stdout + out.stderr


def test_grpcurl_lists_and_calls_through_reflection(api):
    listed = api.tool("grpcurl", "-plaintext", api.grpc_addr, "list")
    assert listed.returncode == 0, listed.stderr
    for service in ("hotel.v1.RoomService", "hotel.v1.HealthService", "grpc.health.v1.Health"):
        assert service in listed.stdout.split()
    call = api.tool("grpcurl", "-plaintext", "-d", '{"property_id": "BER1", "number": "101"}',
                    api.grpc_addr, "hotel.v1.RoomService/GetRoom")
    assert call.returncode == 0, call.stderr
    room = json.loads(call.stdout)
    assert room.get("room_type_id", room.get("roomTypeId")) == "BER1-STD"


def test_grpc_errors_carry_reason_and_field_violations(api):
    call = api.tool("grpcurl", "-plaintext", "-format-error", "-d", '{"number": "101"}',
                    api.grpc_addr, "hotel.v1.RoomService/GetRoom")
    assert call.returncode != 0
    error = json.loads(call.stdout or call.stderr)
    assert error["code"] == 3
    reasons = [d.get("reason") for d in error["details"]]
    assert "PROPERTY_ID_REQUIRED" in reasons
