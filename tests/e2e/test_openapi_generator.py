"""OpenAPI Generator (7.17.0 from Maven Central, the generator most teams reach for first): its
Python client and its Java client (library native, compiled with its dependencies from Maven
Central), each generated untouched from the served document (only the base URL set), call every
operation against a stack of their own and get each answer as the model the document declares:
the date-time filters in the generator's own format (`...+0000` in Python, OffsetDateTime in
Java), a conditional GET with the ETag (304), three events read from the change stream
(docs/changes.md shows how), and a webhook's create, ping, resend and delete against a loopback
receiver, and uploads (multipart/form-data) of a JPEG made with Pillow. The Java client runs the
same calls through tests/clients/openapi-generator/Calls.java."""
import datetime
import json
import os
import subprocess
import uuid

import pytest
from PIL import Image, ImageDraw

from openapi_generator import JavaCalls, PythonCalls, java_client, python_client, seeded_stack
from stack import ROOT, wait_for
from webhook_receiver import Receiver

SERVER_ARGS = ["--webhook-retry-scale=0.0002", "--webhook-poll-interval=10ms"]


@pytest.fixture(scope="module")
def stack():
    s = seeded_stack("hotel_openapi_generator", SERVER_ARGS)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def generated(stack, tmp_path_factory):
    resp = stack.get("/openapi.json")
    assert resp.status == 200, resp
    path = tmp_path_factory.mktemp("openapi") / "openapi.json"
    path.write_text(resp.text)
    return resp.json, str(path)


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    """A small JPEG made with Pillow, and a file that is no picture whatever its name says."""
    folder = tmp_path_factory.mktemp("pictures")
    image = Image.new("RGB", (320, 240), (160, 90, 40))
    ImageDraw.Draw(image).rectangle((40, 40, 200, 160), fill=(30, 180, 230))
    image.save(folder / "photo.jpg", "JPEG", quality=85)
    (folder / "page.jpg").write_text("<!DOCTYPE html><html><body>not a picture</body></html>")
    return {"photo": str(folder / "photo.jpg"), "not_a_picture": str(folder / "page.jpg")}


@pytest.fixture(scope="module")
def python(stack, generated):
    return PythonCalls(python_client(generated[1], "hotel_openapi_generator"), stack.root)


def declared_model(doc, operation_id):
    """The schema name of an operation's success answer ("" when it has none)."""
    for item in doc["paths"].values():
        for op in item.values():
            if op["operationId"] == operation_id:
                ok = next(r for code, r in op["responses"].items() if code.startswith("2"))
                schema = ok.get("content", {}).get("application/json", {}).get("schema", {})
                return schema.get("$ref", "").rsplit("/", 1)[-1]
    raise AssertionError(operation_id)


def refused(client, status, reason, op_id, *args, **kw):
    """A call the server refuses: status, and the reason of its ErrorInfo."""
    with pytest.raises(client.ApiError) as error:
        client.call(op_id, *args, **kw)
    assert error.value.status == status, error.value
    details = json.loads(error.value.body)["details"]
    assert [d["reason"] for d in details if d["@type"].endswith("ErrorInfo")] == [reason], details
    return details


def every_operation(client, doc, suffix, pictures):
    """Calls every operation of doc through client (PythonCalls or JavaCalls); the properties it
    makes end with suffix, so both clients run on one stack. pictures: paths of a JPEG ("photo")
    and of a file that is none ("not_a_picture") to upload."""
    m = client.models
    answers = {}

    def call(op_id, *args, **kw):
        answer = client.call(op_id, *args, **kw)
        answers.setdefault(op_id, answer)
        return answer

    # Rooms: reads of the seeded data, then a property of its own made and changed.
    call("RoomService_ListProperties")
    prop = call("RoomService_GetProperty", "BER1")
    call("RoomService_ListAmenities")
    call("RoomService_ListRoomTypes", property_id="BER1")
    call("RoomService_ListPropertyRoomTypes", "BER1")
    call("RoomService_GetRoomType", "BER1-STD")
    call("RoomService_ListRooms", page_size=5)
    call("RoomService_ListPropertyRooms", "BER1")
    call("RoomService_GetRoom", "101", property_id="BER1")
    call("RoomService_BatchGetRooms", property_id="BER1", numbers=["305", "101"])
    created = call("RoomService_CreateProperty", m.CreatePropertyRequest(
        id="OG" + suffix, name="Generator House", time_zone="Europe/Rome", city="Rome", country_code="IT",
        request_id=str(uuid.uuid4())))
    call("RoomService_UpdateProperty", "OG" + suffix, m.PropertyUpdate(name="Generator Hall"),
         if_match=f'"{created.etag}"')
    room_type = call("RoomService_CreateRoomType", m.CreateRoomTypeRequest(
        property_id="OG" + suffix, code="STD", name="Standard", category="STANDARD", size_sqm=18.5, max_guests=2,
        bed_type="QUEEN"))
    call("RoomService_UpdateRoomType", room_type.id, m.RoomTypeUpdate(max_guests=3))
    call("RoomService_CreateRoom", m.CreateRoomRequest(property_id="OG" + suffix, number="101", floor=1,
                                                        room_type_id=room_type.id))
    call("RoomService_UpdateRoom", "101", "OG" + suffix, m.RoomUpdate(floor=2))
    # Images: both clients read, change, reorder and remove one of BER1-STD's two seeded pictures.
    gallery = call("ImageService_ListRoomTypeImages", "BER1-STD")
    room_gallery = call("ImageService_ListRoomImages", "101", property_id="BER1")
    image = call("ImageService_GetImage", gallery.data[0].id)
    call("ImageService_UpdateImage", image.id, m.ImageUpdate(alt_text="By OpenAPI Generator"),
         if_match=f'"{image.etag}"')
    call("ImageService_ReorderRoomTypeImages", "BER1-STD",
         m.GalleryOrder(image_ids=[i.id for i in gallery.data][::-1]))
    call("ImageService_ReorderRoomImages", "101", "BER1", m.GalleryOrder(image_ids=[i.id for i in room_gallery.data]))
    removed = call("ImageService_DeleteImage", image.id)
    assert removed.id == image.id, removed
    # Uploads (multipart/form-data, the file as a path) into the galleries of its own room type and room.
    uploaded = call("ImageService_UploadRoomTypeImage", room_type.id, "By OpenAPI Generator", pictures["photo"])
    assert uploaded.room_type_id == room_type.id and uploaded.variants.original.format == "jpeg", uploaded
    refused(client, 400, "UNSUPPORTED_IMAGE", "ImageService_UploadRoomTypeImage", room_type.id, "Not a picture",
            pictures["not_a_picture"])
    # With every field set: the parts in the generator's own order (the document lists file last).
    request_id = str(uuid.uuid4())
    uploaded = call("ImageService_UploadRoomImage", "101", "OG" + suffix, "Room 101", pictures["photo"],
                    sort_order=4, request_id=request_id)
    again = client.call("ImageService_UploadRoomImage", "101", "OG" + suffix, "Room 101", pictures["photo"],
                        sort_order=4, request_id=request_id)
    assert again.id == uploaded.id, (again, uploaded)
    assert uploaded.room_number == "101" and uploaded.sort_order == 4, uploaded
    refused(client, 404, "ROOM_NOT_FOUND", "ImageService_UploadRoomImage", "999", "OG" + suffix, "Nowhere",
            pictures["photo"])

    # A conditional GET: the ETag as received, sent back in If-None-Match, answers 304.
    headers, _ = client.info("RoomService_GetProperty", "BER1")
    etag = client.header(headers, "ETag")
    assert etag == f'"{prop.etag}"', headers
    with pytest.raises(client.ApiError) as not_modified:
        call("RoomService_GetProperty", "BER1", if_none_match=etag)
    assert not_modified.value.status == 304, not_modified.value

    # Maintenance, with the date-time filters in the generator's own format (+0000).
    call("EquipmentService_ListEquipment", "101", property_id="BER1")
    call("EquipmentService_CreateEquipment", "101", m.CreateEquipmentBody(
        property_id="BER1", name="Fan", type="extractor_fan", installed_on="2026-01-15"))
    call("MaintenanceService_GetRoomMaintenance", "408", property_id="BER1")
    today = datetime.date.today().isoformat()
    schedule = call("ScheduleService_CreateSchedule", m.CreateScheduleRequest(
        property_id="BER1", room_number="101", task="Clean AC filters", interval_unit="MONTH", interval_count=3,
        starts_on=today))
    call("ScheduleService_ListSchedules", property_id="BER1")
    call("ScheduleService_ApplyScheduleAction", schedule.id, m.ApplyScheduleActionBody(
        action="COMPLETE", completed_by="Jonas", expected_due_on=today,
        completed_at=datetime.datetime.now(datetime.timezone.utc)))
    issue = call("IssueService_CreateIssue", m.CreateIssueRequest(
        property_id="BER1", room_number="305", title="Leak", category="PLUMBING", priority="URGENT",
        reported_by="Front desk", request_id=str(uuid.uuid4())))
    call("IssueService_ListIssues", property_id="BER1")
    call("IssueService_GetIssue", issue.id)
    call("IssueService_BatchGetIssues", ids=[issue.id])
    call("IssueService_UpdateIssue", issue.id, m.IssueUpdate(status="IN_PROGRESS", updated_by="Jonas"))
    now = datetime.datetime.now(datetime.timezone.utc)
    stats = call("StatsService_GetIssueStats", property_id="BER1", var_from=now - datetime.timedelta(days=1),
                 to=now + datetime.timedelta(minutes=1))
    assert int(stats.total) >= 1, stats  # the issue created above is within the window
    call("StatsService_GetSummary", property_id="BER1")

    # Room blocks (1.3.0) on the property made above.
    block = call("RoomBlockService_CreateRoomBlock", m.CreateRoomBlockRequest(
        property_id="OG" + suffix, room_number="101", type="OUT_OF_ORDER", start_date="2034-01-10",
        end_date="2034-01-15", reason="Renovation"))
    call("RoomBlockService_GetRoomBlock", block.id)
    call("RoomBlockService_ListRoomBlocks", property_id="OG" + suffix)
    call("RoomBlockService_UpdateRoomBlock", block.id, m.RoomBlockUpdate(end_date="2034-01-16"))
    call("RoomBlockService_CancelRoomBlock", block.id, m.CancelRoomBlockBody(updated_by="Jonas"))
    call("RoomBlockService_BatchCreateRoomBlocks", m.BatchCreateRoomBlocksRequest(requests=[m.CreateRoomBlockRequest(
        property_id="OG" + suffix, room_number="101", type="OUT_OF_SERVICE", start_date="2034-02-01",
        end_date="2034-02-03")]))
    call("RoomBlockService_GetPropertyAvailability", "OG" + suffix, from_date="2034-01-30", to_date="2034-02-04")

    # Housekeeping (1.4.0) on the property made above.
    call("HousekeepingService_UpdateRoomHousekeeping", "101", "OG" + suffix,
         m.RoomHousekeepingUpdate(condition="CLEAN", updated_by="Ana"))
    call("HousekeepingService_SetHousekeeping", "OG" + suffix, m.SetHousekeepingBody(
        room_numbers=["101"], occupancy="VACANT", occupancy_source="pms"))
    call("HousekeepingService_GetHousekeepingOverview", "OG" + suffix)
    call("HousekeepingService_ListHousekeepingHistory", "101", property_id="OG" + suffix)
    policy = call("HousekeepingService_GetHousekeepingPolicy", "OG" + suffix)
    call("HousekeepingService_UpdateHousekeepingPolicy", "OG" + suffix,
         m.HousekeepingPolicyUpdate(vacant_dirty_after_days=2), if_match=f'"{policy.etag}"')

    # Health.
    call("HealthService_GetHealth")
    call("HealthService_GetLiveness")
    call("HealthService_GetStartup")

    # Webhooks against a loopback receiver: create (its ping), ping, a delivery resent, delete.
    receiver = Receiver()
    try:
        hook = call("WebhookService_CreateWebhook", m.CreateWebhookRequest(url=receiver.url, resource_type=["ISSUE"]))
        receiver.secrets.append(hook.secret)
        call("WebhookService_GetWebhook", hook.id)
        call("WebhookService_ListWebhooks")
        call("WebhookService_UpdateWebhook", hook.id, m.WebhookUpdate(property_id="BER1"))
        pong = call("WebhookService_PingWebhook", hook.id)
        assert pong.ok, pong
        call("IssueService_CreateIssue", m.CreateIssueRequest(
            property_id="BER1", room_number="102", title="Webhook delivery", category="OTHER",
            reported_by="client"))
        # The log records a delivery once the receiver's answer is in: wait for it there.
        succeeded = lambda: [d for d in call("WebhookService_ListWebhookDeliveries", hook.id).data  # noqa: E731
                             if d.succeeded]
        assert wait_for(succeeded, 30), "no delivery logged as succeeded"
        batch = succeeded()[0]
        resent = call("WebhookService_ResendWebhookDelivery", hook.id, batch.id)
        assert resent.succeeded, resent
        call("WebhookService_RotateWebhookSecret", hook.id, m.RotateWebhookSecretBody(grace_seconds=60))
        call("WebhookService_ReplayWebhook", hook.id, m.ReplayWebhookBody(after=hook.cursor))
        call("WebhookService_DeleteWebhook", hook.id)
        assert all(receiver.verified(r) for r in receiver.requests), receiver.requests
    finally:
        receiver.close()

    # The change feed: a page, then three events from the stream (NDJSON, one model per line).
    page = call("ChangeService_ListChanges", page_size=3)
    assert len(page.data) == 3, page
    events = client.watch(page.data[0].cursor, 3)
    assert [e.cursor for e in events][:2] == [c.cursor for c in page.data[1:3]], events
    answers["ChangeService_WatchChanges"] = events[0]

    # Every operation answered, each as the model the document declares.
    declared = {op["operationId"] for item in doc["paths"].values() for op in item.values()}
    assert set(answers) == declared, declared - set(answers)
    wrong = {}
    for op_id, answer in answers.items():
        model = declared_model(doc, op_id)
        if op_id == "ChangeService_WatchChanges":
            model = "Change"
        if model and client.type_name(answer) not in (model, "Model" + model):  # Python's Property: ModelProperty
            wrong[op_id] = (client.type_name(answer), model)
    assert not wrong, wrong
    return answers


def test_python_client_calls_every_operation(python, generated, pictures, capsys):
    answers = every_operation(python, generated[0], "P1", pictures)
    with capsys.disabled():
        print(f"\n{python.name}: {len(answers)} operations called")


def test_java_client_calls_every_operation(stack, generated, python, pictures, tmp_path, capsys):
    classpath = java_client(generated[1])
    source = os.path.join(ROOT, "tests", "clients", "openapi-generator", "Calls.java")
    compiled = subprocess.run(["javac", "-nowarn", "-d", str(tmp_path), "-cp", classpath, source],
                              capture_output=True, text=True, timeout=300)
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    java = JavaCalls(f"{classpath}{os.pathsep}{tmp_path}", stack.root, python)
    try:
        answers = every_operation(java, generated[0], "J1", pictures)
    finally:
        java.close()
    with capsys.disabled():
        print(f"\n{java.name}: {len(answers)} operations called")


