"""The gRPC side of the contract with real clients: reflection v1 beside v1alpha (grpcurl and a
raw v1 stream), grpc.health.v1.Health described through reflection, and invalid UTF-8 in a string
field answered INVALID_ARGUMENT naming the field, with nothing but JSON in the server log."""
import json

import grpc
import pytest


def field(number, value):
    """One length-delimited protobuf field (value shorter than 128 bytes)."""
    return bytes([(number << 3) | 2, len(value)]) + value


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_reflection_lists_every_service_in_both_versions(api, version):
    out = api.tool("grpcurl", "-plaintext", "-d", '{"list_services": ""}', api.grpc_addr,
                   f"grpc.reflection.{version}.ServerReflection/ServerReflectionInfo")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    # grpcurl names v1alpha's fields as its descriptor spells them (list_services_response).
    names = {s["name"] for s in (body.get("listServicesResponse") or body["list_services_response"])["service"]}
    assert {"grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
            "hotel.v1.RoomService", "hotel.v1.IssueService", "hotel.v1.ImageService"} <= names, names


def test_reflection_v1_serves_file_descriptors(api):
    out = api.tool("grpcurl", "-plaintext", "-d", '{"file_containing_symbol": "hotel.v1.RoomService"}', api.grpc_addr,
                   "grpc.reflection.v1.ServerReflection/ServerReflectionInfo")
    assert out.returncode == 0, out.stderr
    files = json.loads(out.stdout)["fileDescriptorResponse"]["fileDescriptorProto"]
    assert len(files) >= 2  # rooms.proto and what it imports
    missing = api.tool("grpcurl", "-plaintext", "-d", '{"file_containing_symbol": "no.such.Thing"}', api.grpc_addr,
                       "grpc.reflection.v1.ServerReflection/ServerReflectionInfo")
    assert json.loads(missing.stdout)["errorResponse"]["errorCode"] == 5  # NOT_FOUND


def test_health_can_be_described_and_called(api):
    described = api.tool("grpcurl", "-plaintext", api.grpc_addr, "describe", "grpc.health.v1.Health")
    assert described.returncode == 0, described.stderr
    assert "rpc Check ( .grpc.health.v1.HealthCheckRequest )" in described.stdout
    message = api.tool("grpcurl", "-plaintext", api.grpc_addr, "describe", "grpc.health.v1.HealthCheckResponse")
    assert "SERVING" in message.stdout
    check = api.tool("grpcurl", "-plaintext", "-d", '{"service": "hotel.v1.RoomService"}', api.grpc_addr,
                     "grpc.health.v1.Health/Check")
    assert check.returncode == 0 and json.loads(check.stdout)["status"] == "SERVING", check.stdout + check.stderr


@pytest.mark.parametrize("method,request_bytes,field_name", [
    ("/hotel.v1.IssueService/CreateIssue", field(1, b"BER1") + field(2, b"101") + field(4, b"bad \xff title"), "title"),
    ("/hotel.v1.RoomService/GetRoom", field(1, b"BER1") + field(2, b"\xc3\x28"), "number"),
    ("/hotel.v1.RoomService/ListRooms", field(1, b"\xe2\x82"), "property_id"),
])
def test_invalid_utf8_is_invalid_argument_naming_the_field(api, method, request_bytes, field_name):
    with grpc.insecure_channel(api.grpc_addr) as channel:
        with pytest.raises(grpc.RpcError) as refused:
            channel.unary_unary(method)(request_bytes, timeout=5)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, refused.value
    assert refused.value.details() == f"{field_name}: must be valid UTF-8 text"
    details = dict(refused.value.trailing_metadata())["grpc-status-details-bin"]
    assert field_name.encode() in details and b"google.rpc.BadRequest" in details
    # The server log stays JSON: no "[libprotobuf ERROR]" line.
    with open(api.server_log) as log:
        for line in log:
            json.loads(line)
