"""The versioning guard (scripts/check-contract.sh, run by scripts/test.sh) passes on the current
contract and fails on a real breaking change: each fixture takes today's protos or OpenAPI
document, breaks it the way a careless change would, and the guard must refuse it naming what broke."""
import json
import os
import re
import shutil
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCUMENT = os.path.join(ROOT, "gateway", "gen", "openapi", "openapi.json")


def guard(protos=ROOT, document=DOCUMENT):
    return subprocess.run(["bash", os.path.join(ROOT, "scripts", "check-contract.sh"), protos, document],
                          capture_output=True, text=True, timeout=300)


def proto_copy(tmp_path):
    shutil.copy(os.path.join(ROOT, "buf.yaml"), tmp_path / "buf.yaml")
    shutil.copytree(os.path.join(ROOT, "proto"), tmp_path / "proto")
    return tmp_path


def edit(path, pattern, replacement):
    text = path.read_text()
    changed, count = re.subn(pattern, replacement, text, count=1, flags=re.M)
    assert count == 1, f"fixture no longer applies to {path}: {pattern}"
    path.write_text(changed)


def test_the_current_contract_breaks_no_release_baseline():
    out = guard()
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no breaking change against" in out.stdout


def test_buf_breaking_refuses_a_removed_proto_field(tmp_path):
    protos = proto_copy(tmp_path)
    # Fixture: Room loses its floor (field 3 of hotel.v1.Room), as if someone "cleaned up" the message.
    edit(protos / "proto" / "hotel" / "v1" / "rooms.proto", r"^  int32 floor = (\d+);\n", "")
    out = guard(protos=str(protos))
    assert out.returncode != 0
    assert "the protos break release 1.0.0 (buf breaking)" in out.stderr
    assert re.search(r'rooms\.proto.*"floor"', out.stdout), out.stdout


def test_buf_breaking_refuses_a_renamed_json_field(tmp_path):
    protos = proto_copy(tmp_path)
    # Fixture: the galleries' list field renamed again (data → images): REST clients would break.
    edit(protos / "proto" / "hotel" / "v1" / "images.proto", r"^  repeated Image data = 1;", "  repeated Image images = 1;")
    out = guard(protos=str(protos))
    assert out.returncode != 0 and "buf breaking" in out.stderr, out.stdout + out.stderr


def test_oasdiff_refuses_a_breaking_rest_change(tmp_path):
    doc = json.load(open(DOCUMENT))
    # Fixture: an optional query parameter becomes required (GET /rooms?floor=), and a response
    # property clients read disappears (next_page_token of ListRoomsResponse).
    for param in doc["paths"]["/api/v1/rooms"]["get"]["parameters"]:
        if param["name"] == "floor":
            param["required"] = True
    del doc["components"]["schemas"]["ListRoomsResponse"]["properties"]["next_page_token"]
    doc["components"]["schemas"]["ListRoomsResponse"]["required"].remove("next_page_token")
    broken = tmp_path / "openapi.json"
    broken.write_text(json.dumps(doc))
    out = guard(document=str(broken))
    assert out.returncode != 0
    assert "the REST API breaks release 1.0.0 (oasdiff)" in out.stderr
    assert "floor" in out.stdout and "next_page_token" in out.stdout, out.stdout


def test_the_guard_lists_enum_values_added_to_a_response_and_refuses_one_removed(tmp_path):
    doc = json.load(open(DOCUMENT))
    change = doc["components"]["schemas"]["Change"]["properties"]
    # Fixture: a minor release adds a resource type to the feed (as 1.3.0's room blocks would):
    # allowed, since response enums are open, and listed for the release notes.
    change["resource_type"]["x-extensible-enum"].append("ROOM_BLOCK")
    added = tmp_path / "added.json"
    added.write_text(json.dumps(doc))
    out = guard(document=str(added))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "enum value added since 1.2.0: Change.resource_type ROOM_BLOCK" in out.stdout, out.stdout
    # Fixture: a kind of change disappears from the feed: breaking for clients that handle it.
    change["kind"]["x-extensible-enum"].remove("DELETED")
    removed = tmp_path / "removed.json"
    removed.write_text(json.dumps(doc))
    out = guard(document=str(removed))
    assert out.returncode != 0
    assert "enum value removed since 1.2.0 (breaking): Change.kind DELETED" in out.stderr, out.stderr
