"""Image uploads through the real gateway (multipart/form-data) and over gRPC (UploadImage, a client
stream) into a real S3 implementation on loopback (moto's server), with a real server and
PostgreSQL: every variant fetched back from the bucket and decoded, duplicates answered once,
hostile uploads refused with a clear 4xx and nothing stored, concurrent large uploads either
served or shed with 503 and Retry-After (docs/images.md#uploading-images)."""
import concurrent.futures
import http.client
import io
import json
import os
import socket
import threading
import urllib.request

import boto3
import grpc
import pytest
from PIL import Image, ImageDraw

from conftest import local_stack
from objectstore import environment, moto_server
from stack import wait_for
from upload_body import multipart

BUCKET = "hotel-images"
PREFIX = "uploads/"
UPLOAD = "/hotel.v1.ImageService/UploadImage"
VARIANTS = ("thumbnail", "medium", "large", "original")
PIL_FORMATS = {"jpeg": "JPEG", "png": "PNG", "webp": "WEBP"}
CONTENT_TYPES = {"jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp"}


@pytest.fixture(scope="module")
def store():
    """moto's S3 server with the images bucket."""
    with moto_server() as endpoint:
        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/{BUCKET}", method="PUT"), timeout=10).close()
        yield endpoint


def store_env(store):
    """The settings that point the server and hotel-images at the bucket (docs/operations.md)."""
    return {"IMAGE_STORE": "s3", "IMAGE_S3_BUCKET": BUCKET, "IMAGE_S3_PREFIX": PREFIX, "IMAGE_S3_ENDPOINT": store,
            "AWS_ACCESS_KEY_ID": "uploads", "AWS_SECRET_ACCESS_KEY": "uploads-secret"}


@pytest.fixture(scope="module")
def uploads(store):
    """A server storing in the bucket (IMAGE_STORE=s3; URLs point into it) and its gateway. Two
    render slots and a short queue, so 16 concurrent uploads are partly shed."""
    with environment(**store_env(store), IMAGE_RENDER_LIMIT="2", IMAGE_RENDER_QUEUE="2",
                     IMAGE_RENDER_QUEUE_TIMEOUT="100ms"):
        stack = local_stack("hotel_uploads", server_args=("--cdn-base-url", f"{store}/{BUCKET}/{PREFIX[:-1]}"))
    yield stack
    stack.stop()


# Pictures, made with Pillow.

def encoded(image, fmt, **options):
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def photo(width, height, seed=0):
    """An RGB picture with shapes (so each seed differs and JPEG has something to encode)."""
    image = Image.new("RGB", (width, height), (40 + seed % 200, 90, 160))
    draw = ImageDraw.Draw(image)
    for i in range(12):
        x, y = (i * 97 + seed * 31) % width, (i * 53 + seed * 17) % height
        draw.ellipse((x, y, x + width // 5, y + height // 5), fill=((i * 40) % 256, (seed * 7) % 256, 200 - i * 10))
    return image


def jpeg_with_exif(width=600, height=400, seed=1):
    """A JPEG whose EXIF says "rotate 90° clockwise to view" (orientation 6) and carries a GPS position."""
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation
    exif[0x010F] = "Hotel Test Camera"  # Make
    gps = exif.get_ifd(0x8825)
    gps.update({1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 36.0)})
    return encoded(photo(width, height, seed), "JPEG", quality=90, exif=exif)


def transparent_png(width=500, height=300):
    image = Image.new("RGBA", (width, height), (255, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((50, 50, 300, 200), fill=(0, 128, 255, 180))
    return encoded(image, "PNG")


def webp_picture(width=640, height=480, seed=3):
    return encoded(photo(width, height, seed), "WEBP", quality=85)


def huge_png_header(width=50_000, height=50_000):
    """A tiny PNG file whose header claims width x height pixels (a decompression bomb)."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


# REST.

def upload_rest(api, path, file_bytes, after=None, **fields):
    body, content_type = multipart(file_bytes, after=after, **fields)
    return api.request("POST", path, raw=body, headers={"Content-Type": content_type}, timeout=120)


def upload_rest_as_a_client_would(api, path, file_bytes, **fields):
    """upload_rest, retried after a 503 with Retry-After as a client does: moto's server (the test's
    S3) sometimes answers two simultaneous PUTs of one key with a 500, which the service passes on as
    a retryable OBJECT_STORE_UNAVAILABLE; real S3 takes both."""
    for _ in range(3):
        answer = upload_rest(api, path, file_bytes, **fields)
        if answer.status != 503:
            return answer
        assert answer.reason() in ("OBJECT_STORE_UNAVAILABLE", "OVERLOADED") and "Retry-After" in answer.headers, answer
        assert "http" not in json.dumps(answer.json), "the error names no store address"
    return answer


def send_raw(api, path, headers, body_parts, close_after=False):
    """Sends a request on a raw socket in a thread while reading the answer (a server may answer,
    and stop reading, before the body is sent). close_after: the client disconnects after the
    parts instead (then no answer is expected). Returns (status, headers, body) or None."""
    sock = socket.create_connection(("127.0.0.1", api.http_port), timeout=60)
    head = f"POST /api/v1{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"

    def write():
        try:
            sock.sendall(head.encode())
            for part in body_parts:
                sock.sendall(part)
        except OSError:
            pass  # the server answered and stopped reading

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    if close_after:
        writer.join()
        sock.close()
        return None
    response = http.client.HTTPResponse(sock)
    response.begin()
    answer = (response.status, dict(response.getheaders()), response.read())
    sock.close()
    return answer


# gRPC, with hand-encoded messages (the tests use no generated stubs).

def varint(n):
    out = b""
    while True:
        byte, n = n & 0x7F, n >> 7
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def length_delimited(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def metadata_message(room_type_id="", property_id="", number="", alt_text="", sort_order=None, request_id=""):
    body = b""
    for field, value in ((1, room_type_id), (2, property_id), (3, number), (4, alt_text), (6, request_id)):
        if value:
            body += length_delimited(field, value.encode())
    if sort_order is not None:
        body += varint(5 << 3) + varint(sort_order)
    return length_delimited(1, body)


def chunk_messages(data, size=64 << 10):
    return [length_delimited(2, data[i:i + size]) for i in range(0, len(data), size)]


def fields_of(message):
    """{field number: [values]} of a protobuf message (varints as ints, the rest as bytes)."""
    fields, i = {}, 0
    while i < len(message):
        key, i = read_varint(message, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(message, i)
        else:
            length, i = read_varint(message, i)
            value, i = message[i:i + length], i + length
        fields.setdefault(number, []).append(value)
    return fields


def read_varint(data, i):
    n = shift = 0
    while True:
        byte = data[i]
        n |= (byte & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not byte & 0x80:
            return n, i


def upload_grpc(api, messages, timeout=60):
    """(image id, created, width, height) of an UploadImage call sending messages."""
    with grpc.insecure_channel(api.grpc_addr) as channel:
        call = channel.stream_unary(UPLOAD, request_serializer=None, response_deserializer=None)
        response = fields_of(call(iter(messages), timeout=timeout))
    image = fields_of(response[1][0])
    return image[1][0].decode(), bool(response.get(2, [0])[0]), image[4][0], image[5][0]


def grpc_error(api, messages, timeout=30):
    with grpc.insecure_channel(api.grpc_addr) as channel:
        call = channel.stream_unary(UPLOAD, request_serializer=None, response_deserializer=None)
        with pytest.raises(grpc.RpcError) as err:
            call(iter(messages), timeout=timeout)
    return err.value


# The store.

def s3(store):
    """A signed S3 client: objects are private (a CDN reads them with its own credentials)."""
    return boto3.client("s3", endpoint_url=store, region_name="us-east-1", aws_access_key_id="uploads",
                        aws_secret_access_key="uploads-secret")


def stored_keys(store):
    return {o["Key"] for o in s3(store).list_objects_v2(Bucket=BUCKET).get("Contents", [])}


def fetch(url):
    """(Content-Type, Cache-Control, bytes) of the object a URL names (CDN base = endpoint/bucket/prefix)."""
    endpoint, key = url.split(f"/{BUCKET}/", 1)
    got = s3(endpoint).get_object(Bucket=BUCKET, Key=key)
    return {"Content-Type": got["ContentType"], "Cache-Control": got["CacheControl"]}, got["Body"].read()


def files_of(image):
    for name in VARIANTS:
        variant = image["variants"][name]
        yield name, variant
        if variant.get("webp"):
            yield name, variant["webp"]


def check_delivered(image):
    """Every file of image decodes from the bucket with its listed size and format, its headers
    right, and no EXIF or GPS left in it."""
    for name, file in files_of(image):
        headers, data = fetch(file["url"])
        assert headers["Content-Type"] == CONTENT_TYPES[file["format"]], (name, file)
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable", (name, file)
        assert len(data) == int(file["bytes"]), (name, file)
        picture = Image.open(io.BytesIO(data))
        assert picture.format == PIL_FORMATS[file["format"]], (name, file)
        assert picture.size == (file["width"], file["height"]), (name, file)
        assert not picture.getexif(), (name, file, dict(picture.getexif()))
        assert "exif" not in picture.info and b"Exif\0\0" not in data and b"Hotel Test Camera" not in data, (name, file)


def gallery(api, room_type):
    resp = api.get(f"/room-types/{room_type}/images")
    assert resp.status == 200, resp
    return resp.json["data"]


def test_a_jpeg_with_exif_orientation_and_gps_is_uploaded_upright_and_clean(uploads):
    original = jpeg_with_exif(600, 400)
    assert Image.open(io.BytesIO(original)).getexif().get_ifd(0x8825), "the test picture carries GPS"
    resp = upload_rest(uploads, "/room-types/BER1-STD/images", original, alt_text="The renovated suite",
                       sort_order="7")
    assert resp.status == 201, resp
    image = resp.json
    assert (image["width"], image["height"]) == (400, 600)  # turned upright
    assert image["alt_text"] == "The renovated suite" and image["sort_order"] == 7
    assert image["variants"]["original"]["format"] == "jpeg"
    check_delivered(image)
    # The gallery (and so the room type's detail) shows the same object.
    assert image in gallery(uploads, "BER1-STD")


def test_a_transparent_png_keeps_its_alpha_in_the_original_and_is_flattened_in_jpegs(uploads):
    resp = upload_rest(uploads, "/rooms/101/images?property_id=BER1", transparent_png(), filename="plan.png",
                       content_type="image/png", alt_text="Floor plan")
    assert resp.status == 201, resp
    image = resp.json
    check_delivered(image)
    _, data = fetch(image["variants"]["original"]["url"])
    original = Image.open(io.BytesIO(data))
    assert original.format == "PNG" and original.mode == "RGBA"
    assert original.getpixel((10, 10))[3] == 0  # still transparent
    _, data = fetch(image["variants"]["thumbnail"]["url"])
    assert Image.open(io.BytesIO(data)).mode == "RGB"
    rooms = uploads.get("/rooms/101/images?property_id=BER1")
    assert [i["id"] for i in rooms.json["data"]] == [image["id"]]


def test_a_webp_original_is_accepted_over_grpc(uploads):
    messages = [metadata_message(room_type_id="BER1-STD", alt_text="Balcony at dusk")] + \
        chunk_messages(webp_picture(640, 480))
    image_id, created, width, height = upload_grpc(uploads, messages)
    assert created and (width, height) == (640, 480)
    image = next(i for i in gallery(uploads, "BER1-STD") if i["id"] == image_id)
    assert image["variants"]["medium"]["width"] == 640  # never scaled up
    # A WebP original is delivered as JPEG (no alpha); each variant has its WebP rendition.
    assert image["variants"]["original"]["format"] == "jpeg"
    check_delivered(image)


def test_the_exif_jpeg_and_a_png_over_grpc_match_rest(uploads):
    messages = [metadata_message(property_id="BER1", number="102", alt_text="Desk", sort_order=1)] + \
        chunk_messages(jpeg_with_exif(900, 500, seed=9))
    image_id, created, width, height = upload_grpc(uploads, messages)
    assert created and (width, height) == (500, 900)
    resp = uploads.get("/rooms/102/images?property_id=BER1")
    image = next(i for i in resp.json["data"] if i["id"] == image_id)
    check_delivered(image)
    png = [metadata_message(room_type_id="LIS1-STD", alt_text="Logo")] + chunk_messages(transparent_png(320, 200))
    image_id, created, _, _ = upload_grpc(uploads, png)
    assert created
    check_delivered(next(i for i in gallery(uploads, "LIS1-STD") if i["id"] == image_id))


def test_a_retry_with_the_same_request_id_answers_the_first_image(uploads):
    picture = encoded(photo(800, 600, seed=21), "JPEG", quality=88)
    first = upload_rest(uploads, "/room-types/LIS1-STD/images", picture, alt_text="Lobby", request_id="retry-1")
    assert first.status == 201, first
    again = upload_rest(uploads, "/room-types/LIS1-STD/images", picture, alt_text="Lobby", request_id="retry-1")
    assert again.status == 200, again
    assert again.json == first.json
    # Over gRPC too.
    messages = [metadata_message(room_type_id="LIS1-STD", alt_text="Lobby", request_id="retry-1")] + \
        chunk_messages(picture)
    image_id, created, _, _ = upload_grpc(uploads, messages)
    assert (image_id, created) == (first.json["id"], False)
    # Another file under the same id is another request, refused as every reused request_id is
    # (a client reusing ids must not get an image that is not the one it sent); nothing added.
    before = gallery(uploads, "LIS1-STD")
    other_file = encoded(photo(300, 200, seed=22), "JPEG")
    reused = upload_rest(uploads, "/room-types/LIS1-STD/images", other_file, alt_text="Lobby", request_id="retry-1")
    assert reused.status == 400 and reused.reason() == "REQUEST_ID_REUSED", reused
    messages = [metadata_message(room_type_id="LIS1-STD", alt_text="Lobby", request_id="retry-1")] + \
        chunk_messages(other_file)
    assert grpc_error(uploads, messages).code() == grpc.StatusCode.FAILED_PRECONDITION
    assert gallery(uploads, "LIS1-STD") == before
    # Another gallery may not reuse it: refused as every request_id reused for another request is.
    before = gallery(uploads, "BER1-STD")
    other = upload_rest(uploads, "/room-types/BER1-STD/images", picture, alt_text="Lobby", request_id="retry-1")
    assert other.status == 400 and other.reason() == "REQUEST_ID_REUSED", other
    assert gallery(uploads, "BER1-STD") == before


def test_fields_after_the_file_count_as_before_it(uploads, store):
    """Generators write the parts in orders of their own (openapi-python-client: the required ones,
    alt_text and file, then sort_order and request_id): fields after the file count the same."""
    picture = encoded(photo(640, 480, seed=61), "JPEG")
    first = upload_rest(uploads, "/rooms/102/images?property_id=BER1", picture,
                        after={"alt_text": "Desk", "sort_order": 0, "request_id": "after-1"})
    assert first.status == 201 and (first.json["alt_text"], first.json["sort_order"]) == ("Desk", 0), first
    again = upload_rest(uploads, "/rooms/102/images?property_id=BER1", picture,
                        alt_text="Desk", after={"request_id": "after-1"})
    assert again.status == 200 and again.json["id"] == first.json["id"], again
    # Judged as before it once the file has arrived, and refused: nothing stored.
    for fields, after, field in (({"alt_text": "x"}, {"sort_order": -3}, "sort_order"),
                                 ({"alt_text": "x"}, {"alt_text": "y"}, "alt_text"),
                                 ({}, {"sort_order": 1}, "alt_text")):
        refused = refused_without_trace(uploads, store, lambda: upload_rest(
            uploads, "/room-types/LIS1-DLX/images", picture, after=after, **fields))
        assert refused.status == 400 and refused.violations() == [field], refused
    refused = refused_without_trace(uploads, store, lambda: upload_rest(
        uploads, "/room-types/LIS1-DLX/images", picture, alt_text="x", after={"caption": "y"}))
    assert refused.status == 400 and refused.reason() == "UNKNOWN_FIELD" and refused.violations() == ["caption"]
    # Over gRPC: a closing metadata message after the chunks, and nothing after it.
    messages = [metadata_message(room_type_id="LIS1-DLX")] + chunk_messages(picture)
    error = refused_without_trace(uploads, store, lambda: grpc_error(
        uploads, messages + [metadata_message(alt_text="Closing")] + chunk_messages(picture)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "last message" in error.details(), error
    image_id, created, _, _ = upload_grpc(
        uploads, messages + [metadata_message(alt_text="Closing", sort_order=7, request_id="closing-1")])
    image = next(i for i in gallery(uploads, "LIS1-DLX") if i["id"] == image_id)
    assert created and (image["alt_text"], image["sort_order"]) == ("Closing", 7), image


def test_the_same_file_twice_at_once_is_one_image(uploads):
    picture = encoded(photo(1600, 1200, seed=31), "JPEG", quality=90)
    before = len(gallery(uploads, "BER1-STD"))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: upload_rest_as_a_client_would(uploads, "/room-types/BER1-STD/images",
                                                                        picture, alt_text="Twice"), range(2)))
    assert sorted(a.status for a in answers) == [200, 201], answers
    assert answers[0].json["id"] == answers[1].json["id"]
    assert len(gallery(uploads, "BER1-STD")) == before + 1
    # The same request id twice at once with different files: the database decides which is the
    # request; the other is a reused id (400), and one image is added.
    pictures = [encoded(photo(700, 500, seed=s), "JPEG") for s in (41, 42)]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda p: upload_rest_as_a_client_would(
            uploads, "/room-types/BER1-STD/images", p, alt_text="Race", request_id="race-1"), pictures))
    assert sorted(a.status for a in answers) == [201, 400], answers
    assert [a.reason() for a in answers if a.status == 400] == ["REQUEST_ID_REUSED"], answers
    assert len(gallery(uploads, "BER1-STD")) == before + 2


def refused_without_trace(uploads, store, send):
    """Runs send (which must be refused) and checks that nothing reached the bucket or a gallery."""
    keys, images = stored_keys(store), gallery(uploads, "LIS1-DLX")
    answer = send()
    assert stored_keys(store) == keys
    assert gallery(uploads, "LIS1-DLX") == images
    return answer


@pytest.mark.parametrize("picture, filename, reason", [
    (huge_png_header(), "bomb.png", "IMAGE_TOO_LARGE"),
    (encoded(photo(1200, 900, seed=5), "JPEG")[:6000], "cut.jpg", "CORRUPT_IMAGE"),
    (b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>", "photo.jpg", "UNSUPPORTED_IMAGE"),
])
def test_hostile_files_are_refused_naming_the_file(uploads, store, picture, filename, reason):
    resp = refused_without_trace(uploads, store, lambda: upload_rest(
        uploads, "/room-types/LIS1-DLX/images", picture, filename=filename, alt_text="Hostile"))
    assert resp.status == 400, resp
    assert resp.reason() == reason and resp.violations() == ["file"], resp
    error = refused_without_trace(uploads, store, lambda: grpc_error(
        uploads, [metadata_message(room_type_id="LIS1-DLX", alt_text="Hostile")] + chunk_messages(picture)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error


def test_bad_metadata_is_refused_naming_the_field(uploads):
    picture = encoded(photo(200, 100), "JPEG")
    resp = upload_rest(uploads, "/room-types/LIS1-DLX/images", picture)
    assert resp.status == 400 and resp.violations() == ["alt_text"], resp
    resp = upload_rest(uploads, "/room-types/NOPE-XXX/images", picture, alt_text="x")
    assert resp.status == 404 and resp.reason() == "ROOM_TYPE_NOT_FOUND", resp
    resp = upload_rest(uploads, "/rooms/101/images", picture, alt_text="x")
    assert resp.status == 400 and resp.violations() == ["property_id"], resp
    resp = upload_rest(uploads, "/room-types/LIS1-DLX/images", picture, alt_text="x", sort_order="first")
    assert resp.status == 400 and resp.violations() == ["sort_order"], resp
    resp = uploads.post("/room-types/LIS1-DLX/images", {"alt_text": "json is not an upload"})
    assert resp.status == 415 and resp.violations() == ["content-type"], resp
    error = grpc_error(uploads, chunk_messages(picture))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "metadata" in error.details()


def test_an_upload_over_40_mib_is_refused_with_413_as_soon_as_it_passes(uploads, store):
    # Announced (Content-Length): refused before any of it is read.
    big = os.urandom(1 << 20) * 41
    body, content_type = multipart(big, alt_text="Too big")
    status, headers, data = refused_without_trace(uploads, store, lambda: send_raw(
        uploads, "/room-types/LIS1-DLX/images", {"Content-Type": content_type, "Content-Length": len(body)}, [body]))
    assert status == 413, (status, data)
    assert json.loads(data)["details"][0]["reason"] == "PAYLOAD_TOO_LARGE"
    # Chunked (no length announced): refused once 40 MiB of the file have arrived.
    chunks = [b"%x\r\n" % len(part) + part + b"\r\n" for part in
              (body[i:i + (1 << 20)] for i in range(0, len(body), 1 << 20))] + [b"0\r\n\r\n"]
    status, headers, data = refused_without_trace(uploads, store, lambda: send_raw(
        uploads, "/room-types/LIS1-DLX/images", {"Content-Type": content_type, "Transfer-Encoding": "chunked"},
        chunks))
    assert status == 413, (status, data)


def cancelled_uploads(api):
    """UploadImage calls the server logged as CANCELLED (gRPC status 1)."""
    with open(api.server_log) as f:
        return sum(1 for line in f if '"rpc.method":"UploadImage"' in line and '"rpc.grpc.status_code":1,' in line)


def test_a_client_disconnecting_midway_stores_nothing(uploads, store):
    picture = encoded(photo(2000, 1500, seed=51), "JPEG", quality=95)
    body, content_type = multipart(picture, alt_text="Cut off", request_id="cut-off-rest")
    keys, images, cancelled = stored_keys(store), gallery(uploads, "LIS1-DLX"), cancelled_uploads(uploads)
    send_raw(uploads, "/room-types/LIS1-DLX/images",
             {"Content-Type": content_type, "Content-Length": len(body)}, [body[:len(body) // 2]], close_after=True)
    # The server sees its stream cancelled (the call's log line says so), and stores nothing.
    assert wait_for(lambda: cancelled_uploads(uploads) == cancelled + 1, 30), "no cancelled upload logged"
    assert stored_keys(store) == keys and gallery(uploads, "LIS1-DLX") == images
    # The same request id then works: nothing of the first attempt was kept.
    resp = upload_rest(uploads, "/room-types/LIS1-DLX/images", picture, alt_text="Cut off", request_id="cut-off-rest")
    assert resp.status == 201, resp


def test_a_grpc_client_cancelling_midway_stores_nothing(uploads, store):
    picture = encoded(photo(2000, 1500, seed=52), "JPEG", quality=95)
    messages = [metadata_message(room_type_id="LIS1-DLX", alt_text="Cancelled")] + chunk_messages(picture)
    half_sent, stop = threading.Event(), threading.Event()

    def stream():
        for i, message in enumerate(messages):
            if i == len(messages) // 2:
                half_sent.set()
                stop.wait(30)
                return
            yield message

    keys, images, cancelled = stored_keys(store), gallery(uploads, "LIS1-DLX"), cancelled_uploads(uploads)
    with grpc.insecure_channel(uploads.grpc_addr) as channel:
        call = channel.stream_unary(UPLOAD, request_serializer=None, response_deserializer=None)
        future = call.future(stream(), timeout=60)
        assert half_sent.wait(30)
        future.cancel()
        stop.set()
        with pytest.raises(grpc.FutureCancelledError):
            future.result()
    assert wait_for(lambda: cancelled_uploads(uploads) == cancelled + 1, 30), "no cancelled upload logged"
    assert stored_keys(store) == keys and gallery(uploads, "LIS1-DLX") == images


def test_sixteen_concurrent_12_megapixel_uploads_succeed_or_are_shed_with_retry_after(uploads, store):
    pictures = [encoded(photo(4000, 3000, seed=100 + i), "JPEG", quality=92) for i in range(16)]
    barrier = threading.Barrier(16)

    def send(picture):
        barrier.wait()
        return upload_rest(uploads, "/room-types/BER1-DLX/images", picture, alt_text="12 MP")

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(send, pictures))
    statuses = sorted(a.status for a in answers)
    assert set(statuses) <= {200, 201, 503}, answers
    assert 201 in statuses
    for answer in answers:
        if answer.status == 503:
            assert answer.reason() == "OVERLOADED" and int(answer.headers["Retry-After"]) >= 1, answer
    # Nothing half-stored: every image created is whole in the bucket, and only those are listed.
    created = [a.json["id"] for a in answers if a.status == 201]
    listed = [i for i in gallery(uploads, "BER1-DLX") if i["alt_text"] == "12 MP"]
    assert sorted(i["id"] for i in listed) == sorted(created)
    keys = stored_keys(store)
    for image in listed:
        for _, file in files_of(image):
            assert PREFIX + file["url"].split(f"/{PREFIX}", 1)[1] in keys, file


def collect_garbage(api, store, grace):
    env = dict(os.environ, DATABASE_URL=api.db_url, **store_env(store))
    env.pop("MIGRATION_DATABASE_URL", None)
    out = api.tool("hotel-images", "gc", "--grace", grace, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def keys_of(image):
    return {PREFIX + file["url"].split(f"/{PREFIX}", 1)[1] for _, file in files_of(image)}


def live_keys(api):
    keys = set()
    for room_type in ("BER1-STD", "BER1-DLX", "LIS1-STD", "LIS1-DLX"):
        for image in gallery(api, room_type):
            keys |= keys_of(image)
    return keys


def test_garbage_collection_deletes_files_no_image_uses_after_the_grace_period(uploads, store):
    # Nothing any image uses is ever collected, whatever the grace period.
    live = live_keys(uploads)
    assert live <= stored_keys(store)
    collect_garbage(uploads, store, "0s")
    assert live <= stored_keys(store)
    # One file in two galleries: the same content keys, shared.
    picture = encoded(photo(1000, 700, seed=77), "JPEG", quality=90)
    first = upload_rest(uploads, "/room-types/LIS1-STD/images", picture, alt_text="Shared").json
    second = upload_rest(uploads, "/rooms/103/images?property_id=BER1", picture, alt_text="Shared").json
    assert keys_of(first) == keys_of(second)
    assert uploads.request("DELETE", f"/images/{first['id']}").status == 200
    collect_garbage(uploads, store, "0s")
    assert keys_of(second) <= stored_keys(store)  # still used by the room's copy
    assert uploads.request("DELETE", f"/images/{second['id']}").status == 200
    # Within the grace period (cached pages keep working), nothing goes.
    assert collect_garbage(uploads, store, "1h")["deleted"] == 0
    assert keys_of(second) <= stored_keys(store)
    result = collect_garbage(uploads, store, "0s")
    assert result["deleted"] == len(keys_of(second))
    assert not keys_of(second) & stored_keys(store)
    assert live <= stored_keys(store)
    # A failed upload's files: reserved, written, never registered (its server died), collected too.
    orphan = "img/ee/" + "e" * 64 + ".jpg"
    uploads.psql(f"INSERT INTO image_files_released (storage_key) VALUES ('{orphan}')")
    s3(store).put_object(Bucket=BUCKET, Key=PREFIX + orphan, Body=picture, ContentType="image/jpeg")
    assert collect_garbage(uploads, store, "0s")["deleted"] == 1
    assert PREFIX + orphan not in stored_keys(store)
    assert live <= stored_keys(store)
