"""Clients of the change feed for the tests: WatchChanges over raw gRPC (no generated Python code:
the few fields read are decoded here), Server-Sent Events through the gateway, and cursors."""
import base64
import json
import struct
import threading
import time
import urllib.error
import urllib.request

import grpc

WATCH = "/hotel.v1.ChangeService/WatchChanges"
RESOURCE_TYPES = ["RESOURCE_TYPE_UNSPECIFIED", "PROPERTY", "ROOM_TYPE", "ROOM", "IMAGE", "EQUIPMENT", "SCHEDULE",
                  "ISSUE", "ROOM_BLOCK", "HOUSEKEEPING_POLICY"]
KINDS = ["KIND_UNSPECIFIED", "CREATED", "UPDATED", "DELETED"]


def position(cursor):
    """The log position inside a cursor (version byte 3, 8 bytes big-endian, then the seal's 12 bytes)."""
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    assert raw[0] == 3 and len(raw) == 21, cursor
    return int.from_bytes(raw[1:9], "big")


def _varint(data, i):
    value = shift = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def _fields(data):
    """(number, value) of each field: ints for varints, bytes for length-delimited fields."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            size, i = _varint(data, i)
            value, i = data[i:i + size], i + size
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield number, value


def _string(number, text):
    data = text.encode()
    out, size = bytearray([(number << 3) | 2]), len(data)
    while size >= 0x80:
        out.append((size & 0x7F) | 0x80)
        size >>= 7
    out.append(size)
    return bytes(out) + data


VIEWS = ["CHANGE_VIEW_UNSPECIFIED", "BASIC", "FULL", "DIFF"]
ROOM_CHANGES = ["ROOM_CHANGES_UNSPECIFIED", "ROOM_DATA", "HOUSEKEEPING"]


def watch_request(after="", resource_types=(), property_id="", full=False, view=None, room_changes=None):
    """A WatchChangesRequest; view: "BASIC", "FULL" or "DIFF" (full=True is view FULL); room_changes (1.5.0):
    "ROOM_DATA" or "HOUSEKEEPING"."""
    body = _string(1, after) if after else b""
    for t in resource_types:
        body += bytes([2 << 3, RESOURCE_TYPES.index(t)])
    if property_id:
        body += _string(3, property_id)
    if full:
        view = "FULL"
    if view:
        body += bytes([4 << 3, VIEWS.index(view)])
    if room_changes:
        body += bytes([5 << 3, ROOM_CHANGES.index(room_changes)])
    return body


def _value(data):
    """A google.protobuf.Value as the JSON value it stands for."""
    for number, value in _fields(data):
        if number == 1:
            return None
        if number == 2:
            number_value = struct.unpack("<d", value)[0]
            return int(number_value) if number_value.is_integer() else number_value
        if number == 3:
            return value.decode()
        if number == 4:
            return bool(value)
        if number == 5:
            return decode_struct(value)
        if number == 6:
            return [_value(v) for n, v in _fields(value) if n == 1]
    return None


def decode_struct(data):
    """A google.protobuf.Struct as a dict."""
    out = {}
    for number, entry in _fields(data):
        if number == 1:
            key, value = "", b""
            for n, v in _fields(entry):
                if n == 1:
                    key = v.decode()
                elif n == 2:
                    value = v
            out[key] = _value(value)
    return out


def decode_watch_response(data):
    """{"cursor": ..., "change": None or {cursor, resource_type, resource_id, property_id, kind, etag, trace_id, ...,
    "resource" and "previous": a dict or None}}."""
    message = {"cursor": "", "change": None}
    for number, value in _fields(data):
        if number == 2:
            message["cursor"] = value.decode()
        elif number == 1:
            change = {"changed_fields": [], "resource_type": RESOURCE_TYPES[0], "kind": KINDS[0], "has_resource": False,
                      "resource": None, "previous": None}
            names = {1: "cursor", 4: "resource_id", 5: "property_id", 8: "etag", 9: "actor", 11: "trace_id"}
            for n, v in _fields(value):
                if n in names:
                    change[names[n]] = v.decode()
                elif n == 3:
                    change["resource_type"] = RESOURCE_TYPES[v]
                elif n == 6:
                    change["kind"] = KINDS[v]
                elif n == 7:
                    change["changed_fields"].append(v.decode())
                elif n == 10:
                    change["has_resource"] = True
                    change["resource"] = decode_struct(v)
                elif n == 12:
                    change["previous"] = decode_struct(v)
            message["change"] = change
    return message


def grpc_watch(channel, after="", timeout=None, **filters):
    """The call (a grpc iterator of decoded messages; .cancel() ends it)."""
    call = channel.unary_stream(WATCH, request_serializer=None, response_deserializer=decode_watch_response)
    return call(watch_request(after, **filters), timeout=timeout)


class Collector:
    """Collects a watch's changes in a thread; stops at `until` changes, an error or stop()."""

    def __init__(self, messages, until=None):
        self.messages, self.until = messages, until
        self.changes, self.heartbeats, self.error = [], 0, None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            for message in self.messages:
                if message["change"] is None:
                    self.heartbeats += 1
                    continue
                self.changes.append(message["change"])
                if self.until is not None and self.until(self.changes):
                    break
        except grpc.RpcError as err:
            self.error = err
        finally:
            self.done.set()


def sse_events(url, last_event_id=None, timeout=30, extra_headers=None):
    """Opens an SSE stream; returns (response, iterator of ("event"|"comment", id, data))."""
    headers = {"Accept": "text/event-stream", **(extra_headers or {})}
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    resp = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout)

    def events():
        event_id, event_type, data = None, None, []
        for raw in resp:
            line = raw.decode().rstrip("\n")
            if line.startswith(":"):
                yield "comment", None, line[1:].strip()
            elif line.startswith("id:"):
                event_id = line[3:].strip()
            elif line.startswith("event:"):
                event_type = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
            elif line == "" and data:
                yield event_type or "message", event_id, json.loads("\n".join(data))
                event_id, event_type, data = None, None, []
    return resp, events()


def http_error(url, headers=None):
    """The status and JSON body of a request expected to fail before streaming."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as resp:
            return resp.status, None
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def changes_until(stack, cursor, done, timeout=20, query=""):
    """The change feed after cursor (GET /changes, with query appended: "&resource_type=IMAGE"),
    paged until done(changes) holds; fails after timeout seconds."""
    changes, deadline = [], time.time() + timeout
    while time.time() < deadline:
        page = stack.get(f"/changes?after={cursor}&page_size=500{query}").json
        changes += page["data"]
        cursor = page["next_cursor"]
        if done(changes):
            return changes
        time.sleep(0.02)
    raise AssertionError(f"timed out with {len(changes)} changes: {changes[-5:]}")
