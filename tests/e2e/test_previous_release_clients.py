"""Enum values a minor release adds never break a client generated from the release before
(docs/versioning.md, "Enums"): OpenAPI Generator's Python and Java clients, generated untouched from the
newest baseline's document (api/baselines/<newest>/openapi.json), calls today's server on every
operation whose answer carries an enum, decodes a webhook delivery's changes with its own model,
and decodes every one of those answers again with each enum value replaced by one that no release
has (what a later release's new value looks like to it)."""
import json
import os
import subprocess
import time
import uuid

import pytest

from openapi_generator import JavaCalls, PythonCalls, java_client, python_client, seeded_stack
from stack import ROOT, wait_for
from webhook_receiver import Receiver

BASELINES = os.path.join(ROOT, "api", "baselines")
UNKNOWN = "VALUE_ADDED_LATER"
SERVER_ARGS = ["--webhook-retry-scale=0.0002", "--webhook-poll-interval=10ms"]


def newest_baseline():
    versions = sorted(os.listdir(BASELINES), key=lambda v: tuple(int(p) for p in v.split(".")))
    return versions[-1], os.path.join(BASELINES, versions[-1], "openapi.json")


def response_enums(doc):
    """{property name: values} of every enum-valued property of a response schema in doc, open
    (x-extensible-enum) or closed ($ref to an enum schema), and the schemas holding one."""
    schemas = doc["components"]["schemas"]

    def values(prop):
        if "x-extensible-enum" in prop or "enum" in prop:
            return prop.get("x-extensible-enum") or prop["enum"]
        if "$ref" in prop:
            return schemas.get(prop["$ref"].rsplit("/", 1)[-1], {}).get("enum")
        return values(prop["items"]) if isinstance(prop.get("items"), dict) else None

    enums, holders = {}, set()
    for name, schema in schemas.items():
        for prop_name, prop in schema.get("properties", {}).items():
            if values(prop):
                enums.setdefault(prop_name, set()).update(values(prop))
                holders.add(name)
    return enums, holders


def enum_operations(doc, holders):
    """operationIds whose success answer (JSON) reaches a schema holding an enum-valued property."""
    schemas = doc["components"]["schemas"]

    def reaches(node, seen):
        if isinstance(node, dict):
            name = node.get("$ref", "").rsplit("/", 1)[-1]
            if name and name not in seen:
                seen.add(name)
                if name in holders or reaches(schemas.get(name), seen):
                    return True
            return any(reaches(child, seen) for child in node.values())
        if isinstance(node, list):
            return any(reaches(child, seen) for child in node)
        return False

    found = set()
    for item in doc["paths"].values():
        for op in item.values():
            ok = next((r for code, r in op["responses"].items() if code.startswith("2")), {})
            if reaches(ok.get("content", {}).get("application/json"), set()):
                found.add(op["operationId"])
    return found


def with_unknown_values(value, enums):
    """value (a JSON tree) with every enum value replaced by UNKNOWN; the count replaced."""
    count = 0

    def walk(node):
        nonlocal count
        if isinstance(node, dict):
            for key, child in node.items():
                if key in enums and isinstance(child, str) and child in enums[key]:
                    node[key], count = UNKNOWN, count + 1
                elif key in enums and isinstance(child, list) and child and all(c in enums[key] for c in child):
                    node[key], count = [UNKNOWN] * len(child), count + len(child)
                else:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(value)
    return value, count


@pytest.fixture(scope="module")
def stack():
    s = seeded_stack("hotel_prev_clients", SERVER_ARGS)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def previous():
    """The newest baseline's version, document and generated Python package."""
    version, document = newest_baseline()
    module = python_client(document, "hotel_v" + version.replace(".", "_"))
    with open(document) as f:
        doc = json.load(f)
    return version, doc, module


def reads_every_enum_answer_and_values_added_later(client, version, doc, code, room):
    """client (PythonCalls or JavaCalls over the baseline's generated client) calls every operation
    whose answer carries an enum and reads each answer again with its enum values replaced by one
    no release has; then a webhook delivery's changes, likewise. It creates a room type `code`, a
    room `room` in BER1 and room blocks on that room."""
    enums, holders = response_enums(doc)
    expected = enum_operations(doc, holders)
    m = client.models
    call = client.call
    receiver = Receiver()
    hook = call("WebhookService_CreateWebhook", m.CreateWebhookRequest(url=receiver.url, resource_type=["ISSUE"]))
    receiver.secrets.append(hook.secret)
    issue = call("IssueService_CreateIssue", m.CreateIssueRequest(
        property_id="BER1", room_number="305", title="Leak", category="PLUMBING", priority="URGENT",
        reported_by="Front desk", request_id=str(uuid.uuid4())))
    schedule = call("ScheduleService_CreateSchedule", m.CreateScheduleRequest(
        property_id="BER1", room_number="101", task="Clean AC filters", interval_unit="MONTH", interval_count=3,
        starts_on=time.strftime("%Y-%m-%d")))
    room_type = call("RoomService_CreateRoomType", m.CreateRoomTypeRequest(
        property_id="BER1", code=code, name="Old client", category="STANDARD", size_sqm=18.5, max_guests=2,
        bed_type="QUEEN"))
    created_room = call("RoomService_CreateRoom", m.CreateRoomRequest(
        property_id="BER1", number=room, floor=9, room_type_id=room_type.id))
    # Room blocks (1.3.0) on that room, far ahead: one to read and change, one of a batch to cancel.
    block = call("RoomBlockService_CreateRoomBlock", m.CreateRoomBlockRequest(
        property_id="BER1", room_number=room, type="OUT_OF_ORDER", start_date="2034-03-01", end_date="2034-03-08",
        reason="Renovation"))
    batch = call("RoomBlockService_BatchCreateRoomBlocks", m.BatchCreateRoomBlocksRequest(requests=[
        m.CreateRoomBlockRequest(property_id="BER1", room_number=room, type="OUT_OF_SERVICE", start_date="2034-04-01",
                                 end_date="2034-04-03"),
        m.CreateRoomBlockRequest(property_id="BER1", room_number=room, type="OUT_OF_ORDER", start_date="2034-05-01",
                                 end_date="2034-05-05")]))
    answers = {
        "WebhookService_CreateWebhook": hook,
        "IssueService_CreateIssue": issue,
        "ScheduleService_CreateSchedule": schedule,
        "RoomService_CreateRoomType": room_type,
        "RoomService_CreateRoom": created_room,
        "RoomBlockService_CreateRoomBlock": block,
        "RoomBlockService_BatchCreateRoomBlocks": batch,
    }
    calls = {
        "HealthService_GetHealth": lambda: call("HealthService_GetHealth"),
        "HealthService_GetLiveness": lambda: call("HealthService_GetLiveness"),
        "HealthService_GetStartup": lambda: call("HealthService_GetStartup"),
        "RoomService_ListRoomTypes": lambda: call("RoomService_ListRoomTypes"),
        "RoomService_ListPropertyRoomTypes": lambda: call("RoomService_ListPropertyRoomTypes", "BER1"),
        "RoomService_GetRoomType": lambda: call("RoomService_GetRoomType", "BER1-STD"),
        "RoomService_UpdateRoomType": lambda: call("RoomService_UpdateRoomType", room_type.id,
                                                   m.RoomTypeUpdate(max_guests=3)),
        "RoomService_ListRooms": lambda: call("RoomService_ListRooms", page_size=5),
        "RoomService_ListPropertyRooms": lambda: call("RoomService_ListPropertyRooms", "BER1"),
        "RoomService_GetRoom": lambda: call("RoomService_GetRoom", "101", property_id="BER1"),
        "RoomService_UpdateRoom": lambda: call("RoomService_UpdateRoom", room, "BER1", m.RoomUpdate(floor=8)),
        "RoomService_BatchGetRooms": lambda: call("RoomService_BatchGetRooms", property_id="BER1",
                                                  numbers=[room, "101"]),
        # Housekeeping (1.4.0) on that room.
        "HousekeepingService_UpdateRoomHousekeeping": lambda: call(
            "HousekeepingService_UpdateRoomHousekeeping", room, "BER1", m.RoomHousekeepingUpdate(condition="DIRTY")),
        "HousekeepingService_SetHousekeeping": lambda: call("HousekeepingService_SetHousekeeping", "BER1",
                                                            m.SetHousekeepingBody(room_numbers=[room],
                                                                                  condition="CLEAN")),
        "HousekeepingService_GetHousekeepingOverview": lambda: call("HousekeepingService_GetHousekeepingOverview",
                                                                    "BER1"),
        "HousekeepingService_ListHousekeepingHistory": lambda: call("HousekeepingService_ListHousekeepingHistory",
                                                                    room, property_id="BER1"),
        "RoomBlockService_GetRoomBlock": lambda: call("RoomBlockService_GetRoomBlock", block.id),
        "RoomBlockService_ListRoomBlocks": lambda: call("RoomBlockService_ListRoomBlocks", property_id="BER1",
                                                        room_number=room),
        "RoomBlockService_UpdateRoomBlock": lambda: call("RoomBlockService_UpdateRoomBlock", block.id,
                                                         m.RoomBlockUpdate(end_date="2034-03-10", updated_by="Jonas")),
        "RoomBlockService_CancelRoomBlock": lambda: call("RoomBlockService_CancelRoomBlock", batch.room_blocks[1].id,
                                                         m.CancelRoomBlockBody(updated_by="Jonas")),
        "EquipmentService_ListEquipment": lambda: call("EquipmentService_ListEquipment", "101", property_id="BER1"),
        "EquipmentService_CreateEquipment": lambda: call("EquipmentService_CreateEquipment", "101",
                                                         m.CreateEquipmentBody(property_id="BER1", name="Fan",
                                                                               type="extractor_fan")),
        "MaintenanceService_GetRoomMaintenance": lambda: call("MaintenanceService_GetRoomMaintenance", "408",
                                                              property_id="BER1"),
        "ScheduleService_ListSchedules": lambda: call("ScheduleService_ListSchedules", property_id="BER1"),
        "ScheduleService_ApplyScheduleAction": lambda: call(
            "ScheduleService_ApplyScheduleAction", schedule.id, m.ApplyScheduleActionBody(
                action="COMPLETE", completed_by="Jonas", expected_due_on=schedule.next_due_on)),
        "IssueService_ListIssues": lambda: call("IssueService_ListIssues", property_id="BER1"),
        "IssueService_GetIssue": lambda: call("IssueService_GetIssue", issue.id),
        "IssueService_BatchGetIssues": lambda: call("IssueService_BatchGetIssues", ids=[issue.id]),
        "IssueService_UpdateIssue": lambda: call("IssueService_UpdateIssue", issue.id, m.IssueUpdate(
            status="IN_PROGRESS", updated_by="Jonas")),
        "ChangeService_ListChanges": lambda: call("ChangeService_ListChanges", page_size=100),
        "WebhookService_GetWebhook": lambda: call("WebhookService_GetWebhook", hook.id),
        "WebhookService_ListWebhooks": lambda: call("WebhookService_ListWebhooks"),
        "WebhookService_UpdateWebhook": lambda: call("WebhookService_UpdateWebhook", hook.id,
                                                     m.WebhookUpdate(property_id="BER1")),
        "WebhookService_RotateWebhookSecret": lambda: call("WebhookService_RotateWebhookSecret", hook.id,
                                                           m.RotateWebhookSecretBody(grace_seconds=60)),
        "WebhookService_ReplayWebhook": lambda: call("WebhookService_ReplayWebhook", hook.id,
                                                     m.ReplayWebhookBody(after=hook.cursor)),
    }
    missing = expected - set(answers) - set(calls)
    assert not missing, f"the {version} document has enum answers this test does not call: {sorted(missing)}"
    failures = []
    for op_id in sorted(expected):
        try:
            answer = answers[op_id] if op_id in answers else calls[op_id]()
            tree, replaced = with_unknown_values(client.tree(answer), enums)
            again = client.decode(client.type_name(answer), tree)
            assert replaced == 0 or UNKNOWN in json.dumps(client.tree(again), default=str), op_id
            answers[op_id] = (answer, replaced)
        except Exception as e:  # noqa: BLE001 - the generated client refusing an answer is the failure
            failures.append(f"{op_id}: {type(e).__name__}: {str(e)[:300]}")
    assert not failures, "\n".join(failures)
    # Every enum-valued property of the baseline is exercised with an unknown value somewhere.
    assert sum(replaced for _, replaced in answers.values()) >= len(expected), answers

    # A webhook delivery: its changes decode with the release's Change model, unknown values too.
    change_feed, _ = answers["ChangeService_ListChanges"]
    assert change_feed.data and client.type_name(change_feed) == "ListChangesResponse", change_feed
    wait_for(receiver.changes, 30)
    delivered = receiver.changes()
    receiver.close()
    assert delivered, "no webhook delivery within 30 s"
    for change in delivered:
        decoded = client.decode("Change", change)
        assert decoded.resource_type == "ISSUE", decoded
        tree, replaced = with_unknown_values(dict(change), enums)
        assert replaced >= 2 and client.decode("Change", tree).resource_type == UNKNOWN, tree


def housekeeping_changes(stack):
    """Rooms with housekeeping (1.4.0) set, so the lists and the feed the client reads carry it."""
    done = stack.post("/properties/BER1/rooms:setHousekeeping",
                      {"room_numbers": ["101", "102", "103"], "condition": "CLEAN", "occupancy": "VACANT",
                       "occupancy_source": "pms"})
    assert done.status == 200, done


def test_previous_release_python_client_reads_every_enum_answer_and_values_added_later(stack, previous):
    version, doc, module = previous
    housekeeping_changes(stack)
    reads_every_enum_answer_and_values_added_later(PythonCalls(module, stack.root), version, doc, "OLDP", "9001")


def test_previous_release_java_client_reads_every_enum_answer_and_values_added_later(stack, previous, tmp_path):
    version, doc, module = previous
    housekeeping_changes(stack)
    classpath = java_client(newest_baseline()[1])
    source = os.path.join(ROOT, "tests", "clients", "openapi-generator", "Calls.java")
    compiled = subprocess.run(["javac", "-nowarn", "-d", str(tmp_path), "-cp", classpath, source],
                              capture_output=True, text=True, timeout=300)
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    java = JavaCalls(f"{classpath}{os.pathsep}{tmp_path}", stack.root, PythonCalls(module, stack.root))
    try:
        reads_every_enum_answer_and_values_added_later(java, version, doc, "OLDJ", "9002")
    finally:
        java.close()
