// Calls every operation of the Hotel Data Service through a client generated from the served
// OpenAPI document (openapi-typescript types in gen/schema.d.ts, openapi-fetch calls): each
// operation's success case and at least one error case. `tsc` checks every call and every field
// read against the generated types (strict); at run time each result must have the expected
// status, land in `data` (success) or `error` (google.rpc.Status with the expected reason).
//
//   node build/exercise.js <base URL> <dead base URL: a gateway whose server is down> <a JPEG to upload>
//
// Prints one JSON line: {"generator", "operations", "passed", "calls", "failures"}.
import createClient from "openapi-fetch";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { components, operations, paths } from "./gen/schema.js";

type Status = components["schemas"]["Status"];
type ErrorInfo = components["schemas"]["ErrorInfo"];
type Upload = operations["ImageService_UploadRoomTypeImage"]["requestBody"]["content"]["multipart/form-data"];

const [baseUrl, deadUrl, picturePath] = process.argv.slice(2);
const api = createClient<paths>({ baseUrl });
const dead = createClient<paths>({ baseUrl: deadUrl });
const results = new Map<string, string[]>();
let calls = 0;

function fail(op: string, why: string) {
  results.get(op)!.push(why);
}

// A success: the status, the body in `data`, and a check that reads it through its generated type.
async function ok<T>(op: string, call: Promise<{ data?: T; error?: unknown; response: Response }>,
                     status: number, check: (data: T) => boolean): Promise<T | undefined> {
  calls++;
  if (!results.has(op)) results.set(op, []);
  const { data, error, response } = await call;
  if (response.status !== status || data === undefined || error !== undefined) {
    fail(op, `status ${response.status}, expected ${status}: ${JSON.stringify(error ?? data).slice(0, 200)}`);
    return undefined;
  }
  if (!check(data)) fail(op, `unexpected body ${JSON.stringify(data).slice(0, 200)}`);
  return data;
}

// An error: the status, a google.rpc.Status in `error` with the expected ErrorInfo reason.
async function err(op: string, call: Promise<{ data?: unknown; error?: Status | unknown; response: Response }>,
                   status: number, reason: string) {
  calls++;
  if (!results.has(op)) results.set(op, []);
  const { data, error, response } = await call;
  if (response.status !== status || data !== undefined || error === undefined) {
    fail(op, `status ${response.status}, expected ${status}`);
    return;
  }
  const st = error as Status;
  const reasons = st.details
    .filter((d): d is ErrorInfo => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")
    .map((d) => d.reason);
  if (typeof st.code !== "number" || reasons.join() !== reason) {
    fail(op, `error ${JSON.stringify(st).slice(0, 200)}, expected reason ${reason}`);
  }
}

const today = new Date().toISOString().slice(0, 10);

// An upload's body as multipart/form-data: openapi-typescript types the binary part `file` as a
// string, so the Blob travels there cast; the text fields first and file last, as the gateway
// requires (docs/images.md). openapi-fetch sends a FormData as it is (fetch sets the boundary).
function formData(body: Upload): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (name !== "file" && value !== undefined) form.append(name, String(value));
  }
  form.append("file", body.file as unknown as Blob, "photo.jpg");
  return form;
}
const photo = new Blob([readFileSync(picturePath!)], { type: "image/jpeg" }) as unknown as string;
const notAPicture = new Blob([readFileSync(process.argv[1]!)], { type: "image/jpeg" }) as unknown as string;

async function main() {
  await ok("GetHealth", api.GET("/api/v1/health"), 200, (d) => "checks" in d && d.status === "SERVING");
  await err("GetHealth", dead.GET("/api/v1/health"), 503, "UNAVAILABLE");
  await ok("GetLiveness", api.GET("/api/v1/health/live"), 200, (d) => d.status === "SERVING");
  // The gateway answers liveness itself: 200 with the server unreachable too.
  await ok("GetLiveness", dead.GET("/api/v1/health/live"), 200, (d) => d.status === "SERVING");
  await ok("GetStartup", api.GET("/api/v1/health/startup"), 200, (d) => d.schema_version > 0);
  await err("GetStartup", dead.GET("/api/v1/health/startup"), 503, "UNAVAILABLE");

  await ok("ListProperties", api.GET("/api/v1/properties"), 200, (d) => d.data[0]?.id === "BER1");
  await err("ListProperties", api.GET("/api/v1/properties", { params: { query: { page_token: "nonsense" } } }),
            400, "INVALID_PAGE_TOKEN");
  await ok("GetProperty", api.GET("/api/v1/properties/{id}", { params: { path: { id: "BER1" } } }), 200,
           (d) => d.id === "BER1");
  await err("GetProperty", api.GET("/api/v1/properties/{id}", { params: { path: { id: "NOPE1" } } }), 404,
            "PROPERTY_NOT_FOUND");
  await ok("ListRoomTypes", api.GET("/api/v1/room-types", { params: { query: { category: "SUITE" } } }), 200,
           (d) => d.data.every((t) => t.category === "SUITE"));
  await err("ListRoomTypes", api.GET("/api/v1/room-types", { params: { query: { property_id: "NOPE1" } } }), 404,
            "PROPERTY_NOT_FOUND");
  await ok("ListPropertyRoomTypes", api.GET("/api/v1/properties/{property_id}/room-types",
           { params: { path: { property_id: "BER1" } } }), 200, (d) => d.data.length > 0);
  await err("ListPropertyRoomTypes", api.GET("/api/v1/properties/{property_id}/room-types",
            { params: { path: { property_id: "NOPE1" } } }), 404, "PROPERTY_NOT_FOUND");
  await ok("GetRoomType", api.GET("/api/v1/room-types/{id}", { params: { path: { id: "BER1-STD" } } }), 200,
           (d) => d.images[0]?.variants?.original?.webp === null);
  await err("GetRoomType", api.GET("/api/v1/room-types/{id}", { params: { path: { id: "BER1-NONE" } } }), 404,
            "ROOM_TYPE_NOT_FOUND");
  await ok("ListRooms", api.GET("/api/v1/rooms", { params: { query: { page_size: 5 } } }), 200,
           (d) => d.data.length === 5 && typeof d.next_page_token === "string");
  await err("ListRooms", api.GET("/api/v1/rooms", { params: { query: { floor: -1 } } }), 400, "INVALID_ARGUMENT");
  await ok("ListPropertyRooms", api.GET("/api/v1/properties/{property_id}/rooms",
           { params: { path: { property_id: "LIS1" } } }), 200, (d) => d.data.every((r) => r.property_id === "LIS1"));
  await err("ListPropertyRooms", api.GET("/api/v1/properties/{property_id}/rooms",
            { params: { path: { property_id: "NOPE1" } } }), 404, "PROPERTY_NOT_FOUND");
  await ok("GetRoom", api.GET("/api/v1/rooms/{number}", { params: { path: { number: "101" }, query: { property_id: "BER1" } } }),
           200, (d) => d.number === "101" && d.images.length > 0);
  await err("GetRoom", api.GET("/api/v1/rooms/{number}", { params: { path: { number: "999" }, query: { property_id: "BER1" } } }),
            404, "ROOM_NOT_FOUND");
  await ok("BatchGetRooms", api.GET("/api/v1/rooms:batchGet",
           { params: { query: { property_id: "BER1", numbers: ["305", "101"], read_mask: "number,available" } } }),
           200, (d) => d.rooms.map((r) => r.number).join() === "305,101");
  await err("BatchGetRooms", api.GET("/api/v1/rooms:batchGet",
            { params: { query: { property_id: "BER1", numbers: ["101", "999"] } } }), 404, "ROOM_NOT_FOUND");

  // Room data management (1.1.0): a property of its own, made and changed through the client.
  await ok("ListAmenities", api.GET("/api/v1/amenities"), 200, (d) => d.data.some((a) => a.code === "wifi"));
  await err("ListAmenities", dead.GET("/api/v1/amenities"), 503, "UNAVAILABLE");
  const property = await ok("CreateProperty", api.POST("/api/v1/properties", {
    body: { id: "CLI2", name: "Client House", time_zone: "Europe/Madrid", city: "Madrid", country_code: "ES",
            enabled: false, request_id: randomUUID() },
  }), 201, (d) => d.id === "CLI2" && d.enabled === false);
  await err("CreateProperty", api.POST("/api/v1/properties", {
    body: { id: "CLI2", name: "Again", time_zone: "Europe/Madrid", city: "Madrid", country_code: "ES" },
  }), 409, "PROPERTY_EXISTS");
  const propertyEtag = `"${property?.etag ?? ""}"`;
  await ok("UpdateProperty", api.PATCH("/api/v1/properties/{id}", {
    params: { path: { id: "CLI2" }, header: { "If-Match": propertyEtag } }, body: { enabled: true },
  }), 200, (d) => d.enabled === true);
  await err("UpdateProperty", api.PATCH("/api/v1/properties/{id}", {
    params: { path: { id: "CLI2" }, header: { "If-Match": propertyEtag } }, body: { name: "Stale" },
  }), 409, "ETAG_MISMATCH");
  await ok("CreateRoomType", api.POST("/api/v1/room-types", {
    body: { property_id: "CLI2", code: "STD", name: "Standard", category: "STANDARD", amenities: ["wifi"],
            size_sqm: 18.5, max_guests: 2, bed_type: "QUEEN" },
  }), 201, (d) => d.id === "CLI2-STD" && d.images.length === 0);
  await err("CreateRoomType", api.POST("/api/v1/room-types", {
    body: { property_id: "NOPE1", code: "STD", name: "Standard", category: "STANDARD", size_sqm: 18.5, max_guests: 2,
            bed_type: "QUEEN" },
  }), 404, "PROPERTY_NOT_FOUND");
  await ok("UpdateRoomType", api.PATCH("/api/v1/room-types/{id}", {
    params: { path: { id: "CLI2-STD" } }, body: { amenities: ["wifi", "desk"] },
  }), 200, (d) => d.amenities.join() === "desk,wifi");
  await err("UpdateRoomType", api.PATCH("/api/v1/room-types/{id}", {
    params: { path: { id: "CLI2-STD" } }, body: { max_guests: 0 },
  }), 400, "INVALID_ARGUMENT");
  await ok("CreateRoom", api.POST("/api/v1/rooms", {
    body: { property_id: "CLI2", number: "101", floor: 1, room_type_id: "CLI2-STD", extra_amenities: ["balcony"] },
  }), 201, (d) => d.amenities.join() === "balcony,desk,wifi" && d.retire_time === null);
  await err("CreateRoom", api.POST("/api/v1/rooms", {
    body: { property_id: "CLI2", number: "102", floor: 1, room_type_id: "CLI2-NONE" },
  }), 404, "ROOM_TYPE_NOT_FOUND");
  await ok("UpdateRoom", api.PATCH("/api/v1/rooms/{number}", {
    params: { path: { number: "101" }, query: { property_id: "CLI2" } }, body: { floor: 0, retired: true },
  }), 200, (d) => d.floor === 0 && d.retired && d.retire_time !== null);
  await err("UpdateRoom", api.PATCH("/api/v1/rooms/{number}", {
    params: { path: { number: "999" }, query: { property_id: "CLI2" } }, body: { floor: 2 },
  }), 404, "ROOM_NOT_FOUND");

  await ok("ListRoomTypeImages", api.GET("/api/v1/room-types/{room_type_id}/images",
           { params: { path: { room_type_id: "BER1-STD" } } }), 200, (d) => d.data[0]?.variants?.thumbnail?.webp?.format === "webp");
  await err("ListRoomTypeImages", api.GET("/api/v1/room-types/{room_type_id}/images",
            { params: { path: { room_type_id: "BER1-NONE" } } }), 404, "ROOM_TYPE_NOT_FOUND");
  await ok("ListRoomImages", api.GET("/api/v1/rooms/{number}/images",
           { params: { path: { number: "101" }, query: { property_id: "BER1" } } }), 200, (d) => d.data.length === 1);
  await err("ListRoomImages", api.GET("/api/v1/rooms/{number}/images",
            { params: { path: { number: "999" }, query: { property_id: "BER1" } } }), 404, "ROOM_NOT_FOUND");

  // Each generated client changes a gallery of its own (they share one stack): BER1-DLX here.
  const own = await api.GET("/api/v1/room-types/{room_type_id}/images", { params: { path: { room_type_id: "BER1-DLX" } } });
  const image = own.data?.data[0];
  const imageId = image?.id ?? randomUUID();
  await ok("GetImage", api.GET("/api/v1/images/{id}", { params: { path: { id: imageId } } }), 200,
           (d) => d.id === imageId && d.room_type_id === "BER1-DLX");
  await err("GetImage", api.GET("/api/v1/images/{id}", { params: { path: { id: randomUUID() } } }), 404,
            "IMAGE_NOT_FOUND");
  await ok("UpdateImage", api.PATCH("/api/v1/images/{id}", {
    params: { path: { id: imageId }, header: { "If-Match": `"${image?.etag}"` } }, body: { alt_text: "By TypeScript" },
  }), 200, (d) => d.alt_text === "By TypeScript" && d.etag !== image?.etag);
  await err("UpdateImage", api.PATCH("/api/v1/images/{id}", {
    params: { path: { id: imageId }, header: { "If-Match": `"${image?.etag}"` } }, body: { alt_text: "Lost update" },
  }), 409, "ETAG_MISMATCH");
  const ids = (own.data?.data ?? []).map((i) => i.id).reverse();
  await ok("ReorderRoomTypeImages", api.POST("/api/v1/room-types/{room_type_id}/images:reorder", {
    params: { path: { room_type_id: "BER1-DLX" } }, body: { image_ids: ids },
  }), 200, (d) => d.data.map((i) => i.id).join() === ids.join());
  await err("ReorderRoomTypeImages", api.POST("/api/v1/room-types/{room_type_id}/images:reorder", {
    params: { path: { room_type_id: "BER1-DLX" } }, body: { image_ids: ids.slice(1) },
  }), 400, "INVALID_ARGUMENT");
  const room = await api.GET("/api/v1/rooms/{number}/images", { params: { path: { number: "101" }, query: { property_id: "BER1" } } });
  const roomIds = (room.data?.data ?? []).map((i) => i.id);
  await ok("ReorderRoomImages", api.POST("/api/v1/rooms/{number}/images:reorder", {
    params: { path: { number: "101" }, query: { property_id: "BER1" } }, body: { image_ids: roomIds },
  }), 200, (d) => d.data.length === roomIds.length);
  await err("ReorderRoomImages", api.POST("/api/v1/rooms/{number}/images:reorder", {
    params: { path: { number: "999" }, query: { property_id: "BER1" } }, body: { image_ids: roomIds },
  }), 404, "ROOM_NOT_FOUND");
  await ok("DeleteImage", api.DELETE("/api/v1/images/{id}", { params: { path: { id: imageId } } }), 200, (d) => d.id === imageId);
  await err("DeleteImage", api.DELETE("/api/v1/images/{id}", { params: { path: { id: imageId } } }), 404,
            "IMAGE_NOT_FOUND");
  // Uploads into this client's own room type and room.
  await ok("UploadRoomTypeImage", api.POST("/api/v1/room-types/{room_type_id}/images", {
    params: { path: { room_type_id: "CLI2-STD" } }, bodySerializer: formData,
    body: { alt_text: "Uploaded by TypeScript", sort_order: 3, request_id: randomUUID(), file: photo },
  }), 201, (d) => d.room_type_id === "CLI2-STD" && d.sort_order === 3 && d.variants?.original?.format === "jpeg");
  await err("UploadRoomTypeImage", api.POST("/api/v1/room-types/{room_type_id}/images", {
    params: { path: { room_type_id: "CLI2-STD" } }, bodySerializer: formData,
    body: { alt_text: "Not a picture", file: notAPicture },
  }), 400, "UNSUPPORTED_IMAGE");
  await ok("UploadRoomImage", api.POST("/api/v1/rooms/{number}/images", {
    params: { path: { number: "101" }, query: { property_id: "CLI2" } }, bodySerializer: formData,
    body: { alt_text: "Room 101, by TypeScript", file: photo },
  }), 201, (d) => d.room_number === "101" && d.alt_text === "Room 101, by TypeScript");
  await err("UploadRoomImage", api.POST("/api/v1/rooms/{number}/images", {
    params: { path: { number: "999" }, query: { property_id: "CLI2" } }, bodySerializer: formData,
    body: { alt_text: "Nowhere", file: photo },
  }), 404, "ROOM_NOT_FOUND");

  await ok("ListEquipment", api.GET("/api/v1/rooms/{number}/equipment",
           { params: { path: { number: "101" }, query: { property_id: "BER1" } } }), 200, (d) => d.data.length > 0);
  await err("ListEquipment", api.GET("/api/v1/rooms/{number}/equipment",
            { params: { path: { number: "999" }, query: { property_id: "BER1" } } }), 404, "ROOM_NOT_FOUND");
  await ok("CreateEquipment", api.POST("/api/v1/rooms/{number}/equipment", {
    params: { path: { number: "101" } },
    body: { property_id: "BER1", name: "Bathroom fan", type: "extractor_fan", installed_on: "2026-01-15", request_id: randomUUID() },
  }), 201, (d) => d.room_number === "101" && d.status === "OPERATIONAL");
  await err("CreateEquipment", api.POST("/api/v1/rooms/{number}/equipment", {
    params: { path: { number: "101" } }, body: { property_id: "BER1", name: "", type: "extractor_fan" },
  }), 400, "INVALID_ARGUMENT");
  await ok("GetRoomMaintenance", api.GET("/api/v1/rooms/{number}/maintenance",
           { params: { path: { number: "408" }, query: { property_id: "BER1" } } }), 200, (d) => d.room?.number === "408");
  await err("GetRoomMaintenance", api.GET("/api/v1/rooms/{number}/maintenance",
            { params: { path: { number: "999" }, query: { property_id: "BER1" } } }), 404, "ROOM_NOT_FOUND");

  await ok("ListSchedules", api.GET("/api/v1/maintenance/schedules", { params: { query: { property_id: "BER1", overdue: true } } }),
           200, (d) => d.data.every((s) => s.overdue));
  await err("ListSchedules", api.GET("/api/v1/maintenance/schedules", { params: { query: { property_id: "NOPE1" } } }),
            404, "PROPERTY_NOT_FOUND");
  const schedule = await ok("CreateSchedule", api.POST("/api/v1/maintenance/schedules", {
    body: { property_id: "BER1", room_number: "102", task: "Clean AC filters", interval_unit: "MONTH", interval_count: 3, starts_on: today },
  }), 201, (d) => d.next_due_on === today);
  await err("CreateSchedule", api.POST("/api/v1/maintenance/schedules", {
    body: { property_id: "BER1", room_number: "102", task: "Clean AC filters", interval_unit: "MONTH", interval_count: 0, starts_on: today },
  }), 400, "INVALID_ARGUMENT");
  const scheduleId = schedule?.id ?? randomUUID();
  const complete = { action: "COMPLETE", completed_by: "Jonas", expected_due_on: today } as const;
  await ok("ApplyScheduleAction", api.POST("/api/v1/maintenance/schedules/{id}",
           { params: { path: { id: scheduleId } }, body: complete }), 200, (d) => d.completion?.due_on === today);
  await err("ApplyScheduleAction", api.POST("/api/v1/maintenance/schedules/{id}",
            { params: { path: { id: scheduleId } }, body: complete }), 409, "ALREADY_COMPLETED");

  const issue = await ok("CreateIssue", api.POST("/api/v1/issues", {
    body: { property_id: "BER1", room_number: "305", title: "Water leaking from ceiling", category: "PLUMBING",
            priority: "URGENT", reported_by: "Front desk", request_id: randomUUID() },
  }), 201, (d) => d.status === "OPEN" && d.resolved_at === null);
  await err("CreateIssue", api.POST("/api/v1/issues", {
    body: { property_id: "BER1", room_number: "999", title: "Nowhere", category: "OTHER", reported_by: "Front desk" },
  }), 404, "ROOM_NOT_FOUND");
  await ok("ListIssues", api.GET("/api/v1/issues", { params: { query: { property_id: "BER1", status: "OPEN" } } }), 200,
           (d) => d.data.every((i) => i.status === "OPEN"));
  await err("ListIssues", api.GET("/api/v1/issues", { params: { query: { property_id: "NOPE1" } } }), 404, "PROPERTY_NOT_FOUND");
  const issueId = issue?.id ?? randomUUID();
  const got = api.GET("/api/v1/issues/{id}", { params: { path: { id: issueId } } });
  await ok("GetIssue", got, 200, (d) => d.id === issueId);
  if ((await got).response.headers.get("ETag") !== `"${issue?.etag}"`) fail("GetIssue", "no ETag header");
  await err("GetIssue", api.GET("/api/v1/issues/{id}", { params: { path: { id: randomUUID() } } }), 404, "ISSUE_NOT_FOUND");
  await ok("BatchGetIssues", api.GET("/api/v1/issues:batchGet", { params: { query: { ids: [issueId], read_mask: "id,status" } } }),
           200, (d) => d.issues[0]?.id === issueId && d.issues[0]?.status === "OPEN");
  await err("BatchGetIssues", api.GET("/api/v1/issues:batchGet", { params: { query: { ids: [randomUUID()] } } }), 404,
            "ISSUE_NOT_FOUND");
  const etag = `"${issue?.etag ?? ""}"`;
  await ok("UpdateIssue", api.PATCH("/api/v1/issues/{id}", {
    params: { path: { id: issueId }, header: { "If-Match": etag } }, body: { status: "IN_PROGRESS", updated_by: "Jonas" },
  }), 200, (d) => d.status === "IN_PROGRESS");
  await err("UpdateIssue", api.PATCH("/api/v1/issues/{id}", {
    params: { path: { id: issueId }, header: { "If-Match": etag } }, body: { assignee: "Jonas" },
  }), 409, "ETAG_MISMATCH");

  await ok("GetIssueStats", api.GET("/api/v1/issues/stats", { params: { query: { property_id: "BER1" } } }), 200,
           (d) => typeof d.open_count === "number");
  await err("GetIssueStats", api.GET("/api/v1/issues/stats", { params: { query: { property_id: "NOPE1" } } }), 404,
            "PROPERTY_NOT_FOUND");
  await ok("GetSummary", api.GET("/api/v1/summary"), 200, (d) => d.properties > 0);
  await err("GetSummary", api.GET("/api/v1/summary", { params: { query: { property_id: "NOPE1" } } }), 404, "PROPERTY_NOT_FOUND");

  const listed = await api.GET("/api/v1/properties");
  await ok("ListChanges", api.GET("/api/v1/changes", {
    params: { query: { after: listed.data?.change_cursor, page_size: 10, resource_type: ["ISSUE", "ROOM"] } },
  }), 200, (d) => d.next_cursor !== "" && d.data.every((c) => c.resource_type === "ISSUE" || c.resource_type === "ROOM"));
  await err("ListChanges", api.GET("/api/v1/changes", { params: { query: { after: "nonsense" } } }), 400, "INVALID_CURSOR");
  // The stream is SSE or NDJSON, not JSON: its refusals are what a generated client can check.
  await err("WatchChanges", api.GET("/api/v1/changes/stream", { params: { query: { after: "nonsense" } } }), 400,
            "INVALID_CURSOR");
  await err("WatchChanges", dead.GET("/api/v1/changes/stream"), 503, "UNAVAILABLE");

  // Webhooks (1.2.0): an endpoint of this program on loopback answers the creation's ping.
  const endpoint = createServer((req, res) => { req.resume(); req.on("end", () => { res.statusCode = 204; res.end(); }); });
  await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hook`;
  const hook = await ok("CreateWebhook", api.POST("/api/v1/webhooks", { body: { url, resource_type: ["ISSUE"] } }), 201,
                        (d) => d.secret.startsWith("whsec_") && d.state === "ACTIVE");
  await err("CreateWebhook", api.POST("/api/v1/webhooks", { body: { url: "http://10.9.8.7/hook" } }), 400,
            "WEBHOOK_URL_NOT_ALLOWED");
  const hookId = hook?.id ?? randomUUID();
  await ok("GetWebhook", api.GET("/api/v1/webhooks/{id}", { params: { path: { id: hookId } } }), 200,
           (d) => d.url === url && d.secret === "");
  await err("GetWebhook", api.GET("/api/v1/webhooks/{id}", { params: { path: { id: randomUUID() } } }), 404,
            "WEBHOOK_NOT_FOUND");
  await ok("ListWebhooks", api.GET("/api/v1/webhooks", { params: { query: { page_size: 500 } } }), 200,
           (d) => d.data.some((w) => w.id === hookId));
  await err("ListWebhooks", api.GET("/api/v1/webhooks", { params: { query: { page_token: "nonsense" } } }), 400,
            "INVALID_PAGE_TOKEN");
  await ok("UpdateWebhook", api.PATCH("/api/v1/webhooks/{id}", { params: { path: { id: hookId } }, body: { state: "PAUSED" } }),
           200, (d) => d.state === "PAUSED");
  await err("UpdateWebhook", api.PATCH("/api/v1/webhooks/{id}", {
    params: { path: { id: hookId } }, body: { url: "http://10.9.8.7/hook" },
  }), 400, "WEBHOOK_URL_NOT_ALLOWED");
  await ok("PingWebhook", api.POST("/api/v1/webhooks/{id}/ping", { params: { path: { id: hookId } }, body: {} }), 200,
           (d) => d.ok && d.http_status === 204);
  await err("PingWebhook", api.POST("/api/v1/webhooks/{id}/ping", { params: { path: { id: randomUUID() } }, body: {} }),
            404, "WEBHOOK_NOT_FOUND");
  await ok("RotateWebhookSecret", api.POST("/api/v1/webhooks/{id}/rotate-secret", {
    params: { path: { id: hookId } }, body: { grace_seconds: 60 },
  }), 200, (d) => d.secret.startsWith("whsec_") && d.secret !== hook?.secret);
  await err("RotateWebhookSecret", api.POST("/api/v1/webhooks/{id}/rotate-secret", {
    params: { path: { id: hookId } }, body: { grace_seconds: -1 },
  }), 400, "INVALID_ARGUMENT");
  await ok("ReplayWebhook", api.POST("/api/v1/webhooks/{id}/replay", {
    params: { path: { id: hookId } }, body: { after: hook?.cursor ?? "" },
  }), 200, (d) => d.cursor === hook?.cursor);
  await err("ReplayWebhook", api.POST("/api/v1/webhooks/{id}/replay", {
    params: { path: { id: hookId } }, body: { after: "nonsense" },
  }), 400, "INVALID_CURSOR");
  await ok("ListWebhookDeliveries", api.GET("/api/v1/webhooks/{id}/deliveries", {
    params: { path: { id: hookId }, query: { failures_only: true } },
  }), 200, (d) => d.data.length === 0 && d.next_page_token === "");
  await err("ListWebhookDeliveries", api.GET("/api/v1/webhooks/{id}/deliveries", { params: { path: { id: randomUUID() } } }),
            404, "WEBHOOK_NOT_FOUND");
  // A logged delivery to resend: resume, write an issue, wait for its delivery.
  await api.PATCH("/api/v1/webhooks/{id}", { params: { path: { id: hookId } }, body: { state: "ACTIVE" } });
  await api.POST("/api/v1/issues", { body: { property_id: "BER1", room_number: "102", title: "Webhook delivery",
                                             category: "OTHER", reported_by: "client" } });
  let deliveryId = "1";
  for (let i = 0; i < 100; i++) {
    const log = await api.GET("/api/v1/webhooks/{id}/deliveries", { params: { path: { id: hookId } } });
    const first = log.data?.data[0];
    if (first !== undefined) { deliveryId = first.id; break; }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await ok("ResendWebhookDelivery", api.POST("/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend", {
    params: { path: { id: hookId, delivery_id: deliveryId } }, body: {},
  }), 200, (d) => d.attempt === 0 && d.succeeded);
  await err("ResendWebhookDelivery", api.POST("/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend", {
    params: { path: { id: hookId, delivery_id: "999999999" } }, body: {},
  }), 404, "WEBHOOK_DELIVERY_NOT_FOUND");
  await ok("DeleteWebhook", api.DELETE("/api/v1/webhooks/{id}", { params: { path: { id: hookId } } }), 200, (d) => typeof d === "object");
  await err("DeleteWebhook", api.DELETE("/api/v1/webhooks/{id}", { params: { path: { id: hookId } } }), 404, "WEBHOOK_NOT_FOUND");
  endpoint.close();

  // Room blocks (1.3.0): a block made, read, listed, moved and cancelled; a batch; availability.
  const blockOf = (room: string, start: string, end: string) => ({
    property_id: "BER1", room_number: room, type: "OUT_OF_ORDER" as const, start_date: start, end_date: end,
    reason: "Renovation",
  });
  const block = await ok("CreateRoomBlock", api.POST("/api/v1/room-blocks", { body: blockOf("110", "2033-01-10", "2033-01-15") }),
                         201, (d) => d.start_date === "2033-01-10");
  await err("CreateRoomBlock", api.POST("/api/v1/room-blocks", { body: blockOf("110", "2033-01-12", "2033-01-20") }), 409,
            "ROOM_BLOCK_OVERLAP");
  const blockId = block?.id ?? randomUUID();
  await ok("GetRoomBlock", api.GET("/api/v1/room-blocks/{id}", { params: { path: { id: blockId } } }), 200,
           (d) => d.id === blockId);
  await err("GetRoomBlock", api.GET("/api/v1/room-blocks/{id}", { params: { path: { id: randomUUID() } } }), 404,
            "ROOM_BLOCK_NOT_FOUND");
  await ok("ListRoomBlocks", api.GET("/api/v1/room-blocks", {
    params: { query: { property_id: "BER1", from_date: "2033-01-01", to_date: "2033-02-01" } },
  }), 200, (d) => d.data.some((b) => b.id === blockId));
  await err("ListRoomBlocks", api.GET("/api/v1/room-blocks", { params: { query: { property_id: "NOPE1" } } }), 404,
            "PROPERTY_NOT_FOUND");
  const blockEtag = `"${block?.etag ?? ""}"`;
  await ok("UpdateRoomBlock", api.PATCH("/api/v1/room-blocks/{id}", {
    params: { path: { id: blockId }, header: { "If-Match": blockEtag } }, body: { end_date: "2033-01-16" },
  }), 200, (d) => d.end_date === "2033-01-16");
  await err("UpdateRoomBlock", api.PATCH("/api/v1/room-blocks/{id}", {
    params: { path: { id: blockId }, header: { "If-Match": blockEtag } }, body: { end_date: "2033-01-17" },
  }), 409, "ETAG_MISMATCH");
  await ok("CancelRoomBlock", api.POST("/api/v1/room-blocks/{id}:cancel", { params: { path: { id: blockId } }, body: {} }),
           200, (d) => d.cancelled === true);
  await err("CancelRoomBlock", api.POST("/api/v1/room-blocks/{id}:cancel", {
    params: { path: { id: randomUUID() } }, body: {},
  }), 404, "ROOM_BLOCK_NOT_FOUND");
  await ok("BatchCreateRoomBlocks", api.POST("/api/v1/room-blocks:batchCreate", {
    body: { requests: [blockOf("109", "2033-02-01", "2033-02-03"), blockOf("108", "2033-02-01", "2033-02-03")] },
  }), 200, (d) => d.room_blocks.length === 2);
  await err("BatchCreateRoomBlocks", api.POST("/api/v1/room-blocks:batchCreate", {
    body: { requests: [blockOf("999", "2033-02-01", "2033-02-03")] },
  }), 404, "ROOM_NOT_FOUND");
  await ok("GetPropertyAvailability", api.GET("/api/v1/properties/{property_id}/availability", {
    params: { path: { property_id: "BER1" }, query: { from_date: "2033-01-30", to_date: "2033-02-04" } },
  }), 200, (d) => d.dates.length === 5);
  await err("GetPropertyAvailability", api.GET("/api/v1/properties/{property_id}/availability", {
    params: { path: { property_id: "NOPE1" }, query: { from_date: "2033-01-30", to_date: "2033-02-04" } },
  }), 404, "PROPERTY_NOT_FOUND");

  // Housekeeping (1.4.0): one room cleaned, an inspection refused, rooms set at once, the overview, a history.
  await ok("UpdateRoomHousekeeping", api.PATCH("/api/v1/rooms/{room_number}/housekeeping", {
    params: { path: { room_number: "304" }, query: { property_id: "BER1" } }, body: { condition: "CLEAN", updated_by: "Ana" },
  }), 200, (d) => d.condition === "CLEAN");
  await err("UpdateRoomHousekeeping", api.PATCH("/api/v1/rooms/{room_number}/housekeeping", {
    params: { path: { room_number: "305" }, query: { property_id: "BER1" } }, body: { condition: "INSPECTED" },
  }), 400, "ROOM_NOT_CLEAN");
  await ok("SetHousekeeping", api.POST("/api/v1/properties/{property_id}/rooms:setHousekeeping", {
    params: { path: { property_id: "BER1" } },
    body: { room_numbers: ["304", "306"], occupancy: "VACANT", occupancy_source: "pms" },
  }), 200, (d) => d.rooms.length === 2 && d.rooms[0]?.room_number === "304");
  await err("SetHousekeeping", api.POST("/api/v1/properties/{property_id}/rooms:setHousekeeping", {
    params: { path: { property_id: "BER1" } }, body: { room_numbers: ["304", "999"], condition: "DIRTY" },
  }), 404, "ROOM_NOT_FOUND");
  await ok("GetHousekeepingOverview", api.GET("/api/v1/properties/{property_id}/housekeeping", {
    params: { path: { property_id: "BER1" } },
  }), 200, (d) => (d.total?.rooms ?? 0) > 0);
  await err("GetHousekeepingOverview", api.GET("/api/v1/properties/{property_id}/housekeeping", {
    params: { path: { property_id: "NOPE1" } },
  }), 404, "PROPERTY_NOT_FOUND");
  await ok("ListHousekeepingHistory", api.GET("/api/v1/rooms/{room_number}/housekeeping/history", {
    params: { path: { room_number: "304" }, query: { property_id: "BER1" } },
  }), 200, (d) => d.data.length >= 2);
  await err("ListHousekeepingHistory", api.GET("/api/v1/rooms/{room_number}/housekeeping/history", {
    params: { path: { room_number: "999" }, query: { property_id: "BER1" } },
  }), 404, "ROOM_NOT_FOUND");
  // The housekeeping policy (1.5.0): read, changed, and a value out of range refused.
  await ok("GetHousekeepingPolicy", api.GET("/api/v1/properties/{property_id}/housekeeping-policy", {
    params: { path: { property_id: "BER1" } },
  }), 200, (d) => d.property_id === "BER1");
  await err("GetHousekeepingPolicy", api.GET("/api/v1/properties/{property_id}/housekeeping-policy", {
    params: { path: { property_id: "NOPE1" } },
  }), 404, "PROPERTY_NOT_FOUND");
  await ok("UpdateHousekeepingPolicy", api.PATCH("/api/v1/properties/{property_id}/housekeeping-policy", {
    params: { path: { property_id: "BER1" } }, body: { vacant_dirty_after_days: 4 },
  }), 200, (d) => d.vacant_dirty_after_days === 4);
  await err("UpdateHousekeepingPolicy", api.PATCH("/api/v1/properties/{property_id}/housekeeping-policy", {
    params: { path: { property_id: "BER1" } }, body: { vacant_dirty_after_days: 8 },
  }), 400, "INVALID_ARGUMENT");
}

main().catch((e) => results.set("crash", [String(e?.stack ?? e)])).finally(() => {
  const operations = [...results].filter(([op]) => op !== "crash");
  console.log(JSON.stringify({
    generator: "openapi-typescript+openapi-fetch", operations: operations.length,
    passed: operations.filter(([, f]) => f.length === 0).length, calls,
    failures: [...results].flatMap(([op, f]) => f.map((x) => `${op}: ${x}`)),
  }));
});
