"""Image management (1.3.0) end to end through the real gateway and over gRPC (grpcurl): reading
one image, patching it with etags, reordering the galleries of a room type and of a room,
removing images; what each does to the galleries, the room type and room details and their
etags, the room cache and the change feed; and many writers on one gallery at once.

The module runs on a stack of its own; each test makes the galleries it changes (a property of its own
with pictures added by hotel-images ingest), so the tests run in any order and alone."""
import concurrent.futures
import json
import os
import random
import types
import tempfile
import threading
import urllib.request

import pytest

from changefeed import changes_until
from conftest import local_stack, new_property

MISSING = "00000000-0000-4000-8000-000000000000"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def ims():
    stack = local_stack("hotel_images_manage")
    yield stack
    stack.stop()


@pytest.fixture
def own(ims):
    """Galleries of the test's own: a new property with room type <id>-STD (two pictures) and rooms 101
    and 102 (one picture each)."""
    property_id = new_property(ims, prefix="IMG", rooms=("101", "102"))
    mine = types.SimpleNamespace(property_id=property_id, room_type=("room-types", f"{property_id}-STD"),
                                 room=("rooms", "101", property_id), room2=("rooms", "102", property_id))
    for owner in (mine.room_type, mine.room_type, mine.room, mine.room2):
        add_picture(ims, owner)
    return mine


def if_match(etag):
    return {"If-Match": f'"{etag}"', **JSON}


def gallery(stack, owner):
    """The gallery response of owner: ("room-types", id) or ("rooms", number, property_id)."""
    if owner[0] == "room-types":
        return stack.get(f"/room-types/{owner[1]}/images")
    return stack.get(f"/rooms/{owner[1]}/images?property_id={owner[2]}")


def detail(stack, owner):
    if owner[0] == "room-types":
        return stack.get(f"/room-types/{owner[1]}")
    return stack.get(f"/rooms/{owner[1]}?property_id={owner[2]}")


def reorder(stack, owner, ids, headers=None, etag=None):
    body = {"image_ids": ids, **({"etag": etag} if etag else {})}
    if owner[0] == "room-types":
        return stack.post(f"/room-types/{owner[1]}/images:reorder", body, headers=headers)
    return stack.post(f"/rooms/{owner[1]}/images:reorder?property_id={owner[2]}", body, headers=headers)


def ids_of(response):
    return [image["id"] for image in response.json["data"]]


def add_picture(stack, owner, width=320, height=240):
    """An image added with hotel-images ingest (a generated JPEG, small unless asked otherwise, whose
    content no other test's has)."""
    seed = random.randrange(1, 1 << 30)
    with tempfile.TemporaryDirectory() as tmp:
        picture = os.path.join(tmp, f"p{seed}.jpg")
        made = stack.images("generate", f"--width={width}", f"--height={height}", f"--seed={seed}",
                            f"--out={picture}")
        assert made.returncode == 0, made.stderr
        target = ([f"--room-type={owner[1]}"] if owner[0] == "room-types"
                  else [f"--property-id={owner[2]}", f"--room={owner[1]}"])
        out = stack.images("ingest", f"--file={picture}", *target, f"--alt-text=Picture {seed}")
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)["image"]


def grpc(stack, method, body, *headers):
    """(ok, json) of an ImageService call over gRPC with grpcurl."""
    out = stack.tool("grpcurl", "-plaintext", "-format-error", *sum((["-H", h] for h in headers), []),
                     "-d", json.dumps(body), stack.grpc_addr, f"hotel.v1.ImageService/{method}")
    return out.returncode == 0, json.loads(out.stdout or out.stderr or "{}")


def grpc_reason(error):
    return next((d.get("reason") for d in error.get("details", []) if "reason" in d), None)


def test_get_image_answers_the_gallery_object_with_its_etag(ims, own):
    listed = gallery(ims, own.room_type)
    assert listed.status == 200 and listed.json["etag"], listed
    assert listed.headers["ETag"] == f'"{listed.json["etag"]}"'
    unchanged = ims.get(f"/room-types/{own.room_type[1]}/images", headers={"If-None-Match": listed.headers["ETag"]})
    assert unchanged.status == 304
    image = listed.json["data"][0]
    assert image["room_type_id"] == own.room_type[1] and image["property_id"] == "" and image["etag"]
    got = ims.get(f"/images/{image['id']}")
    assert got.status == 200 and got.json == image, got
    assert got.headers["ETag"] == f'"{image["etag"]}"'
    assert ims.get(f"/images/{image['id'].upper()}").json == image

    room_image = gallery(ims, own.room).json["data"][0]
    assert (room_image["property_id"], room_image["room_number"], room_image["room_type_id"]) == \
        (own.property_id, "101", "")

    missing = ims.get(f"/images/{MISSING}")
    assert missing.status == 404 and missing.reason() == "IMAGE_NOT_FOUND", missing
    malformed = ims.get("/images/picture-1")
    assert malformed.status == 400 and malformed.violations() == ["id"], malformed


def test_patch_changes_the_image_its_gallery_and_its_owners_etag_and_refuses_a_stale_etag(ims, own):
    owner = own.room_type
    before = detail(ims, owner).json
    image = gallery(ims, owner).json["data"][0]
    patched = ims.patch(f"/images/{image['id']}", {"alt_text": "Standard Double, window side"},
                        headers=if_match(image["etag"]))
    assert patched.status == 200, patched
    assert patched.json["alt_text"] == "Standard Double, window side"
    assert patched.json["etag"] != image["etag"] and patched.headers["ETag"] == f'"{patched.json["etag"]}"'
    assert patched.json["sort_order"] == image["sort_order"] and patched.json["variants"] == image["variants"]
    after = detail(ims, owner).json
    assert after["etag"] != before["etag"]
    assert [i for i in after["images"] if i["id"] == image["id"]] == [patched.json]
    # The room type's etag read before the gallery changed is stale for the room type too.
    stale_owner = ims.patch(f"/room-types/{owner[1]}", {"name": "Standard Double", "etag": before["etag"]})
    assert stale_owner.status == 409 and stale_owner.reason() == "ETAG_MISMATCH", stale_owner

    # The image's etag read before the patch: refused, in If-Match or in the body, nothing merged.
    stale = ims.patch(f"/images/{image['id']}", {"alt_text": "Lost update"}, headers=if_match(image["etag"]))
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    stale = ims.patch(f"/images/{image['id']}", {"alt_text": "Lost update", "etag": image["etag"]})
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    assert ims.get(f"/images/{image['id']}").json == patched.json

    moved = ims.patch(f"/images/{image['id']}", {"sort_order": 7})
    assert moved.status == 200 and moved.json["sort_order"] == 7, moved
    assert ids_of(gallery(ims, owner))[-1] == image["id"]


@pytest.mark.parametrize("body, fields", [
    ({"alt_text": ""}, ["alt_text"]),
    ({"alt_text": "x" * 501}, ["alt_text"]),
    ({"sort_order": -1}, ["sort_order"]),
    ({"room_type_id": "BER1-DLX"}, ["room_type_id"]),
    ({"alt_text": "", "sort_order": -2}, ["alt_text", "sort_order"]),
])
def test_bad_patches_are_400_naming_every_field(ims, own, body, fields):
    image = gallery(ims, own.room_type).json["data"][0]
    response = ims.patch(f"/images/{image['id']}", body)
    assert response.status == 400 and sorted(response.violations()) == fields, response
    assert ims.patch(f"/images/{image['id']}", {"colour": "red"}).status == 400
    assert ims.patch(f"/images/{MISSING}", {"alt_text": "x"}).reason() == "IMAGE_NOT_FOUND"


def test_reorder_of_a_room_type_gallery_changes_the_gallery_the_detail_and_their_etags(ims, own):
    owner = own.room_type
    listed = gallery(ims, owner)
    before = detail(ims, owner).json
    ids = ids_of(listed)[::-1]
    reordered = reorder(ims, owner, ids, headers=if_match(listed.json["etag"]))
    assert reordered.status == 200, reordered
    assert ids_of(reordered) == ids and [i["sort_order"] for i in reordered.json["data"]] == list(range(len(ids)))
    assert reordered.json["etag"] != listed.json["etag"]
    assert reordered.headers["ETag"] == f'"{reordered.json["etag"]}"'
    assert ids_of(gallery(ims, owner)) == ids
    after = detail(ims, owner).json
    assert [i["id"] for i in after["images"]] == ids and after["etag"] != before["etag"]
    assert after["images"] == gallery(ims, owner).json["data"]

    # The gallery etag read before: refused, in If-Match or the body; the order stays.
    stale = reorder(ims, owner, ids[::-1], headers=if_match(listed.json["etag"]))
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    assert reorder(ims, owner, ids[::-1], etag=listed.json["etag"]).reason() == "ETAG_MISMATCH"
    for bad in (ids[:-1], ids + [ids[0]], ids + [MISSING], [], ["not-a-uuid"] + ids[1:]):
        response = reorder(ims, owner, bad)
        assert response.status == 400 and response.violations() == ["image_ids"], (bad, response)
    other_gallery = ids_of(gallery(ims, own.room))
    assert reorder(ims, owner, ids[1:] + other_gallery[:1]).violations() == ["image_ids"]
    assert ids_of(gallery(ims, owner)) == ids
    unknown = reorder(ims, ("room-types", f"{own.property_id}-NOPE"), ids)
    assert unknown.status == 404 and unknown.reason() == "ROOM_TYPE_NOT_FOUND", unknown


def test_reorder_of_a_room_gallery_is_seen_at_once_by_get_room(ims, own):
    owner = own.room
    add_picture(ims, owner)
    first = detail(ims, owner).json
    assert detail(ims, owner).json == first  # now in the room cache
    ids = [i["id"] for i in first["images"]][::-1]
    reordered = reorder(ims, owner, ids)
    assert reordered.status == 200 and ids_of(reordered) == ids, reordered
    room = detail(ims, owner).json
    assert [i["id"] for i in room["images"]] == ids and room["etag"] != first["etag"]
    missing_property = ims.post("/rooms/101/images:reorder", {"image_ids": ids})
    assert missing_property.status == 400 and missing_property.reason() == "PROPERTY_ID_REQUIRED", missing_property
    unknown = reorder(ims, ("rooms", "999", own.property_id), ids)
    assert unknown.status == 404 and unknown.reason() == "ROOM_NOT_FOUND", unknown


def test_delete_removes_the_image_from_its_gallery_and_detail_and_keeps_its_files_for_now(ims, own):
    owner = own.room
    # A picture large enough for seven files: every variant and its WebP differ from the others.
    added = add_picture(ims, owner, width=2400, height=1600)
    before = detail(ims, owner).json
    image = next(i for i in gallery(ims, owner).json["data"] if i["id"] == added["id"])
    # The releases of this image's keys (an upload or ingest also records its keys, before it writes them).
    keys = ", ".join(f"'{file['url'][len(ims.cdn_base_url) + 1:]}'" for variant in image["variants"].values()
                     for file in (variant, variant.get("webp")) if file)
    releases = f"SELECT count(*) FROM image_files_released WHERE storage_key IN ({keys})"
    released_before = int(ims.psql(releases))
    stale = ims.request("DELETE", f"/images/{image['id']}", headers={"If-Match": '"0000000000000000"'})
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    deleted = ims.request("DELETE", f"/images/{image['id']}", headers={"If-Match": f'"{image["etag"]}"'})
    assert deleted.status == 200 and deleted.json == {"id": image["id"]}, deleted
    assert image["id"] not in ids_of(gallery(ims, owner))
    after = detail(ims, owner).json
    assert image["id"] not in [i["id"] for i in after["images"]] and after["etag"] != before["etag"]
    assert ims.get(f"/images/{image['id']}").reason() == "IMAGE_NOT_FOUND"
    again = ims.request("DELETE", f"/images/{image['id']}")
    assert again.status == 404 and again.reason() == "IMAGE_NOT_FOUND", again
    # Pages that cached the URLs keep working through the grace period: the files stay.
    with urllib.request.urlopen(image["variants"]["thumbnail"]["url"], timeout=10) as resp:
        assert resp.status == 200
    released = int(ims.psql(releases)) - released_before
    assert released == 7, released  # every file of the image, for the store's collection


def test_every_change_is_on_the_feed_with_the_images_etag(ims, own):
    owner = own.room_type
    cursor = gallery(ims, owner).json["change_cursor"]
    owner_etag = detail(ims, owner).json["etag"]
    added = add_picture(ims, owner)  # the ingest path
    assert detail(ims, owner).json["etag"] != owner_etag
    patched = ims.patch(f"/images/{added['id']}", {"alt_text": "Deluxe, bathroom"}).json
    positions = {i["id"]: i["sort_order"] for i in gallery(ims, owner).json["data"]}
    reordered = reorder(ims, owner, list(positions)[::-1]).json["data"]
    moved = {i["id"] for i in reordered if positions[i["id"]] != i["sort_order"]}
    assert moved
    removed = ims.request("DELETE", f"/images/{added['id']}")
    assert removed.status == 200, removed

    def done(cs):
        return any(c["kind"] == "DELETED" for c in cs)
    changes = changes_until(ims, cursor, done, query="&resource_type=IMAGE")
    assert all(c["resource_type"] == "IMAGE" and c["property_id"] == own.property_id for c in changes), changes
    mine = [(c["kind"], c["changed_fields"]) for c in changes if c["resource_id"] == added["id"]]
    assert mine[0] == ("CREATED", []) and mine[1] == ("UPDATED", ["alt_text"]) and mine[-1] == ("DELETED", []), mine
    assert next(c for c in changes if c["kind"] == "UPDATED")["etag"] == patched["etag"]
    sorted_ids = {c["resource_id"] for c in changes if c["changed_fields"] == ["sort_order"]}
    assert sorted_ids == moved, (sorted_ids, moved)


def test_grpc_reads_updates_reorders_and_deletes(ims, own):
    add_picture(ims, own.room2)
    owner_images = gallery(ims, own.room2).json["data"]
    assert len(owner_images) == 2, owner_images
    image = owner_images[0]
    ok, got = grpc(ims, "GetImage", {"id": image["id"]})
    assert ok and got["id"] == image["id"] and got["etag"] == image["etag"], got
    ok, updated = grpc(ims, "UpdateImage", {"id": image["id"], "image": {"alt_text": "Room 102, desk", "sort_order": 0},
                                            "update_mask": {"paths": ["alt_text", "sort_order"]}},
                       f'if-match: "{image["etag"]}"')
    assert ok and updated["alt_text"] == "Room 102, desk" and updated.get("sort_order", 0) == 0, updated
    ok, error = grpc(ims, "UpdateImage", {"id": image["id"], "image": {"alt_text": "Lost"},
                                          "update_mask": {"paths": ["alt_text"]}}, f'if-match: "{image["etag"]}"')
    assert not ok and error["code"] == 10 and grpc_reason(error) == "ETAG_MISMATCH", error
    ids = [i["id"] for i in owner_images][::-1]
    ok, reordered = grpc(ims, "ReorderRoomImages", {"property_id": own.property_id, "number": "102",
                                                    "order": {"image_ids": ids}})
    assert ok and [i["id"] for i in reordered["data"]] == ids and reordered["etag"], reordered
    ok, error = grpc(ims, "ReorderRoomImages", {"property_id": own.property_id, "number": "102",
                                                "order": {"image_ids": ids + ids[:1]}})
    assert not ok and error["code"] == 3, error
    ok, _ = grpc(ims, "DeleteImage", {"id": image["id"]})
    assert ok
    ok, error = grpc(ims, "GetImage", {"id": image["id"]})
    assert not ok and error["code"] == 5 and grpc_reason(error) == "IMAGE_NOT_FOUND", error
    ok, listed = grpc(ims, "ListRoomImages", {"property_id": own.property_id, "number": "102"})
    assert ok and image["id"] not in [i["id"] for i in listed.get("data", [])]


def test_many_writers_on_one_gallery_lose_nothing(ims, own):
    """12 writers patch (with If-Match), reorder (with the gallery's etag) and remove images of one
    gallery at once: no 5xx, every refusal a stale etag, every accepted patch on the feed (none
    overwritten unseen), the gallery in a consistent order, and its etags changed."""
    owner = own.room_type
    for _ in range(4):
        add_picture(ims, owner)
    cursor = gallery(ims, owner).json["change_cursor"]
    owner_etag = detail(ims, owner).json["etag"]
    statuses, accepted_patches, lock = [], [], threading.Lock()

    def worker(number):
        rng = random.Random(number)
        for round_ in range(8):
            listed = gallery(ims, owner)
            assert listed.status == 200, listed
            images = listed.json["data"]
            if number < 2 and round_ == 3 and len(images) > 2:
                response = ims.request("DELETE", f"/images/{images[-1]['id']}",
                                       headers={"If-Match": f'"{images[-1]["etag"]}"'})
            elif rng.random() < 0.4:
                ids = [i["id"] for i in images]
                rng.shuffle(ids)
                response = reorder(ims, owner, ids, headers=if_match(listed.json["etag"]))
            else:
                image = rng.choice(images)
                response = ims.patch(f"/images/{image['id']}", {"alt_text": f"writer {number} round {round_}"},
                                     headers=if_match(image["etag"]))
                if response.status == 200:
                    with lock:
                        accepted_patches.append(response.json)
            with lock:
                statuses.append((response.status, response.reason()))

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        list(pool.map(worker, range(12)))
    assert all(status < 500 for status, _ in statuses), statuses
    assert all(status == 200 or (status, reason) in ((409, "ETAG_MISMATCH"), (404, "IMAGE_NOT_FOUND"))
               for status, reason in statuses), statuses
    assert accepted_patches and any(status == 200 for status, _ in statuses)
    print(f"\n12 writers on one gallery: {len(statuses)} writes, {sum(s == 200 for s, _ in statuses)} committed, "
          f"{sum(s == 409 for s, _ in statuses)} refused as stale, {sum(s == 404 for s, _ in statuses)} already gone")

    # Every accepted patch is one UPDATED alt_text change with the etag it answered: none was lost.
    def done(cs):
        return len([c for c in cs if "alt_text" in c["changed_fields"]]) >= len(accepted_patches)
    changes = changes_until(ims, cursor, done, query="&resource_type=IMAGE")
    assert sorted(c["etag"] for c in changes if "alt_text" in c["changed_fields"]) == \
        sorted(p["etag"] for p in accepted_patches)
    final = gallery(ims, owner).json
    orders = [i["sort_order"] for i in final["data"]]
    assert orders == sorted(orders) and len(set(orders)) == len(orders), orders
    for image in final["data"]:
        assert ims.get(f"/images/{image['id']}").json == image
    assert detail(ims, owner).json["images"] == final["data"]
    assert detail(ims, owner).json["etag"] != owner_etag
