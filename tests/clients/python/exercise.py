"""Calls every operation of the Hotel Data Service through the client openapi-python-client
generated from the served OpenAPI document: each operation's success case and at least one
error case, checking the status and that the result is parsed as the documented type.

    python3 exercise.py <dir holding the generated package hotel_client> <base URL> <dead base URL> <picture>

<dead base URL> is a gateway whose server is down (every call answers 503); <picture> a JPEG to
upload. Prints one JSON line:
{"generator": ..., "operations": N, "passed": N, "calls": N, "failures": [...]}.
"""
import datetime
import http.server
import io
import json
import threading
import time
import sys
import traceback
import uuid

sys.path.insert(0, sys.argv[1])
base_url, dead_url, picture = sys.argv[2], sys.argv[3], sys.argv[4]

from hotel_client import Client  # noqa: E402
from hotel_client.api.changes import (  # noqa: E402 - one module per tag (area)
    change_service_list_changes, change_service_watch_changes)
from hotel_client.api.health import (  # noqa: E402 - one module per tag (area)
    health_service_get_health, health_service_get_liveness, health_service_get_startup)
from hotel_client.api.images import (  # noqa: E402 - one module per tag (area)
    image_service_delete_image, image_service_get_image, image_service_list_room_images,
    image_service_list_room_type_images, image_service_reorder_room_images, image_service_reorder_room_type_images,
    image_service_update_image, image_service_upload_room_image, image_service_upload_room_type_image)
from hotel_client.api.maintenance import (  # noqa: E402 - one module per tag (area)
    equipment_service_create_equipment, equipment_service_list_equipment, issue_service_create_issue,
    issue_service_batch_get_issues, issue_service_get_issue, issue_service_list_issues, issue_service_update_issue,
    maintenance_service_get_room_maintenance, schedule_service_apply_schedule_action,
    schedule_service_create_schedule, schedule_service_list_schedules, stats_service_get_issue_stats,
    stats_service_get_summary)
from hotel_client.api.housekeeping import (  # noqa: E402 - one module per tag (area)
    housekeeping_service_get_housekeeping_overview, housekeeping_service_list_housekeeping_history,
    housekeeping_service_set_housekeeping, housekeeping_service_update_room_housekeeping,
    housekeeping_service_get_housekeeping_policy, housekeeping_service_update_housekeeping_policy)
from hotel_client.models import (  # noqa: E402
    HousekeepingOverview, HousekeepingPolicy, HousekeepingPolicyUpdate, ListHousekeepingHistoryResponse,
    RoomHousekeeping, RoomHousekeepingCondition, RoomHousekeepingOccupancy, RoomHousekeepingUpdate,
    SetHousekeepingBody, SetHousekeepingResponse)
from hotel_client.api.room_blocks import (  # noqa: E402 - one module per tag (area)
    room_block_service_batch_create_room_blocks, room_block_service_cancel_room_block,
    room_block_service_create_room_block, room_block_service_get_property_availability,
    room_block_service_get_room_block, room_block_service_list_room_blocks, room_block_service_update_room_block)
from hotel_client.models import (  # noqa: E402
    BatchCreateRoomBlocksRequest, BatchCreateRoomBlocksResponse, CancelRoomBlockBody, CreateRoomBlockRequest,
    ListRoomBlocksResponse, PropertyAvailability, RoomBlock, RoomBlockType, RoomBlockUpdate)
from hotel_client.api.rooms import (  # noqa: E402 - one module per tag (area)
    room_service_batch_get_rooms, room_service_create_property, room_service_create_room, room_service_create_room_type,
    room_service_list_amenities, room_service_update_property, room_service_update_room,
    room_service_update_room_type, room_service_get_property, room_service_get_room,
    room_service_get_room_type, room_service_list_properties, room_service_list_property_room_types,
    room_service_list_property_rooms, room_service_list_room_types, room_service_list_rooms)
from hotel_client.api.webhooks import (  # noqa: E402 - one module per tag (area)
    webhook_service_create_webhook, webhook_service_delete_webhook, webhook_service_get_webhook,
    webhook_service_list_webhook_deliveries, webhook_service_list_webhooks, webhook_service_ping_webhook,
    webhook_service_replay_webhook, webhook_service_resend_webhook_delivery,
    webhook_service_rotate_webhook_secret, webhook_service_update_webhook)
from hotel_client.models import (  # noqa: E402
    BatchGetIssuesResponse, BatchGetRoomsResponse, ListChangesResponse,
    ApplyScheduleActionBody, ApplyScheduleActionRequestAction, ApplyScheduleActionResponse, CreateEquipmentBody,
    CreateIssueRequest, CreateScheduleRequest, Equipment, ErrorInfo, GetHealthResponse, GetLivenessResponse,
    GetStartupResponse, Image, Issue, IssueCategory, IssueUpdate, IssuePriority, IssueStats, IssueStatus, ListEquipmentResponse,
    ListIssuesResponse, ListPropertiesResponse, ListRoomImagesResponse, ListRoomTypeImagesResponse,
    ListRoomTypesResponse, ListRoomsResponse, ListSchedulesResponse, Property, Room, RoomMaintenance, RoomType,
    Schedule, ScheduleIntervalUnit, Status, Summary)
from hotel_client.models import (  # noqa: E402
    CreatePropertyRequest, CreateRoomRequest, CreateRoomTypeRequest, ListAmenitiesResponse, PropertyUpdate,
    RoomTypeCategory, RoomTypeUpdate, RoomUpdate)
from hotel_client.models import (  # noqa: E402
    ChangeResourceType, CreateWebhookRequest, DeleteWebhookResponse, ListWebhookDeliveriesResponse,
    ListWebhooksResponse, PingWebhookBody, PingWebhookResponse, ReplayWebhookBody, ResendWebhookDeliveryBody,
    RotateWebhookSecretBody, Webhook, WebhookDelivery, WebhookState, WebhookUpdate)
from hotel_client.models import DeleteImageResponse, GalleryOrder, ImageUpdate  # noqa: E402
from hotel_client.models import (  # noqa: E402 - the multipart bodies
    ImageServiceUploadRoomImageBody, ImageServiceUploadRoomTypeImageBody)
from hotel_client.types import File  # noqa: E402

api = Client(base_url=base_url, raise_on_unexpected_status=True, timeout=10)
dead = Client(base_url=dead_url, raise_on_unexpected_status=True, timeout=10)
results = {}  # operation -> list of failures (empty: passed)
calls = 0


def check(operation, response, status, kind, reason=None):
    """One call: the expected HTTP status, parsed as the expected generated type."""
    global calls
    calls += 1
    failures = results.setdefault(operation, [])
    if response.status_code != status:
        failures.append(f"status {response.status_code}, expected {status}: {response.content[:200]!r}")
    elif not isinstance(response.parsed, kind):
        failures.append(f"parsed as {type(response.parsed).__name__}, expected {kind.__name__}")
    elif reason is not None:
        reasons = [d.reason for d in response.parsed.details if isinstance(d, ErrorInfo)]
        if reasons != [reason]:
            failures.append(f"reasons {reasons}, expected {reason}")
    return response.parsed


def run(operation, fn):
    try:
        fn()
    except Exception:  # a crash of the generated client is a failure of the operation
        results.setdefault(operation, []).append("crashed: " + traceback.format_exc(limit=3)[-600:])


def health():
    check("GetHealth", health_service_get_health.sync_detailed(client=api), 200, GetHealthResponse)
    check("GetHealth", health_service_get_health.sync_detailed(client=dead), 503, Status, "UNAVAILABLE")
    check("GetLiveness", health_service_get_liveness.sync_detailed(client=api), 200, GetLivenessResponse)
    # The gateway answers liveness itself: 200 with the server unreachable too.
    check("GetLiveness", health_service_get_liveness.sync_detailed(client=dead), 200, GetLivenessResponse)
    check("GetStartup", health_service_get_startup.sync_detailed(client=api), 200, GetStartupResponse)
    check("GetStartup", health_service_get_startup.sync_detailed(client=dead), 503, Status, "UNAVAILABLE")


def rooms():
    listed = check("ListProperties", room_service_list_properties.sync_detailed(client=api), 200, ListPropertiesResponse)
    # The seeded properties; other clients on the same stack add their own.
    assert {"BER1", "LIS1"} <= {p.id for p in listed.data}, listed
    check("ListProperties", room_service_list_properties.sync_detailed(client=api, page_token="nonsense"), 400,
          Status, "INVALID_PAGE_TOKEN")
    check("GetProperty", room_service_get_property.sync_detailed("BER1", client=api), 200, Property)
    check("GetProperty", room_service_get_property.sync_detailed("NOPE1", client=api), 404, Status,
          "PROPERTY_NOT_FOUND")
    check("ListRoomTypes", room_service_list_room_types.sync_detailed(client=api), 200, ListRoomTypesResponse)
    check("ListRoomTypes", room_service_list_room_types.sync_detailed(client=api, property_id="NOPE1"), 404, Status,
          "PROPERTY_NOT_FOUND")
    check("ListPropertyRoomTypes", room_service_list_property_room_types.sync_detailed("BER1", client=api), 200,
          ListRoomTypesResponse)
    check("ListPropertyRoomTypes", room_service_list_property_room_types.sync_detailed("NOPE1", client=api), 404,
          Status, "PROPERTY_NOT_FOUND")
    room_type = check("GetRoomType", room_service_get_room_type.sync_detailed("BER1-STD", client=api), 200, RoomType)
    assert room_type.images and room_type.images[0].variants.original.webp is None, room_type
    check("GetRoomType", room_service_get_room_type.sync_detailed("BER1-NONE", client=api), 404, Status,
          "ROOM_TYPE_NOT_FOUND")
    check("ListRooms", room_service_list_rooms.sync_detailed(client=api, page_size=5), 200, ListRoomsResponse)
    check("ListRooms", room_service_list_rooms.sync_detailed(client=api, floor=-1), 400, Status, "INVALID_ARGUMENT")
    check("ListPropertyRooms", room_service_list_property_rooms.sync_detailed("LIS1", client=api), 200,
          ListRoomsResponse)
    check("ListPropertyRooms", room_service_list_property_rooms.sync_detailed("NOPE1", client=api), 404, Status,
          "PROPERTY_NOT_FOUND")
    room = check("GetRoom", room_service_get_room.sync_detailed("101", client=api, property_id="BER1"), 200, Room)
    assert room.images and isinstance(room.images[0], Image), room
    check("GetRoom", room_service_get_room.sync_detailed("999", client=api, property_id="BER1"), 404, Status,
          "ROOM_NOT_FOUND")
    batch = check("BatchGetRooms", room_service_batch_get_rooms.sync_detailed(
        client=api, property_id="BER1", numbers=["305", "101"]), 200, BatchGetRoomsResponse)
    assert [r.number for r in batch.rooms] == ["305", "101"], batch
    # A masked answer holds only the fields asked for; this client requires every field of a Room,
    # so it is read as the raw JSON it is (docs/room-data.md, "Read masks").
    masked = api.get_httpx_client().get("/api/v1/rooms:batchGet", params={
        "property_id": "BER1", "numbers": ["101"], "read_mask": "number,available"})
    rooms = masked.json()["rooms"] if masked.status_code == 200 else None
    assert rooms and set(rooms[0]) == {"number", "available"} and rooms[0]["number"] == "101", masked.content
    check("BatchGetRooms", room_service_batch_get_rooms.sync_detailed(
        client=api, property_id="BER1", numbers=["101", "999"]), 404, Status, "ROOM_NOT_FOUND")


def room_data():
    """Room data management (1.1.0): a property of its own, made and changed through the client."""
    amenities = check("ListAmenities", room_service_list_amenities.sync_detailed(client=api), 200,
                      ListAmenitiesResponse)
    assert any(a.code == "wifi" for a in amenities.data), amenities
    check("ListAmenities", room_service_list_amenities.sync_detailed(client=dead), 503, Status, "UNAVAILABLE")
    prop = check("CreateProperty", room_service_create_property.sync_detailed(client=api, body=CreatePropertyRequest(
        id="CLI1", name="Client House", time_zone="Europe/Rome", city="Rome", country_code="IT", enabled=False,
        request_id=str(uuid.uuid4()))), 201, Property)
    check("CreateProperty", room_service_create_property.sync_detailed(client=api, body=CreatePropertyRequest(
        id="CLI1", name="Again", time_zone="Europe/Rome", city="Rome", country_code="IT")), 409, Status,
        "PROPERTY_EXISTS")
    updated = check("UpdateProperty", room_service_update_property.sync_detailed(
        "CLI1", client=api, body=PropertyUpdate(enabled=True), if_match=f'"{prop.etag}"'), 200, Property)
    assert updated.enabled, updated
    check("UpdateProperty", room_service_update_property.sync_detailed(
        "CLI1", client=api, body=PropertyUpdate(name="Stale"), if_match=f'"{prop.etag}"'), 409, Status,
        "ETAG_MISMATCH")
    room_type = check("CreateRoomType", room_service_create_room_type.sync_detailed(client=api, body=CreateRoomTypeRequest(
        property_id="CLI1", code="STD", name="Standard", category=RoomTypeCategory.STANDARD, amenities=["wifi"],
        size_sqm=18.5, max_guests=2, bed_type="QUEEN")), 201, RoomType)
    check("CreateRoomType", room_service_create_room_type.sync_detailed(client=api, body=CreateRoomTypeRequest(
        property_id="NOPE1", code="STD", name="Standard", category=RoomTypeCategory.STANDARD, size_sqm=18.5,
        max_guests=2, bed_type="QUEEN")), 404, Status, "PROPERTY_NOT_FOUND")
    check("UpdateRoomType", room_service_update_room_type.sync_detailed(
        room_type.id, client=api, body=RoomTypeUpdate(amenities=["wifi", "desk"], etag=room_type.etag)), 200, RoomType)
    check("UpdateRoomType", room_service_update_room_type.sync_detailed(
        room_type.id, client=api, body=RoomTypeUpdate(max_guests=0)), 400, Status, "INVALID_ARGUMENT")
    room = check("CreateRoom", room_service_create_room.sync_detailed(client=api, body=CreateRoomRequest(
        property_id="CLI1", number="101", floor=1, room_type_id="CLI1-STD", extra_amenities=["balcony"])), 201, Room)
    assert room.amenities == ["balcony", "desk", "wifi"], room
    check("CreateRoom", room_service_create_room.sync_detailed(client=api, body=CreateRoomRequest(
        property_id="CLI1", number="102", floor=1, room_type_id="CLI1-NONE")), 404, Status, "ROOM_TYPE_NOT_FOUND")
    moved = check("UpdateRoom", room_service_update_room.sync_detailed(
        "101", client=api, property_id="CLI1", body=RoomUpdate(floor=0, retired=True)), 200, Room)
    assert moved.floor == 0 and moved.retired and moved.retire_time is not None, moved
    check("UpdateRoom", room_service_update_room.sync_detailed(
        "999", client=api, property_id="CLI1", body=RoomUpdate(floor=2)), 404, Status, "ROOM_NOT_FOUND")


def images():
    gallery = check("ListRoomTypeImages", image_service_list_room_type_images.sync_detailed("BER1-STD", client=api),
                    200, ListRoomTypeImagesResponse)
    assert gallery.data and gallery.data[0].variants.thumbnail.webp.format_ == "webp", gallery
    check("ListRoomTypeImages", image_service_list_room_type_images.sync_detailed("BER1-NONE", client=api), 404,
          Status, "ROOM_TYPE_NOT_FOUND")
    check("ListRoomImages", image_service_list_room_images.sync_detailed("101", client=api, property_id="BER1"), 200,
          ListRoomImagesResponse)
    check("ListRoomImages", image_service_list_room_images.sync_detailed("999", client=api, property_id="BER1"), 404,
          Status, "ROOM_NOT_FOUND")

    # Each generated client changes a gallery of its own (they share one stack): BER1-SUP here.
    gallery = image_service_list_room_type_images.sync_detailed("BER1-SUP", client=api).parsed
    image = gallery.data[0]
    check("GetImage", image_service_get_image.sync_detailed(image.id, client=api), 200, Image)
    check("GetImage", image_service_get_image.sync_detailed(str(uuid.uuid4()), client=api), 404, Status,
          "IMAGE_NOT_FOUND")
    updated = check("UpdateImage", image_service_update_image.sync_detailed(
        image.id, client=api, body=ImageUpdate(alt_text="Standard Double, by the client", etag=image.etag)), 200, Image)
    assert updated.alt_text == "Standard Double, by the client" and updated.etag != image.etag, updated
    check("UpdateImage", image_service_update_image.sync_detailed(
        image.id, client=api, body=ImageUpdate(alt_text="Lost update", etag=image.etag)), 409, Status, "ETAG_MISMATCH")
    ids = [i.id for i in gallery.data][::-1]
    reordered = check("ReorderRoomTypeImages", image_service_reorder_room_type_images.sync_detailed(
        "BER1-SUP", client=api, body=GalleryOrder(image_ids=ids)), 200, ListRoomTypeImagesResponse)
    assert [i.id for i in reordered.data] == ids, reordered
    check("ReorderRoomTypeImages", image_service_reorder_room_type_images.sync_detailed(
        "BER1-SUP", client=api, body=GalleryOrder(image_ids=ids[:1] + ids)), 400, Status, "INVALID_ARGUMENT")
    room_ids = [i.id for i in image_service_list_room_images.sync_detailed(
        "101", client=api, property_id="BER1").parsed.data]
    check("ReorderRoomImages", image_service_reorder_room_images.sync_detailed(
        "101", client=api, property_id="BER1", body=GalleryOrder(image_ids=room_ids)), 200, ListRoomImagesResponse)
    check("ReorderRoomImages", image_service_reorder_room_images.sync_detailed(
        "999", client=api, property_id="BER1", body=GalleryOrder(image_ids=room_ids)), 404, Status, "ROOM_NOT_FOUND")
    check("DeleteImage", image_service_delete_image.sync_detailed(image.id, client=api), 200, DeleteImageResponse)
    check("DeleteImage", image_service_delete_image.sync_detailed(image.id, client=api), 404, Status,
          "IMAGE_NOT_FOUND")


def uploads():
    """Uploads (multipart/form-data) into the galleries of this client's own room type and room."""
    photo = open(picture, "rb").read()
    not_a_picture = open(__file__, "rb").read()

    def file(data, name):
        return File(payload=io.BytesIO(data), file_name=name, mime_type="image/jpeg")

    created = check("UploadRoomTypeImage", image_service_upload_room_type_image.sync_detailed(
        "CLI1-STD", client=api, body=ImageServiceUploadRoomTypeImageBody(
            alt_text="Uploaded by openapi-python-client", file=file(photo, "photo.jpg"))), 201, Image)
    assert created.room_type_id == "CLI1-STD" and created.variants.original.format_ == "jpeg", created
    # This client writes the required parts, then the optional ones: sort_order and request_id
    # come after the file, and the gateway passes them on when the file has arrived.
    with_order = dict(alt_text="Room 101 first", sort_order=0, request_id=str(uuid.uuid4()))
    created = check("UploadRoomImage", image_service_upload_room_image.sync_detailed(
        "101", client=api, property_id="CLI1", body=ImageServiceUploadRoomImageBody(
            **with_order, file=file(photo, "photo.jpg"))), 201, Image)
    again = check("UploadRoomImage", image_service_upload_room_image.sync_detailed(
        "101", client=api, property_id="CLI1", body=ImageServiceUploadRoomImageBody(
            **with_order, file=file(photo, "photo.jpg"))), 200, Image)
    assert again.id == created.id, (again, created)
    assert created.room_number == "101" and created.sort_order == 0, created
    check("UploadRoomTypeImage", image_service_upload_room_type_image.sync_detailed(
        "CLI1-STD", client=api, body=ImageServiceUploadRoomTypeImageBody(
            alt_text="Not a picture", file=file(not_a_picture, "photo.jpg"))), 400, Status, "UNSUPPORTED_IMAGE")
    check("UploadRoomImage", image_service_upload_room_image.sync_detailed(
        "999", client=api, property_id="CLI1", body=ImageServiceUploadRoomImageBody(
            alt_text="Nowhere", file=file(photo, "photo.jpg"))), 404, Status, "ROOM_NOT_FOUND")


def maintenance():
    check("ListEquipment", equipment_service_list_equipment.sync_detailed("101", client=api, property_id="BER1"), 200,
          ListEquipmentResponse)
    check("ListEquipment", equipment_service_list_equipment.sync_detailed("999", client=api, property_id="BER1"), 404,
          Status, "ROOM_NOT_FOUND")
    body = CreateEquipmentBody(property_id="BER1", name="Bathroom fan", type_="extractor_fan",
                               installed_on="2026-01-15", request_id=str(uuid.uuid4()))
    check("CreateEquipment", equipment_service_create_equipment.sync_detailed("101", client=api, body=body), 201,
          Equipment)
    bad = CreateEquipmentBody(property_id="BER1", name="", type_="extractor_fan")
    error = check("CreateEquipment", equipment_service_create_equipment.sync_detailed("101", client=api, body=bad),
                  400, Status, "INVALID_ARGUMENT")
    check("GetRoomMaintenance", maintenance_service_get_room_maintenance.sync_detailed(
        "408", client=api, property_id="BER1"), 200, RoomMaintenance)
    check("GetRoomMaintenance", maintenance_service_get_room_maintenance.sync_detailed(
        "999", client=api, property_id="BER1"), 404, Status, "ROOM_NOT_FOUND")

    check("ListSchedules", schedule_service_list_schedules.sync_detailed(client=api, property_id="BER1", overdue=True),
          200, ListSchedulesResponse)
    check("ListSchedules", schedule_service_list_schedules.sync_detailed(client=api, property_id="NOPE1"), 404,
          Status, "PROPERTY_NOT_FOUND")
    today = datetime.date.today().isoformat()
    schedule = check("CreateSchedule", schedule_service_create_schedule.sync_detailed(client=api, body=CreateScheduleRequest(
        property_id="BER1", room_number="101", task="Clean AC filters", interval_unit=ScheduleIntervalUnit.MONTH,
        interval_count=3, starts_on=today)), 201, Schedule)
    check("CreateSchedule", schedule_service_create_schedule.sync_detailed(client=api, body=CreateScheduleRequest(
        property_id="BER1", room_number="101", task="Clean AC filters", interval_unit=ScheduleIntervalUnit.MONTH,
        interval_count=0, starts_on=today)), 400, Status, "INVALID_ARGUMENT")
    done = check("ApplyScheduleAction", schedule_service_apply_schedule_action.sync_detailed(
        schedule.id, client=api, body=ApplyScheduleActionBody(
            action=ApplyScheduleActionRequestAction.COMPLETE, completed_by="Jonas", expected_due_on=today)),
        200, ApplyScheduleActionResponse)
    assert done.completion.due_on == today, done
    check("ApplyScheduleAction", schedule_service_apply_schedule_action.sync_detailed(
        schedule.id, client=api, body=ApplyScheduleActionBody(
            action=ApplyScheduleActionRequestAction.COMPLETE, completed_by="Jonas", expected_due_on=today)),
        409, Status, "ALREADY_COMPLETED")

    issue = check("CreateIssue", issue_service_create_issue.sync_detailed(client=api, body=CreateIssueRequest(
        property_id="BER1", room_number="305", title="Water leaking from ceiling", category=IssueCategory.PLUMBING,
        priority=IssuePriority.URGENT, reported_by="Front desk", request_id=str(uuid.uuid4()))), 201, Issue)
    assert issue.resolved_at is None and issue.status == IssueStatus.OPEN, issue
    check("CreateIssue", issue_service_create_issue.sync_detailed(client=api, body=CreateIssueRequest(
        property_id="BER1", room_number="999", title="Nowhere", category=IssueCategory.OTHER,
        reported_by="Front desk")), 404, Status, "ROOM_NOT_FOUND")
    check("ListIssues", issue_service_list_issues.sync_detailed(client=api, property_id="BER1"), 200,
          ListIssuesResponse)
    check("ListIssues", issue_service_list_issues.sync_detailed(client=api, property_id="NOPE1"), 404, Status,
          "PROPERTY_NOT_FOUND")
    got = issue_service_get_issue.sync_detailed(issue.id, client=api)
    check("GetIssue", got, 200, Issue)
    assert got.headers["ETag"] == f'"{issue.etag}"', got.headers
    check("GetIssue", issue_service_get_issue.sync_detailed(str(uuid.uuid4()), client=api), 404, Status,
          "ISSUE_NOT_FOUND")
    batch = check("BatchGetIssues", issue_service_batch_get_issues.sync_detailed(client=api, ids=[issue.id]), 200,
                  BatchGetIssuesResponse)
    assert batch.issues[0].id == issue.id and batch.issues[0].status == IssueStatus.OPEN, batch
    check("BatchGetIssues", issue_service_batch_get_issues.sync_detailed(client=api, ids=[str(uuid.uuid4())]), 404,
          Status, "ISSUE_NOT_FOUND")
    updated = check("UpdateIssue", issue_service_update_issue.sync_detailed(
        issue.id, client=api, body=IssueUpdate(status=IssueStatus.IN_PROGRESS, updated_by="Jonas"),
        if_match=f'"{issue.etag}"'), 200, Issue)
    assert updated.status == IssueStatus.IN_PROGRESS, updated
    check("UpdateIssue", issue_service_update_issue.sync_detailed(
        issue.id, client=api, body=IssueUpdate(assignee="Jonas"), if_match=f'"{issue.etag}"'), 409, Status,
        "ETAG_MISMATCH")

    check("GetIssueStats", stats_service_get_issue_stats.sync_detailed(client=api, property_id="BER1"), 200,
          IssueStats)
    check("GetIssueStats", stats_service_get_issue_stats.sync_detailed(client=api, property_id="NOPE1"), 404,
          Status, "PROPERTY_NOT_FOUND")
    check("GetSummary", stats_service_get_summary.sync_detailed(client=api), 200, Summary)
    check("GetSummary", stats_service_get_summary.sync_detailed(client=api, property_id="NOPE1"), 404, Status,
          "PROPERTY_NOT_FOUND")


def changes():
    listed = check("ListProperties", room_service_list_properties.sync_detailed(client=api), 200,
                   ListPropertiesResponse)
    page = check("ListChanges", change_service_list_changes.sync_detailed(
        client=api, after=listed.change_cursor, page_size=10), 200, ListChangesResponse)
    assert page.next_cursor, page
    check("ListChanges", change_service_list_changes.sync_detailed(client=api, after="nonsense"), 400, Status,
          "INVALID_CURSOR")
    # The stream itself is not JSON (SSE or NDJSON): its refusals are, and those are what a
    # generated client can check.
    check("WatchChanges", change_service_watch_changes.sync_detailed(client=api, after="nonsense"), 400, Status,
          "INVALID_CURSOR")
    check("WatchChanges", change_service_watch_changes.sync_detailed(client=dead), 503, Status, "UNAVAILABLE")


class Hook(http.server.BaseHTTPRequestHandler):
    """A webhook endpoint on loopback answering every POST (the creation's ping) with 204."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def webhooks():
    """Webhooks (1.2.0): a subscription to an endpoint of this program, made, changed and removed."""
    endpoint = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{endpoint.server_address[1]}/hook"
    hook = check("CreateWebhook", webhook_service_create_webhook.sync_detailed(client=api, body=CreateWebhookRequest(
        url=url, resource_type=[ChangeResourceType.ISSUE])), 201, Webhook)
    assert hook.secret.startswith("whsec_") and hook.state == WebhookState.ACTIVE, hook
    check("CreateWebhook", webhook_service_create_webhook.sync_detailed(client=api, body=CreateWebhookRequest(
        url="http://10.9.8.7/hook")), 400, Status, "WEBHOOK_URL_NOT_ALLOWED")
    got = check("GetWebhook", webhook_service_get_webhook.sync_detailed(hook.id, client=api), 200, Webhook)
    assert got.url == url and not got.secret, got
    check("GetWebhook", webhook_service_get_webhook.sync_detailed(str(uuid.uuid4()), client=api), 404, Status,
          "WEBHOOK_NOT_FOUND")
    listed = check("ListWebhooks", webhook_service_list_webhooks.sync_detailed(client=api, page_size=500), 200,
                   ListWebhooksResponse)
    assert hook.id in [w.id for w in listed.data], listed
    check("ListWebhooks", webhook_service_list_webhooks.sync_detailed(client=api, page_token="nonsense"), 400, Status,
          "INVALID_PAGE_TOKEN")
    paused = check("UpdateWebhook", webhook_service_update_webhook.sync_detailed(
        hook.id, client=api, body=WebhookUpdate(state=WebhookState.PAUSED)), 200, Webhook)
    assert paused.state == WebhookState.PAUSED, paused
    check("UpdateWebhook", webhook_service_update_webhook.sync_detailed(
        hook.id, client=api, body=WebhookUpdate(url="http://10.9.8.7/hook")), 400, Status, "WEBHOOK_URL_NOT_ALLOWED")
    pong = check("PingWebhook", webhook_service_ping_webhook.sync_detailed(hook.id, client=api, body=PingWebhookBody()),
                 200, PingWebhookResponse)
    assert pong.ok and pong.http_status == 204, pong
    check("PingWebhook", webhook_service_ping_webhook.sync_detailed(str(uuid.uuid4()), client=api,
                                                                    body=PingWebhookBody()), 404, Status,
          "WEBHOOK_NOT_FOUND")
    rotated = check("RotateWebhookSecret", webhook_service_rotate_webhook_secret.sync_detailed(
        hook.id, client=api, body=RotateWebhookSecretBody(grace_seconds=60)), 200, Webhook)
    assert rotated.secret.startswith("whsec_") and rotated.secret != hook.secret, rotated
    check("RotateWebhookSecret", webhook_service_rotate_webhook_secret.sync_detailed(
        hook.id, client=api, body=RotateWebhookSecretBody(grace_seconds=-1)), 400, Status, "INVALID_ARGUMENT")
    replayed = check("ReplayWebhook", webhook_service_replay_webhook.sync_detailed(
        hook.id, client=api, body=ReplayWebhookBody(after=hook.cursor)), 200, Webhook)
    assert replayed.cursor == hook.cursor, replayed
    check("ReplayWebhook", webhook_service_replay_webhook.sync_detailed(
        hook.id, client=api, body=ReplayWebhookBody(after="nonsense")), 400, Status, "INVALID_CURSOR")
    log = check("ListWebhookDeliveries", webhook_service_list_webhook_deliveries.sync_detailed(
        hook.id, client=api, failures_only=True), 200, ListWebhookDeliveriesResponse)
    assert log.data == [], log
    # A logged delivery to resend: resume, write an issue, wait for its delivery.
    webhook_service_update_webhook.sync_detailed(hook.id, client=api, body=WebhookUpdate(state=WebhookState.ACTIVE))
    issue_service_create_issue.sync_detailed(client=api, body=CreateIssueRequest(
        property_id="BER1", room_number="102", title="Webhook delivery", category=IssueCategory.OTHER,
        reported_by="client"))
    delivered = []
    for _ in range(100):
        delivered = webhook_service_list_webhook_deliveries.sync_detailed(hook.id, client=api).parsed.data
        if delivered:
            break
        time.sleep(0.1)
    resent = check("ResendWebhookDelivery", webhook_service_resend_webhook_delivery.sync_detailed(
        hook.id, delivered[0].id if delivered else "1", client=api, body=ResendWebhookDeliveryBody()), 200,
        WebhookDelivery)
    assert resent.attempt == 0 and resent.succeeded, resent
    check("ResendWebhookDelivery", webhook_service_resend_webhook_delivery.sync_detailed(
        hook.id, "999999999", client=api, body=ResendWebhookDeliveryBody()), 404, Status,
        "WEBHOOK_DELIVERY_NOT_FOUND")
    check("ListWebhookDeliveries", webhook_service_list_webhook_deliveries.sync_detailed(
        str(uuid.uuid4()), client=api), 404, Status, "WEBHOOK_NOT_FOUND")
    check("DeleteWebhook", webhook_service_delete_webhook.sync_detailed(hook.id, client=api), 200,
          DeleteWebhookResponse)
    check("DeleteWebhook", webhook_service_delete_webhook.sync_detailed(hook.id, client=api), 404, Status,
          "WEBHOOK_NOT_FOUND")
    endpoint.shutdown()


def room_blocks():
    """Room blocks (1.3.0): a block made, read, listed, moved and cancelled; a batch; availability."""
    def request(room, start, end):
        return CreateRoomBlockRequest(property_id="BER1", room_number=room, type_=RoomBlockType.OUT_OF_ORDER,
                                      start_date=start, end_date=end, reason="Renovation")
    block = check("CreateRoomBlock", room_block_service_create_room_block.sync_detailed(
        client=api, body=request("110", "2031-01-10", "2031-01-15")), 201, RoomBlock)
    check("CreateRoomBlock", room_block_service_create_room_block.sync_detailed(
        client=api, body=request("110", "2031-01-12", "2031-01-20")), 409, Status, "ROOM_BLOCK_OVERLAP")
    check("GetRoomBlock", room_block_service_get_room_block.sync_detailed(block.id, client=api), 200, RoomBlock)
    check("GetRoomBlock", room_block_service_get_room_block.sync_detailed(str(uuid.uuid4()), client=api), 404,
          Status, "ROOM_BLOCK_NOT_FOUND")
    check("ListRoomBlocks", room_block_service_list_room_blocks.sync_detailed(
        client=api, property_id="BER1", from_date="2031-01-01", to_date="2031-02-01"), 200, ListRoomBlocksResponse)
    check("ListRoomBlocks", room_block_service_list_room_blocks.sync_detailed(client=api, property_id="NOPE1"), 404,
          Status, "PROPERTY_NOT_FOUND")
    moved = check("UpdateRoomBlock", room_block_service_update_room_block.sync_detailed(
        block.id, client=api, body=RoomBlockUpdate(end_date="2031-01-16"), if_match=f'"{block.etag}"'), 200, RoomBlock)
    check("UpdateRoomBlock", room_block_service_update_room_block.sync_detailed(
        block.id, client=api, body=RoomBlockUpdate(end_date="2031-01-17"), if_match=f'"{block.etag}"'), 409, Status,
        "ETAG_MISMATCH")
    check("CancelRoomBlock", room_block_service_cancel_room_block.sync_detailed(
        block.id, client=api, body=CancelRoomBlockBody(etag=moved.etag)), 200, RoomBlock)
    check("CancelRoomBlock", room_block_service_cancel_room_block.sync_detailed(
        str(uuid.uuid4()), client=api, body=CancelRoomBlockBody()), 404, Status, "ROOM_BLOCK_NOT_FOUND")
    check("BatchCreateRoomBlocks", room_block_service_batch_create_room_blocks.sync_detailed(
        client=api, body=BatchCreateRoomBlocksRequest(requests=[request("109", "2031-02-01", "2031-02-03"),
                                                                request("108", "2031-02-01", "2031-02-03")])),
        200, BatchCreateRoomBlocksResponse)
    check("BatchCreateRoomBlocks", room_block_service_batch_create_room_blocks.sync_detailed(
        client=api, body=BatchCreateRoomBlocksRequest(requests=[request("999", "2031-02-01", "2031-02-03")])),
        404, Status, "ROOM_NOT_FOUND")
    check("GetPropertyAvailability", room_block_service_get_property_availability.sync_detailed(
        "BER1", client=api, from_date="2031-01-30", to_date="2031-02-04"), 200, PropertyAvailability)
    check("GetPropertyAvailability", room_block_service_get_property_availability.sync_detailed(
        "NOPE1", client=api, from_date="2031-01-30", to_date="2031-02-04"), 404, Status, "PROPERTY_NOT_FOUND")


def housekeeping():
    """Housekeeping (1.4.0): one room cleaned and inspected, a floor set at once, the overview, a history."""
    clean = check("UpdateRoomHousekeeping", housekeeping_service_update_room_housekeeping.sync_detailed(
        "104", client=api, property_id="BER1", body=RoomHousekeepingUpdate(condition=RoomHousekeepingCondition.CLEAN,
                                                                            updated_by="Ana")), 200, RoomHousekeeping)
    assert clean.condition == "CLEAN", clean
    check("UpdateRoomHousekeeping", housekeeping_service_update_room_housekeeping.sync_detailed(
        "105", client=api, property_id="BER1", body=RoomHousekeepingUpdate(
            condition=RoomHousekeepingCondition.INSPECTED)), 400, Status, "ROOM_NOT_CLEAN")
    done = check("SetHousekeeping", housekeeping_service_set_housekeeping.sync_detailed(
        "BER1", client=api, body=SetHousekeepingBody(
            room_numbers=["104", "106"], occupancy=RoomHousekeepingOccupancy.VACANT, occupancy_source="pms",
            request_id=str(uuid.uuid4()))), 200, SetHousekeepingResponse)
    assert [r.room_number for r in done.rooms] == ["104", "106"], done
    check("SetHousekeeping", housekeeping_service_set_housekeeping.sync_detailed(
        "BER1", client=api, body=SetHousekeepingBody(room_numbers=["104", "999"],
                                                     condition=RoomHousekeepingCondition.DIRTY)), 404, Status,
          "ROOM_NOT_FOUND")
    overview = check("GetHousekeepingOverview", housekeeping_service_get_housekeeping_overview.sync_detailed(
        "BER1", client=api), 200, HousekeepingOverview)
    assert overview.total.rooms >= 2, overview
    check("GetHousekeepingOverview", housekeeping_service_get_housekeeping_overview.sync_detailed(
        "NOPE1", client=api), 404, Status, "PROPERTY_NOT_FOUND")
    history = check("ListHousekeepingHistory", housekeeping_service_list_housekeeping_history.sync_detailed(
        "104", client=api, property_id="BER1"), 200, ListHousekeepingHistoryResponse)
    assert len(history.data) >= 2, history
    check("ListHousekeepingHistory", housekeeping_service_list_housekeeping_history.sync_detailed(
        "999", client=api, property_id="BER1"), 404, Status, "ROOM_NOT_FOUND")
    # The policy (1.5.0): read, changed, and a value out of range refused.
    policy = check("GetHousekeepingPolicy", housekeeping_service_get_housekeeping_policy.sync_detailed(
        "BER1", client=api), 200, HousekeepingPolicy)
    check("GetHousekeepingPolicy", housekeeping_service_get_housekeeping_policy.sync_detailed(
        "NOPE1", client=api), 404, Status, "PROPERTY_NOT_FOUND")
    changed = check("UpdateHousekeepingPolicy", housekeeping_service_update_housekeeping_policy.sync_detailed(
        "BER1", client=api, body=HousekeepingPolicyUpdate(vacant_dirty_after_days=2, etag=policy.etag)), 200,
        HousekeepingPolicy)
    assert changed.vacant_dirty_after_days == 2, changed
    check("UpdateHousekeepingPolicy", housekeeping_service_update_housekeeping_policy.sync_detailed(
        "BER1", client=api, body=HousekeepingPolicyUpdate(vacant_dirty_after_days=8)), 400, Status,
          "INVALID_ARGUMENT")


PARTS = [("health", health), ("rooms", rooms), ("room_data", room_data), ("images", images), ("uploads", uploads),
         ("maintenance", maintenance), ("changes", changes), ("webhooks", webhooks), ("room_blocks", room_blocks),
         ("housekeeping", housekeeping)]
for name, part in PARTS:
    run(name, part)
operations = {op: f for op, f in results.items() if op not in dict(PARTS)}
failures = [f"{op}: {f}" for op, fs in results.items() for f in fs]
print(json.dumps({"generator": "openapi-python-client", "operations": len(operations),
                  "passed": sum(1 for fs in operations.values() if not fs), "calls": calls, "failures": failures}))
