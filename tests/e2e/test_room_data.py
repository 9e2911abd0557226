"""Room data through the real gateway: every endpoint, its filters, paging and bad input."""
import pytest


def ids(resp, key="id"):
    return [item[key] for item in resp.json["data"]]


def test_list_properties_and_enabled_filter(api):
    resp = api.get("/properties")
    assert resp.status == 200, resp
    assert ids(resp) == ["BER1", "LIS1"]
    assert resp.json["next_page_token"] == ""
    berlin = resp.json["data"][0]
    assert berlin["time_zone"] == "Europe/Berlin" and berlin["room_count"] == 50
    api.psql("INSERT INTO properties (id, name, enabled, time_zone, city, country_code) "
             "VALUES ('PAR1', 'Paris (opening soon)', false, 'Europe/Paris', 'Paris', 'FR') ON CONFLICT DO NOTHING")
    try:
        assert ids(api.get("/properties?enabled=false")) == ["PAR1"]
        assert ids(api.get("/properties?enabled=true")) == ["BER1", "LIS1"]
    finally:
        api.psql("DELETE FROM properties WHERE id = 'PAR1'")  # the summary and list tests count the seeded two
    bad = api.get("/properties?enabled=maybe")
    assert bad.status == 400 and "enabled" in bad.violations(), bad


def test_get_property(api):
    resp = api.get("/properties/LIS1")
    assert resp.status == 200 and resp.json["city"] == "Lisbon"
    missing = api.get("/properties/XX9")
    assert missing.status == 404 and missing.reason() == "PROPERTY_NOT_FOUND", missing
    malformed = api.get("/properties/lisbon")
    assert malformed.status == 400 and malformed.violations() == ["id"], malformed


def test_room_types_of_a_property(api):
    resp = api.get("/properties/BER1/room-types")
    assert resp.status == 200
    assert ids(resp) == ["BER1-ACC", "BER1-DLX", "BER1-FAM", "BER1-STD", "BER1-STE", "BER1-SUP"]
    assert all(t["property_id"] == "BER1" for t in resp.json["data"])
    assert api.get("/properties/NOPE1/room-types").status == 404


def test_room_type_filters(api):
    suites = api.get("/room-types?category=SUITE")
    assert ids(suites) == ["BER1-STE", "LIS1-STE"]
    sea = api.get("/room-types?amenities=sea_view&amenities=balcony")
    assert ids(sea) == ["LIS1-DLX"]
    big = api.get("/room-types?min_size_sqm=35&max_size_sqm=60&guests=4")
    assert ids(big) == ["BER1-FAM", "BER1-STE", "LIS1-FAM"]
    for t in big.json["data"]:
        assert 35 <= t["size_sqm"] <= 60 and t["max_guests"] >= 4


@pytest.mark.parametrize("query, field", [
    ("category=PENTHOUSE", "category"),
    ("category=suite", "category"),
    ("min_size_sqm=-1", "min_size_sqm"),
    ("min_size_sqm=50&max_size_sqm=10", "min_size_sqm"),
    ("guests=0", "guests"),
    ("guests=two", "guests"),
    ("amenities=jacuzzi", "amenities"),
    ("page_size=-5", "page_size"),
    ("page_token=garbage!!", "page_token"),
])
def test_room_type_bad_input_names_the_field(api, query, field):
    resp = api.get("/room-types?" + query)
    assert resp.status == 400, resp
    assert resp.json["code"] == 3
    assert field in resp.violations(), resp


def test_get_room_type(api):
    resp = api.get("/room-types/LIS1-STE")
    assert resp.status == 200
    assert resp.json["category"] == "SUITE" and "sea_view" in resp.json["amenities"]
    assert isinstance(resp.json["images"], list)
    missing = api.get("/room-types/LIS1-XXX")
    assert missing.status == 404 and missing.reason() == "ROOM_TYPE_NOT_FOUND"


def test_rooms_of_a_property_by_floor(api):
    resp = api.get("/properties/LIS1/rooms?floor=0")
    assert resp.status == 200
    assert ids(resp, "number") == ["G01", "G02", "G03", "G04", "G05", "G06"]
    assert api.get("/properties/NOPE1/rooms").status == 404
    bad = api.get("/properties/LIS1/rooms?floor=abc")
    assert bad.status == 400 and "floor" in bad.violations(), bad
    negative = api.get("/properties/LIS1/rooms?floor=-1")
    assert negative.status == 400 and negative.violations() == ["floor"], negative


def test_rooms_across_properties_with_filters(api):
    resp = api.get("/rooms?category=DELUXE&amenities=sea_view")
    assert resp.status == 200
    assert {r["property_id"] for r in resp.json["data"]} == {"LIS1"}
    assert all(r["category"] == "DELUXE" for r in resp.json["data"])
    one_property = api.get("/rooms?property_id=BER1&floor=2&category=ACCESSIBLE")
    assert ids(one_property, "number") == ["209"]


def test_availability_filter_follows_out_of_order(api):
    api.psql("UPDATE rooms SET out_of_order = true, out_of_order_reason = 'water damage', "
             "out_of_order_since = now() WHERE property_id = 'BER1' AND number = '305'")
    try:
        unavailable = api.get("/rooms?property_id=BER1&available=false")
        assert "305" in ids(unavailable, "number")
        room = api.get("/rooms/305?property_id=BER1").json
        assert room["available"] is False and room["out_of_order"] is True
        assert room["out_of_order_reason"] == "water damage" and room["out_of_order_since"].endswith("Z")
        available = api.get("/rooms?property_id=BER1&available=true&page_size=500")
        assert "305" not in ids(available, "number")
    finally:
        api.psql("UPDATE rooms SET out_of_order = false, out_of_order_reason = '', out_of_order_since = NULL "
                 "WHERE property_id = 'BER1' AND number = '305'")


def test_paging_through_all_rooms(api):
    seen, token, pages = [], "", 0
    while True:
        resp = api.get(f"/rooms?page_size=9&page_token={token}")
        assert resp.status == 200, resp
        assert len(resp.json["data"]) <= 9
        seen += [(r["property_id"], r["number"]) for r in resp.json["data"]]
        token = resp.json["next_page_token"]
        pages += 1
        if not token:
            break
    assert len(seen) == 74 and len(set(seen)) == 74
    assert pages == 9
    # A token only fits the filters it was issued for.
    first = api.get("/rooms?page_size=5&floor=1")
    foreign = api.get(f"/rooms?page_size=5&floor=2&page_token={first.json['next_page_token']}")
    assert foreign.status == 400 and foreign.reason() == "INVALID_PAGE_TOKEN"


def test_huge_page_size_is_clamped(api):
    resp = api.get("/rooms?page_size=100000")
    assert resp.status == 200 and len(resp.json["data"]) == 74


def test_get_room(api):
    resp = api.get("/rooms/G01?property_id=LIS1")
    assert resp.status == 200, resp
    room = resp.json
    assert room["floor"] == 0 and room["room_type_id"] == "LIS1-STD"
    assert "walk_in_shower" in room["amenities"]  # room-level extra on top of its type
    assert room["amenities"] == sorted(room["amenities"])


def test_get_room_requires_property_id(api):
    resp = api.get("/rooms/101")
    assert resp.status == 400, resp
    assert resp.reason() == "PROPERTY_ID_REQUIRED" and resp.violations() == ["property_id"]
    assert "property_id" in resp.json["message"]


def test_get_room_unknown_pair(api):
    resp = api.get("/rooms/999?property_id=BER1")
    assert resp.status == 404 and resp.reason() == "ROOM_NOT_FOUND", resp
    assert api.get("/rooms/G01?property_id=BER1").status == 404


def test_sql_looking_input_is_refused_cleanly(api):
    resp = api.get("/rooms/101?property_id=BER1'%20OR%20'1'='1")
    assert resp.status == 400 and resp.violations() == ["property_id"]


def test_routing_errors(api):
    assert api.get("/no-such-thing").status == 404
    wrong_method = api.request("DELETE", "/rooms")
    assert wrong_method.status == 405, wrong_method


def test_openapi_document_is_served(api):
    resp = api.get("/openapi.json")
    assert resp.status == 200
    assert "/api/v1/rooms/{number}" in resp.json["paths"]
