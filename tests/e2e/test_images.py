"""Images through the real gateway and over gRPC: both image endpoints, the galleries embedded in
room type and room detail, the hotel-images command, and every URL resolving on the local origin."""
import json
import os
import tempfile
import urllib.error
import urllib.request

import pytest

VARIANTS = ("thumbnail", "medium", "large", "original")
MAGIC = {"jpeg": b"\xff\xd8\xff", "png": b"\x89PNG\r\n\x1a\n", "webp": b"RIFF"}
CONTENT_TYPES = {"jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp"}


@pytest.fixture(scope="module")
def seeded(api):
    out = api.images("seed")
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def files_of(image):
    """(url, format, width, height, bytes) of every delivered file of an image."""
    for name in VARIANTS:
        variant = image["variants"][name]
        yield variant["url"], variant["format"], variant["width"], variant["height"], int(variant["bytes"])
        if variant.get("webp"):
            webp = variant["webp"]
            yield webp["url"], webp["format"], webp["width"], webp["height"], int(webp["bytes"])


def room_type_ids(api):
    resp = api.get("/room-types?page_size=100")
    assert resp.status == 200, resp
    return [t["id"] for t in resp.json["data"]]


def test_every_room_type_has_seeded_images_in_four_variants(api, seeded):
    for room_type in room_type_ids(api):
        resp = api.get(f"/room-types/{room_type}/images")
        assert resp.status == 200, resp
        # Like every list, a gallery is {"data": [...]}.
        assert set(resp.json) == {"data", "change_cursor", "etag"}, resp  # no paging; the feed's cursor (docs/changes.md); the gallery's etag
        images = resp.json["data"]
        assert len(images) == 2, (room_type, images)
        assert [i["sort_order"] for i in images] == sorted(i["sort_order"] for i in images)
        for image in images:
            assert image["alt_text"] and image["id"]
            variants = image["variants"]
            assert set(variants) == set(VARIANTS)
            thumb = variants["thumbnail"]
            assert thumb["width"] <= 200 and thumb["height"] <= 150
            assert max(thumb["width"] / 200, thumb["height"] / 150) == pytest.approx(1, abs=0.01)
            assert variants["medium"]["width"] == min(800, image["width"])
            assert variants["original"]["width"] == image["width"]
            assert variants["original"]["height"] == image["height"]
            for name in ("thumbnail", "medium", "large"):
                assert variants[name]["format"] == "jpeg"
                assert variants[name]["webp"]["format"] == "webp"
                assert variants[name]["webp"]["width"] == variants[name]["width"]
            assert variants["original"]["format"] in ("jpeg", "png")
            assert variants["original"]["webp"] is None


def test_every_returned_url_resolves_on_the_local_origin(api, seeded):
    urls = 0
    for room_type in room_type_ids(api):
        for image in api.get(f"/room-types/{room_type}/images").json["data"]:
            for url, fmt, _, _, size in files_of(image):
                assert url.startswith(api.cdn_base_url + "/img/"), url
                with urllib.request.urlopen(url, timeout=10) as resp:
                    body = resp.read()
                    assert resp.status == 200
                    assert resp.headers["Content-Type"] == CONTENT_TYPES[fmt], url
                    assert "immutable" in resp.headers["Cache-Control"]
                assert len(body) == size, url
                assert body.startswith(MAGIC[fmt]), url
                if fmt == "webp":
                    assert body[8:12] == b"WEBP"
                urls += 1
    assert urls >= 7 * 2 * 6


def fetch(url, method="GET", headers=None):
    req = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def test_the_origin_answers_head_and_range_requests_for_a_real_variant(api, seeded):
    image = api.get(f"/room-types/{room_type_ids(api)[0]}/images").json["data"][0]
    url, fmt, _, _, size = next(files_of(image))
    status, headers, full = fetch(url)
    assert status == 200 and len(full) == size

    status, headers, body = fetch(url, "HEAD")
    assert status == 200 and body == b""
    assert int(headers["Content-Length"]) == size
    assert headers["Content-Type"] == CONTENT_TYPES[fmt]
    assert headers["Accept-Ranges"] == "bytes"
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    etag = headers["ETag"]
    assert etag.strip('"') in url  # the content hash the key is made of

    status, headers, body = fetch(url, headers={"Range": "bytes=0-9"})
    assert status == 206 and body == full[:10]
    assert headers["Content-Range"] == f"bytes 0-9/{size}"
    status, _, body = fetch(url, headers={"Range": f"bytes={size - 4}-"})
    assert status == 206 and body == full[-4:]
    status, _, body = fetch(url, headers={"If-None-Match": etag})
    assert status == 304 and body == b""


def test_the_origin_serves_nothing_but_regular_files_inside_it(api, seeded):
    os.symlink("/etc", os.path.join(api.cdn_dir, "etcdir"))
    os.symlink("/etc/passwd", os.path.join(api.cdn_dir, "img", "passwd.jpg"))
    with open(os.path.join(api.cdn_dir, ".env"), "w") as f:
        f.write("SECRET=1")
    os.makedirs(os.path.join(api.cdn_dir, ".git"), exist_ok=True)
    with open(os.path.join(api.cdn_dir, ".git", "config"), "w") as f:
        f.write("[core]")
    for path in ("etcdir/passwd", "img/passwd.jpg", ".env", ".git/config", "img", "img/", "", "%2e%2e/etc/passwd"):
        status, _, body = fetch(f"{api.cdn_base_url}/{path}")
        assert status == 404, (path, status)
        assert b"root:" not in body and b"SECRET" not in body


def test_room_type_detail_embeds_the_same_images(api, seeded):
    listed = api.get("/room-types/BER1-DLX/images").json["data"]
    detail = api.get("/room-types/BER1-DLX")
    assert detail.status == 200, detail
    assert detail.json["images"] == listed


def test_room_images_and_room_detail(api, seeded):
    resp = api.get("/rooms/101/images?property_id=BER1")
    assert resp.status == 200, resp
    assert set(resp.json) == {"data", "change_cursor", "etag"} and len(resp.json["data"]) == 1
    assert api.get("/rooms/101?property_id=BER1").json["images"] == resp.json["data"]
    lisbon = api.get("/rooms/G01/images?property_id=LIS1")
    assert lisbon.status == 200 and len(lisbon.json["data"]) == 1
    # A room without its own pictures has an empty gallery, not an error.
    empty = api.get("/rooms/305/images?property_id=BER1")
    assert empty.status == 200 and empty.json["data"] == []


@pytest.mark.parametrize("path,status,reason,field", [
    ("/rooms/101/images", 400, "PROPERTY_ID_REQUIRED", "property_id"),
    ("/rooms/101/images?property_id=ber1", 400, "INVALID_ARGUMENT", "property_id"),
    ("/rooms/999/images?property_id=BER1", 404, "ROOM_NOT_FOUND", None),
    ("/rooms/101/images?property_id=XXX1", 404, "PROPERTY_NOT_FOUND", None),
    ("/room-types/not-a-type/images", 400, "INVALID_ARGUMENT", "room_type_id"),
    ("/room-types/BER1-XXX/images", 404, "ROOM_TYPE_NOT_FOUND", None),
])
def test_image_endpoints_bad_input(api, path, status, reason, field):
    resp = api.get(path)
    assert resp.status == status, resp
    assert resp.reason() == reason, resp
    if field:
        assert field in resp.violations(), resp


def test_wrong_method_on_images_is_405_and_a_json_post_is_not_an_upload(api):
    assert api.request("PUT", "/room-types/BER1-STD/images", {}).status == 405
    # POST uploads a picture (multipart/form-data, test_image_uploads.py): JSON is refused.
    resp = api.post("/room-types/BER1-STD/images", {})
    assert resp.status == 415 and resp.violations() == ["content-type"], resp


def test_seeding_again_changes_nothing(api, seeded):
    before = api.get("/room-types/LIS1-STE/images").json["data"]
    again = api.images("seed")
    assert again.returncode == 0, again.stderr
    assert all(line.startswith("present") for line in again.stdout.splitlines()), again.stdout
    assert len(again.stdout.splitlines()) == len(seeded)
    assert api.get("/room-types/LIS1-STE/images").json["data"] == before


def test_ingest_command_adds_an_image_once_and_refuses_corrupt_files(api, seeded):
    with tempfile.TemporaryDirectory() as tmp:
        picture = os.path.join(tmp, "room.png")
        made = api.images("generate", "--width=1000", "--height=1500", "--seed=4242", f"--out={picture}")
        assert made.returncode == 0, made.stderr
        args = ("ingest", f"--file={picture}", "--property-id=LIS1", "--room=201", "--alt-text=Bed and window")
        first = api.images(*args)
        assert first.returncode == 0, first.stderr
        result = json.loads(first.stdout)
        assert result["created"] is True
        image = result["image"]
        assert (image["width"], image["height"]) == (1000, 1500)
        assert image["variants"]["original"]["format"] == "png"
        assert image["variants"]["thumbnail"]["height"] == 150
        assert json.loads(api.images(*args).stdout)["created"] is False
        gallery = api.get("/rooms/201/images?property_id=LIS1").json["data"]
        assert [i["id"] for i in gallery] == [image["id"]]
        assert list(files_of(gallery[0])) == list(files_of(image))
        assert gallery[0]["sort_order"] == image["sort_order"] == 0

        corrupt = os.path.join(tmp, "broken.jpg")
        with open(picture, "rb") as src, open(corrupt, "wb") as dst:
            dst.write(b"\xff\xd8\xff\xe0" + src.read()[100:2000])
        refused = api.images("ingest", f"--file={corrupt}", "--property-id=LIS1", "--room=202", "--alt-text=x")
        assert refused.returncode == 2
        assert "file" in refused.stderr
        assert api.get("/rooms/202/images?property_id=LIS1").json["data"] == []

        unknown = api.images("ingest", f"--file={picture}", "--property-id=LIS1", "--room=999", "--alt-text=x")
        assert unknown.returncode == 2 and "999" in unknown.stderr


def test_images_over_grpc_match_rest(api, seeded):
    call = api.tool("grpcurl", "-plaintext", "-d", '{"room_type_id": "LIS1-STD"}', api.grpc_addr,
                    "hotel.v1.ImageService/ListRoomTypeImages")
    assert call.returncode == 0, call.stderr
    over_grpc = json.loads(call.stdout)["data"]
    over_rest = api.get("/room-types/LIS1-STD/images").json["data"]
    assert [i["id"] for i in over_grpc] == [i["id"] for i in over_rest]
    room = api.tool("grpcurl", "-plaintext", "-d", '{"property_id": "BER1", "number": "102"}', api.grpc_addr,
                    "hotel.v1.RoomService/GetRoom")
    assert room.returncode == 0, room.stderr
    gallery = api.tool("grpcurl", "-plaintext", "-d", '{"property_id": "BER1", "number": "102"}', api.grpc_addr,
                       "hotel.v1.ImageService/ListRoomImages")
    assert gallery.returncode == 0, gallery.stderr
    embedded = json.loads(room.stdout)["images"]
    assert len(embedded) == 1
    assert [i["id"] for i in json.loads(gallery.stdout)["data"]] == [embedded[0]["id"]]
    missing = api.tool("grpcurl", "-plaintext", "-format-error", "-d", '{"property_id": "BER1", "number": "999"}',
                       api.grpc_addr, "hotel.v1.ImageService/ListRoomImages")
    assert missing.returncode != 0 and json.loads(missing.stdout or missing.stderr)["code"] == 5  # NOT_FOUND
