// Command exercise calls every operation of the Hotel Data Service through the client that
// oapi-codegen generated from the served OpenAPI document (package gen, written by the test): each
// operation's success case and at least one error case. Each result must have the expected status
// and be decoded into the generated type for it (JSON200, JSON201, JSON404, ...).
//
//	go run . <base URL> <dead base URL: a gateway whose server is down> <a JPEG to upload>
//
// Prints one JSON line: {"generator", "operations", "passed", "calls", "failures"}.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"hotel/clients/go/gen"

	openapi_types "github.com/oapi-codegen/runtime/types"
)

var (
	ctx      = context.Background()
	order    []string
	results  = map[string][]string{}
	calls    int
	errorTyp = gen.ErrorInfoType("type.googleapis.com/google.rpc.ErrorInfo")
)

type response interface{ StatusCode() int }

// check records one call: no transport or decoding error, the expected status, and the typed body
// for that status present (typed != nil).
func check(op string, r response, err error, status int, typed bool) bool {
	calls++
	if _, ok := results[op]; !ok {
		order = append(order, op)
		results[op] = []string{}
	}
	switch {
	case err != nil:
		results[op] = append(results[op], "error: "+err.Error())
	case r.StatusCode() != status:
		results[op] = append(results[op], fmt.Sprintf("status %d, expected %d", r.StatusCode(), status))
	case !typed:
		results[op] = append(results[op], fmt.Sprintf("status %d not decoded into its generated type", status))
	default:
		return true
	}
	return false
}

// checkError is check for an error answer: a gen.Status whose ErrorInfo has the expected reason.
func checkError(op string, r response, err error, status int, st *gen.Status, reason string) {
	if !check(op, r, err, status, st != nil) {
		return
	}
	var reasons []string
	for _, d := range st.Details {
		if info, err := d.AsErrorInfo(); err == nil && info.Type == errorTyp {
			reasons = append(reasons, info.Reason)
		}
	}
	if len(reasons) != 1 || reasons[0] != reason {
		results[op] = append(results[op], fmt.Sprintf("reasons %v, expected %s", reasons, reason))
	}
}

// expect records a failed assertion about a decoded body.
func expect(op string, ok bool, what string) {
	if !ok {
		results[op] = append(results[op], "unexpected body: "+what)
	}
}

func ptr[T any](v T) *T { return &v }

func uuid() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// upload is an upload's body (the generated type of its fields) as multipart/form-data: the
// generated client takes it as a reader with its content type. The text fields first, the file
// last, as the gateway requires (docs/images.md).
func upload(fields gen.ImageServiceUploadRoomTypeImageMultipartBody) (string, *bytes.Buffer) {
	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	_ = form.WriteField("alt_text", fields.AltText)
	if fields.SortOrder != nil {
		_ = form.WriteField("sort_order", fmt.Sprint(*fields.SortOrder))
	}
	if fields.RequestId != nil {
		_ = form.WriteField("request_id", *fields.RequestId)
	}
	file, _ := form.CreateFormFile("file", fields.File.Filename())
	data, _ := fields.File.Bytes()
	_, _ = file.Write(data)
	_ = form.Close()
	return form.FormDataContentType(), &body
}

func picture(data []byte) openapi_types.File {
	var f openapi_types.File
	f.InitFromBytes(data, "photo.jpg")
	return f
}

func main() {
	httpClient := &http.Client{Timeout: 10 * time.Second}
	api, err := gen.NewClientWithResponses(os.Args[1], gen.WithHTTPClient(httpClient))
	if err != nil {
		panic(err)
	}
	dead, _ := gen.NewClientWithResponses(os.Args[2], gen.WithHTTPClient(httpClient))
	today := time.Now().UTC().Format("2006-01-02")

	h, err := api.HealthServiceGetHealthWithResponse(ctx)
	if check("GetHealth", h, err, 200, h != nil && h.JSON200 != nil) {
		expect("GetHealth", len(h.JSON200.Checks) == 2, "checks")
	}
	h, err = dead.HealthServiceGetHealthWithResponse(ctx)
	if check("GetHealth", h, err, 503, h != nil && h.JSON503 != nil) {
		st, err := h.JSON503.AsStatus()
		expect("GetHealth", err == nil && st.Code == 14, "503 of an unreachable server is a Status")
	}
	l, err := api.HealthServiceGetLivenessWithResponse(ctx)
	check("GetLiveness", l, err, 200, l != nil && l.JSON200 != nil)
	// The gateway answers liveness itself: 200 with the server unreachable too.
	l, err = dead.HealthServiceGetLivenessWithResponse(ctx)
	check("GetLiveness", l, err, 200, l != nil && l.JSON200 != nil)
	s, err := api.HealthServiceGetStartupWithResponse(ctx)
	check("GetStartup", s, err, 200, s != nil && s.JSON200 != nil)
	s, err = dead.HealthServiceGetStartupWithResponse(ctx)
	if check("GetStartup", s, err, 503, s != nil && s.JSON503 != nil) {
		st, err := s.JSON503.AsStatus()
		expect("GetStartup", err == nil && st.Code == 14, "503 of an unreachable server is a Status")
	}

	lp, err := api.RoomServiceListPropertiesWithResponse(ctx, &gen.RoomServiceListPropertiesParams{})
	if check("ListProperties", lp, err, 200, lp.JSON200 != nil) {
		expect("ListProperties", len(lp.JSON200.Data) >= 2 && lp.JSON200.Data[0].Id == "BER1", "BER1 first")
	}
	lp, err = api.RoomServiceListPropertiesWithResponse(ctx, &gen.RoomServiceListPropertiesParams{PageToken: ptr("nonsense")})
	checkError("ListProperties", lp, err, 400, lp.JSON400, "INVALID_PAGE_TOKEN")
	gp, err := api.RoomServiceGetPropertyWithResponse(ctx, "BER1", nil)
	check("GetProperty", gp, err, 200, gp.JSON200 != nil)
	gp, err = api.RoomServiceGetPropertyWithResponse(ctx, "NOPE1", nil)
	checkError("GetProperty", gp, err, 404, gp.JSON404, "PROPERTY_NOT_FOUND")
	lt, err := api.RoomServiceListRoomTypesWithResponse(ctx, &gen.RoomServiceListRoomTypesParams{})
	check("ListRoomTypes", lt, err, 200, lt.JSON200 != nil)
	lt, err = api.RoomServiceListRoomTypesWithResponse(ctx, &gen.RoomServiceListRoomTypesParams{PropertyId: ptr("NOPE1")})
	checkError("ListRoomTypes", lt, err, 404, lt.JSON404, "PROPERTY_NOT_FOUND")
	lpt, err := api.RoomServiceListPropertyRoomTypesWithResponse(ctx, "BER1", &gen.RoomServiceListPropertyRoomTypesParams{})
	check("ListPropertyRoomTypes", lpt, err, 200, lpt.JSON200 != nil)
	lpt, err = api.RoomServiceListPropertyRoomTypesWithResponse(ctx, "NOPE1", &gen.RoomServiceListPropertyRoomTypesParams{})
	checkError("ListPropertyRoomTypes", lpt, err, 404, lpt.JSON404, "PROPERTY_NOT_FOUND")
	rt, err := api.RoomServiceGetRoomTypeWithResponse(ctx, "BER1-STD", nil)
	if check("GetRoomType", rt, err, 200, rt.JSON200 != nil) {
		images := rt.JSON200.Images
		expect("GetRoomType", len(images) > 0 && images[0].Variants.Original.Webp == nil, "original without webp")
	}
	rt, err = api.RoomServiceGetRoomTypeWithResponse(ctx, "BER1-NONE", nil)
	checkError("GetRoomType", rt, err, 404, rt.JSON404, "ROOM_TYPE_NOT_FOUND")
	lr, err := api.RoomServiceListRoomsWithResponse(ctx, &gen.RoomServiceListRoomsParams{PageSize: ptr(int32(5))})
	if check("ListRooms", lr, err, 200, lr.JSON200 != nil) {
		expect("ListRooms", len(lr.JSON200.Data) == 5 && lr.JSON200.NextPageToken != "", "a page of 5")
	}
	lr, err = api.RoomServiceListRoomsWithResponse(ctx, &gen.RoomServiceListRoomsParams{Floor: ptr(int32(-1))})
	checkError("ListRooms", lr, err, 400, lr.JSON400, "INVALID_ARGUMENT")
	lpr, err := api.RoomServiceListPropertyRoomsWithResponse(ctx, "LIS1", &gen.RoomServiceListPropertyRoomsParams{})
	check("ListPropertyRooms", lpr, err, 200, lpr.JSON200 != nil)
	lpr, err = api.RoomServiceListPropertyRoomsWithResponse(ctx, "NOPE1", &gen.RoomServiceListPropertyRoomsParams{})
	checkError("ListPropertyRooms", lpr, err, 404, lpr.JSON404, "PROPERTY_NOT_FOUND")
	gr, err := api.RoomServiceGetRoomWithResponse(ctx, "101", &gen.RoomServiceGetRoomParams{PropertyId: "BER1"})
	if check("GetRoom", gr, err, 200, gr.JSON200 != nil) {
		expect("GetRoom", gr.JSON200.Number == "101" && len(gr.JSON200.Images) == 1, "room 101 with its image")
	}
	gr, err = api.RoomServiceGetRoomWithResponse(ctx, "999", &gen.RoomServiceGetRoomParams{PropertyId: "BER1"})
	checkError("GetRoom", gr, err, 404, gr.JSON404, "ROOM_NOT_FOUND")
	bg, err := api.RoomServiceBatchGetRoomsWithResponse(ctx, &gen.RoomServiceBatchGetRoomsParams{
		PropertyId: "BER1", Numbers: []string{"305", "101"}, ReadMask: ptr("number,available")})
	if check("BatchGetRooms", bg, err, 200, bg.JSON200 != nil) {
		rooms := bg.JSON200.Rooms
		expect("BatchGetRooms", len(rooms) == 2 && rooms[0].Number == "305" && rooms[1].Number == "101", "305, 101")
	}
	bg, err = api.RoomServiceBatchGetRoomsWithResponse(ctx, &gen.RoomServiceBatchGetRoomsParams{
		PropertyId: "BER1", Numbers: []string{"101", "999"}})
	checkError("BatchGetRooms", bg, err, 404, bg.JSON404, "ROOM_NOT_FOUND")

	// Room data management (1.1.0): a property of its own, made and changed through the client.
	la, err := api.RoomServiceListAmenitiesWithResponse(ctx)
	if check("ListAmenities", la, err, 200, la.JSON200 != nil) {
		expect("ListAmenities", len(la.JSON200.Data) == 16, "16 amenities")
	}
	la, err = dead.RoomServiceListAmenitiesWithResponse(ctx)
	checkError("ListAmenities", la, err, 503, la.JSON503, "UNAVAILABLE")
	newProperty := gen.CreatePropertyRequest{Id: "CLI3", Name: "Client House", TimeZone: "Europe/Oslo", City: "Oslo",
		CountryCode: "NO", Enabled: ptr(false), RequestId: ptr(uuid())}
	cp, err := api.RoomServiceCreatePropertyWithResponse(ctx, newProperty)
	propertyEtag := ""
	if check("CreateProperty", cp, err, 201, cp.JSON201 != nil) {
		propertyEtag = cp.JSON201.Etag
		expect("CreateProperty", !cp.JSON201.Enabled, "created disabled")
	}
	newProperty.RequestId = nil
	cp, err = api.RoomServiceCreatePropertyWithResponse(ctx, newProperty)
	checkError("CreateProperty", cp, err, 409, cp.JSON409, "PROPERTY_EXISTS")
	propertyIfMatch := &gen.RoomServiceUpdatePropertyParams{IfMatch: ptr(`"` + propertyEtag + `"`)}
	up, err := api.RoomServiceUpdatePropertyWithResponse(ctx, "CLI3", propertyIfMatch, gen.PropertyUpdate{Enabled: ptr(true)})
	if check("UpdateProperty", up, err, 200, up.JSON200 != nil) {
		expect("UpdateProperty", up.JSON200.Enabled, "enabled")
	}
	up, err = api.RoomServiceUpdatePropertyWithResponse(ctx, "CLI3", propertyIfMatch, gen.PropertyUpdate{Name: ptr("Stale")})
	checkError("UpdateProperty", up, err, 409, up.JSON409, "ETAG_MISMATCH")
	newType := gen.CreateRoomTypeRequest{PropertyId: "CLI3", Code: "STD", Name: "Standard",
		Category: gen.RoomTypeCategorySTANDARD, Amenities: &[]string{"wifi"}, SizeSqm: 18.5, MaxGuests: 2, BedType: "QUEEN"}
	crt, err := api.RoomServiceCreateRoomTypeWithResponse(ctx, newType)
	check("CreateRoomType", crt, err, 201, crt.JSON201 != nil)
	newType.PropertyId = "NOPE1"
	crt, err = api.RoomServiceCreateRoomTypeWithResponse(ctx, newType)
	checkError("CreateRoomType", crt, err, 404, crt.JSON404, "PROPERTY_NOT_FOUND")
	urt, err := api.RoomServiceUpdateRoomTypeWithResponse(ctx, "CLI3-STD", &gen.RoomServiceUpdateRoomTypeParams{},
		gen.RoomTypeUpdate{Amenities: &[]string{"wifi", "desk"}})
	if check("UpdateRoomType", urt, err, 200, urt.JSON200 != nil) {
		expect("UpdateRoomType", len(urt.JSON200.Amenities) == 2, "two amenities")
	}
	urt, err = api.RoomServiceUpdateRoomTypeWithResponse(ctx, "CLI3-STD", &gen.RoomServiceUpdateRoomTypeParams{},
		gen.RoomTypeUpdate{MaxGuests: ptr(int32(0))})
	checkError("UpdateRoomType", urt, err, 400, urt.JSON400, "INVALID_ARGUMENT")
	cr, err := api.RoomServiceCreateRoomWithResponse(ctx, gen.CreateRoomRequest{PropertyId: "CLI3", Number: "101", Floor: ptr(int32(1)),
		RoomTypeId: "CLI3-STD", ExtraAmenities: &[]string{"balcony"}})
	if check("CreateRoom", cr, err, 201, cr.JSON201 != nil) {
		expect("CreateRoom", len(cr.JSON201.Amenities) == 3 && cr.JSON201.RetireTime == nil, "three amenities, active")
	}
	cr, err = api.RoomServiceCreateRoomWithResponse(ctx, gen.CreateRoomRequest{PropertyId: "CLI3", Number: "102", Floor: ptr(int32(1)),
		RoomTypeId: "CLI3-NONE"})
	checkError("CreateRoom", cr, err, 404, cr.JSON404, "ROOM_TYPE_NOT_FOUND")
	ur, err := api.RoomServiceUpdateRoomWithResponse(ctx, "101", &gen.RoomServiceUpdateRoomParams{PropertyId: "CLI3"},
		gen.RoomUpdate{Floor: ptr(int32(0)), Retired: ptr(true)})
	if check("UpdateRoom", ur, err, 200, ur.JSON200 != nil) {
		expect("UpdateRoom", ur.JSON200.Floor == 0 && ur.JSON200.Retired && ur.JSON200.RetireTime != nil, "retired on floor 0")
	}
	ur, err = api.RoomServiceUpdateRoomWithResponse(ctx, "999", &gen.RoomServiceUpdateRoomParams{PropertyId: "CLI3"},
		gen.RoomUpdate{Floor: ptr(int32(2))})
	checkError("UpdateRoom", ur, err, 404, ur.JSON404, "ROOM_NOT_FOUND")

	li, err := api.ImageServiceListRoomTypeImagesWithResponse(ctx, "BER1-STD", nil)
	if check("ListRoomTypeImages", li, err, 200, li.JSON200 != nil) {
		data := li.JSON200.Data
		expect("ListRoomTypeImages", len(data) == 2 && data[0].Variants.Thumbnail.Webp.Format == "webp", "two images with webp thumbnails")
	}
	li, err = api.ImageServiceListRoomTypeImagesWithResponse(ctx, "BER1-NONE", nil)
	checkError("ListRoomTypeImages", li, err, 404, li.JSON404, "ROOM_TYPE_NOT_FOUND")
	lri, err := api.ImageServiceListRoomImagesWithResponse(ctx, "101", &gen.ImageServiceListRoomImagesParams{PropertyId: "BER1"})
	check("ListRoomImages", lri, err, 200, lri.JSON200 != nil)
	lri, err = api.ImageServiceListRoomImagesWithResponse(ctx, "999", &gen.ImageServiceListRoomImagesParams{PropertyId: "BER1"})
	checkError("ListRoomImages", lri, err, 404, lri.JSON404, "ROOM_NOT_FOUND")

	// Each generated client changes a gallery of its own (they share one stack): BER1-STE here.
	var gallery []gen.Image
	if own, err := api.ImageServiceListRoomTypeImagesWithResponse(ctx, "BER1-STE", nil); err == nil && own.JSON200 != nil {
		gallery = own.JSON200.Data
	}
	image := gen.Image{Id: uuid()}
	if len(gallery) > 0 {
		image = gallery[0]
	}
	imgGet, err := api.ImageServiceGetImageWithResponse(ctx, image.Id, nil)
	if check("GetImage", imgGet, err, 200, imgGet.JSON200 != nil) {
		expect("GetImage", imgGet.JSON200.Id == image.Id && imgGet.JSON200.RoomTypeId == "BER1-STE", "the gallery's image")
	}
	imgGet, err = api.ImageServiceGetImageWithResponse(ctx, uuid(), nil)
	checkError("GetImage", imgGet, err, 404, imgGet.JSON404, "IMAGE_NOT_FOUND")
	imageIfMatch := &gen.ImageServiceUpdateImageParams{IfMatch: ptr(`"` + image.Etag + `"`)}
	imgUpdate, err := api.ImageServiceUpdateImageWithResponse(ctx, image.Id, imageIfMatch, gen.ImageUpdate{AltText: ptr("By Go")})
	if check("UpdateImage", imgUpdate, err, 200, imgUpdate.JSON200 != nil) {
		expect("UpdateImage", imgUpdate.JSON200.AltText == "By Go" && imgUpdate.JSON200.Etag != image.Etag, "the new alt_text and etag")
	}
	imgUpdate, err = api.ImageServiceUpdateImageWithResponse(ctx, image.Id, imageIfMatch, gen.ImageUpdate{AltText: ptr("Lost update")})
	checkError("UpdateImage", imgUpdate, err, 409, imgUpdate.JSON409, "ETAG_MISMATCH")
	ids := []string{}
	for i := len(gallery) - 1; i >= 0; i-- {
		ids = append(ids, gallery[i].Id)
	}
	imgReorder, err := api.ImageServiceReorderRoomTypeImagesWithResponse(ctx, "BER1-STE", &gen.ImageServiceReorderRoomTypeImagesParams{},
		gen.GalleryOrder{ImageIds: &ids})
	if check("ReorderRoomTypeImages", imgReorder, err, 200, imgReorder.JSON200 != nil) {
		expect("ReorderRoomTypeImages", len(imgReorder.JSON200.Data) == len(ids) && (len(ids) == 0 || imgReorder.JSON200.Data[0].Id == ids[0]), "the new order")
	}
	partial := ids[:0]
	imgReorder, err = api.ImageServiceReorderRoomTypeImagesWithResponse(ctx, "BER1-STE", &gen.ImageServiceReorderRoomTypeImagesParams{},
		gen.GalleryOrder{ImageIds: &partial})
	checkError("ReorderRoomTypeImages", imgReorder, err, 400, imgReorder.JSON400, "INVALID_ARGUMENT")
	roomIds := []string{}
	if lri, err := api.ImageServiceListRoomImagesWithResponse(ctx, "101", &gen.ImageServiceListRoomImagesParams{PropertyId: "BER1"}); err == nil && lri.JSON200 != nil {
		for _, i := range lri.JSON200.Data {
			roomIds = append(roomIds, i.Id)
		}
	}
	imgRoomReorder, err := api.ImageServiceReorderRoomImagesWithResponse(ctx, "101", &gen.ImageServiceReorderRoomImagesParams{PropertyId: "BER1"},
		gen.GalleryOrder{ImageIds: &roomIds})
	check("ReorderRoomImages", imgRoomReorder, err, 200, imgRoomReorder.JSON200 != nil)
	imgRoomReorder, err = api.ImageServiceReorderRoomImagesWithResponse(ctx, "999", &gen.ImageServiceReorderRoomImagesParams{PropertyId: "BER1"},
		gen.GalleryOrder{ImageIds: &roomIds})
	checkError("ReorderRoomImages", imgRoomReorder, err, 404, imgRoomReorder.JSON404, "ROOM_NOT_FOUND")
	imgDelete, err := api.ImageServiceDeleteImageWithResponse(ctx, image.Id, &gen.ImageServiceDeleteImageParams{})
	check("DeleteImage", imgDelete, err, 200, imgDelete.JSON200 != nil)
	imgDelete, err = api.ImageServiceDeleteImageWithResponse(ctx, image.Id, &gen.ImageServiceDeleteImageParams{})
	checkError("DeleteImage", imgDelete, err, 404, imgDelete.JSON404, "IMAGE_NOT_FOUND")

	// Uploads into this client's own room type and room.
	photo, err := os.ReadFile(os.Args[3])
	if err != nil {
		panic(err)
	}
	ct, body := upload(gen.ImageServiceUploadRoomTypeImageMultipartBody{AltText: "Uploaded by Go", SortOrder: ptr(int32(2)),
		RequestId: ptr(uuid()), File: picture(photo)})
	urti, err := api.ImageServiceUploadRoomTypeImageWithBodyWithResponse(ctx, "CLI3-STD", ct, body)
	if check("UploadRoomTypeImage", urti, err, 201, urti != nil && urti.JSON201 != nil) {
		expect("UploadRoomTypeImage", urti.JSON201.RoomTypeId == "CLI3-STD" && urti.JSON201.SortOrder == 2, "in CLI3-STD at 2")
	}
	ct, body = upload(gen.ImageServiceUploadRoomTypeImageMultipartBody{AltText: "Not a picture", File: picture([]byte("<html></html>"))})
	urti, err = api.ImageServiceUploadRoomTypeImageWithBodyWithResponse(ctx, "CLI3-STD", ct, body)
	checkError("UploadRoomTypeImage", urti, err, 400, urti.JSON400, "UNSUPPORTED_IMAGE")
	roomUpload := &gen.ImageServiceUploadRoomImageParams{PropertyId: "CLI3"}
	ct, body = upload(gen.ImageServiceUploadRoomTypeImageMultipartBody{AltText: "Room 101, by Go", File: picture(photo)})
	uri, err := api.ImageServiceUploadRoomImageWithBodyWithResponse(ctx, "101", roomUpload, ct, body)
	if check("UploadRoomImage", uri, err, 201, uri != nil && uri.JSON201 != nil) {
		expect("UploadRoomImage", uri.JSON201.RoomNumber == "101" && uri.JSON201.AltText == "Room 101, by Go", "room 101's image")
	}
	ct, body = upload(gen.ImageServiceUploadRoomTypeImageMultipartBody{AltText: "Nowhere", File: picture(photo)})
	uri, err = api.ImageServiceUploadRoomImageWithBodyWithResponse(ctx, "999", roomUpload, ct, body)
	checkError("UploadRoomImage", uri, err, 404, uri.JSON404, "ROOM_NOT_FOUND")

	le, err := api.EquipmentServiceListEquipmentWithResponse(ctx, "101", &gen.EquipmentServiceListEquipmentParams{PropertyId: "BER1"})
	check("ListEquipment", le, err, 200, le.JSON200 != nil)
	le, err = api.EquipmentServiceListEquipmentWithResponse(ctx, "999", &gen.EquipmentServiceListEquipmentParams{PropertyId: "BER1"})
	checkError("ListEquipment", le, err, 404, le.JSON404, "ROOM_NOT_FOUND")
	ce, err := api.EquipmentServiceCreateEquipmentWithResponse(ctx, "101", gen.CreateEquipmentBody{
		PropertyId: "BER1", Name: "Bathroom fan", Type: "extractor_fan", InstalledOn: ptr("2026-01-15"), RequestId: ptr(uuid())})
	check("CreateEquipment", ce, err, 201, ce.JSON201 != nil)
	ce, err = api.EquipmentServiceCreateEquipmentWithResponse(ctx, "101", gen.CreateEquipmentBody{
		PropertyId: "BER1", Name: "", Type: "extractor_fan"})
	checkError("CreateEquipment", ce, err, 400, ce.JSON400, "INVALID_ARGUMENT")
	rm, err := api.MaintenanceServiceGetRoomMaintenanceWithResponse(ctx, "408", &gen.MaintenanceServiceGetRoomMaintenanceParams{PropertyId: "BER1"})
	if check("GetRoomMaintenance", rm, err, 200, rm.JSON200 != nil) {
		expect("GetRoomMaintenance", rm.JSON200.Room != nil && rm.JSON200.Room.Number == "408", "room 408")
	}
	rm, err = api.MaintenanceServiceGetRoomMaintenanceWithResponse(ctx, "999", &gen.MaintenanceServiceGetRoomMaintenanceParams{PropertyId: "BER1"})
	checkError("GetRoomMaintenance", rm, err, 404, rm.JSON404, "ROOM_NOT_FOUND")

	ls, err := api.ScheduleServiceListSchedulesWithResponse(ctx, &gen.ScheduleServiceListSchedulesParams{PropertyId: ptr("BER1"), Overdue: ptr(true)})
	check("ListSchedules", ls, err, 200, ls.JSON200 != nil)
	ls, err = api.ScheduleServiceListSchedulesWithResponse(ctx, &gen.ScheduleServiceListSchedulesParams{PropertyId: ptr("NOPE1")})
	checkError("ListSchedules", ls, err, 404, ls.JSON404, "PROPERTY_NOT_FOUND")
	newSchedule := gen.CreateScheduleRequest{PropertyId: "BER1", RoomNumber: "103", Task: "Clean AC filters",
		IntervalUnit: gen.ScheduleIntervalUnit("MONTH"), IntervalCount: 3, StartsOn: today}
	cs, err := api.ScheduleServiceCreateScheduleWithResponse(ctx, newSchedule)
	scheduleID := uuid()
	if check("CreateSchedule", cs, err, 201, cs.JSON201 != nil) {
		scheduleID = cs.JSON201.Id
	}
	newSchedule.IntervalCount = 0
	cs, err = api.ScheduleServiceCreateScheduleWithResponse(ctx, newSchedule)
	checkError("CreateSchedule", cs, err, 400, cs.JSON400, "INVALID_ARGUMENT")
	complete := gen.ApplyScheduleActionBody{Action: gen.ApplyScheduleActionRequestAction("COMPLETE"),
		CompletedBy: ptr("Jonas"), ExpectedDueOn: ptr(today)}
	sa, err := api.ScheduleServiceApplyScheduleActionWithResponse(ctx, scheduleID, complete)
	if check("ApplyScheduleAction", sa, err, 200, sa.JSON200 != nil) {
		expect("ApplyScheduleAction", sa.JSON200.Completion != nil && sa.JSON200.Completion.DueOn == today, "completion due today")
	}
	sa, err = api.ScheduleServiceApplyScheduleActionWithResponse(ctx, scheduleID, complete)
	checkError("ApplyScheduleAction", sa, err, 409, sa.JSON409, "ALREADY_COMPLETED")

	ci, err := api.IssueServiceCreateIssueWithResponse(ctx, gen.CreateIssueRequest{PropertyId: "BER1", RoomNumber: "305",
		Title: "Water leaking from ceiling", Category: gen.IssueCategoryPLUMBING, ReportedBy: "Front desk", RequestId: ptr(uuid())})
	issueID, etag := uuid(), ""
	if check("CreateIssue", ci, err, 201, ci.JSON201 != nil) {
		issueID, etag = *ci.JSON201.Id, ci.JSON201.Etag // read-only properties are pointers in oapi-codegen
		expect("CreateIssue", ci.JSON201.ResolvedAt == nil, "resolved_at null")
	}
	ci, err = api.IssueServiceCreateIssueWithResponse(ctx, gen.CreateIssueRequest{PropertyId: "BER1", RoomNumber: "999",
		Title: "Nowhere", Category: gen.IssueCategoryPLUMBING, ReportedBy: "Front desk"})
	checkError("CreateIssue", ci, err, 404, ci.JSON404, "ROOM_NOT_FOUND")
	lis, err := api.IssueServiceListIssuesWithResponse(ctx, &gen.IssueServiceListIssuesParams{PropertyId: ptr("BER1")})
	check("ListIssues", lis, err, 200, lis.JSON200 != nil)
	lis, err = api.IssueServiceListIssuesWithResponse(ctx, &gen.IssueServiceListIssuesParams{PropertyId: ptr("NOPE1")})
	checkError("ListIssues", lis, err, 404, lis.JSON404, "PROPERTY_NOT_FOUND")
	gi, err := api.IssueServiceGetIssueWithResponse(ctx, issueID, nil)
	check("GetIssue", gi, err, 200, gi.JSON200 != nil)
	gi, err = api.IssueServiceGetIssueWithResponse(ctx, uuid(), nil)
	checkError("GetIssue", gi, err, 404, gi.JSON404, "ISSUE_NOT_FOUND")
	bi, err := api.IssueServiceBatchGetIssuesWithResponse(ctx, &gen.IssueServiceBatchGetIssuesParams{
		Ids: []string{issueID}, ReadMask: ptr("id,status")})
	if check("BatchGetIssues", bi, err, 200, bi.JSON200 != nil) {
		expect("BatchGetIssues", len(bi.JSON200.Issues) == 1 && bi.JSON200.Issues[0].Id != nil && *bi.JSON200.Issues[0].Id == issueID, "the issue")
	}
	bi, err = api.IssueServiceBatchGetIssuesWithResponse(ctx, &gen.IssueServiceBatchGetIssuesParams{Ids: []string{uuid()}})
	checkError("BatchGetIssues", bi, err, 404, bi.JSON404, "ISSUE_NOT_FOUND")
	ifMatch := &gen.IssueServiceUpdateIssueParams{IfMatch: ptr(`"` + etag + `"`)}
	ui, err := api.IssueServiceUpdateIssueWithResponse(ctx, issueID, ifMatch,
		gen.IssueUpdate{Status: ptr(gen.IssueStatusINPROGRESS), UpdatedBy: ptr("Jonas")})
	if check("UpdateIssue", ui, err, 200, ui.JSON200 != nil) {
		expect("UpdateIssue", ui.JSON200.Status == string(gen.IssueStatusINPROGRESS) &&
			ui.HTTPResponse.Header.Get("ETag") == `"`+ui.JSON200.Etag+`"`, "IN_PROGRESS with its ETag")
	}
	ui, err = api.IssueServiceUpdateIssueWithResponse(ctx, issueID, ifMatch, gen.IssueUpdate{Assignee: ptr("Jonas")})
	checkError("UpdateIssue", ui, err, 409, ui.JSON409, "ETAG_MISMATCH")

	st, err := api.StatsServiceGetIssueStatsWithResponse(ctx, &gen.StatsServiceGetIssueStatsParams{PropertyId: ptr("BER1")})
	check("GetIssueStats", st, err, 200, st.JSON200 != nil)
	st, err = api.StatsServiceGetIssueStatsWithResponse(ctx, &gen.StatsServiceGetIssueStatsParams{PropertyId: ptr("NOPE1")})
	checkError("GetIssueStats", st, err, 404, st.JSON404, "PROPERTY_NOT_FOUND")
	sm, err := api.StatsServiceGetSummaryWithResponse(ctx, &gen.StatsServiceGetSummaryParams{})
	if check("GetSummary", sm, err, 200, sm.JSON200 != nil) {
		expect("GetSummary", sm.JSON200.Properties >= 2, "properties")
	}
	sm, err = api.StatsServiceGetSummaryWithResponse(ctx, &gen.StatsServiceGetSummaryParams{PropertyId: ptr("NOPE1")})
	checkError("GetSummary", sm, err, 404, sm.JSON404, "PROPERTY_NOT_FOUND")

	cursor := ""
	if lp, err := api.RoomServiceListPropertiesWithResponse(ctx, &gen.RoomServiceListPropertiesParams{}); err == nil && lp.JSON200 != nil {
		cursor = lp.JSON200.ChangeCursor
	}
	lc, err := api.ChangeServiceListChangesWithResponse(ctx, &gen.ChangeServiceListChangesParams{After: ptr(cursor), PageSize: ptr(int32(10))})
	if check("ListChanges", lc, err, 200, lc.JSON200 != nil) {
		expect("ListChanges", lc.JSON200.NextCursor != "", "a next cursor")
	}
	lc, err = api.ChangeServiceListChangesWithResponse(ctx, &gen.ChangeServiceListChangesParams{After: ptr("nonsense")})
	checkError("ListChanges", lc, err, 400, lc.JSON400, "INVALID_CURSOR")
	// The stream is SSE or NDJSON, not JSON: its refusals are what a generated client can check.
	wc, err := api.ChangeServiceWatchChangesWithResponse(ctx, &gen.ChangeServiceWatchChangesParams{After: ptr("nonsense")})
	checkError("WatchChanges", wc, err, 400, wc.JSON400, "INVALID_CURSOR")
	wc, err = dead.ChangeServiceWatchChangesWithResponse(ctx, &gen.ChangeServiceWatchChangesParams{})
	checkError("WatchChanges", wc, err, 503, wc.JSON503, "UNAVAILABLE")

	// Webhooks (1.2.0): an endpoint of this program on loopback answers the creation's ping.
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go http.Serve(listener, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	hookURL := "http://" + listener.Addr().String() + "/hook"
	cw, err := api.WebhookServiceCreateWebhookWithResponse(ctx, gen.CreateWebhookRequest{Url: hookURL,
		ResourceType: &[]gen.ChangeResourceType{gen.ChangeResourceTypeISSUE}})
	hookID, hookSecret, hookCursor := uuid(), "", ""
	if check("CreateWebhook", cw, err, 201, cw.JSON201 != nil) {
		hookID = cw.JSON201.Id
		if cw.JSON201.Cursor != nil {
			hookCursor = *cw.JSON201.Cursor
		}
		if cw.JSON201.Secret != nil {
			hookSecret = *cw.JSON201.Secret
		}
		expect("CreateWebhook", cw.JSON201.Secret != nil && strings.HasPrefix(*cw.JSON201.Secret, "whsec_") && cw.JSON201.State == string(gen.ACTIVE), "active, with its secret")
	}
	cw, err = api.WebhookServiceCreateWebhookWithResponse(ctx, gen.CreateWebhookRequest{Url: "http://10.9.8.7/hook"})
	checkError("CreateWebhook", cw, err, 400, cw.JSON400, "WEBHOOK_URL_NOT_ALLOWED")
	gw, err := api.WebhookServiceGetWebhookWithResponse(ctx, hookID)
	if check("GetWebhook", gw, err, 200, gw.JSON200 != nil) {
		expect("GetWebhook", gw.JSON200.Url == hookURL && (gw.JSON200.Secret == nil || *gw.JSON200.Secret == ""), "its URL, no secret")
	}
	gw, err = api.WebhookServiceGetWebhookWithResponse(ctx, uuid())
	checkError("GetWebhook", gw, err, 404, gw.JSON404, "WEBHOOK_NOT_FOUND")
	lw, err := api.WebhookServiceListWebhooksWithResponse(ctx, &gen.WebhookServiceListWebhooksParams{PageSize: ptr(int32(500))})
	if check("ListWebhooks", lw, err, 200, lw.JSON200 != nil) {
		found := false
		for _, w := range lw.JSON200.Data {
			found = found || w.Id == hookID
		}
		expect("ListWebhooks", found, "the new webhook listed")
	}
	lw, err = api.WebhookServiceListWebhooksWithResponse(ctx, &gen.WebhookServiceListWebhooksParams{PageToken: ptr("nonsense")})
	checkError("ListWebhooks", lw, err, 400, lw.JSON400, "INVALID_PAGE_TOKEN")
	uw, err := api.WebhookServiceUpdateWebhookWithResponse(ctx, hookID, gen.WebhookUpdate{State: ptr(gen.PAUSED)})
	if check("UpdateWebhook", uw, err, 200, uw.JSON200 != nil) {
		expect("UpdateWebhook", uw.JSON200.State == string(gen.PAUSED), "paused")
	}
	uw, err = api.WebhookServiceUpdateWebhookWithResponse(ctx, hookID, gen.WebhookUpdate{Url: ptr("http://10.9.8.7/hook")})
	checkError("UpdateWebhook", uw, err, 400, uw.JSON400, "WEBHOOK_URL_NOT_ALLOWED")
	pw, err := api.WebhookServicePingWebhookWithResponse(ctx, hookID, gen.PingWebhookBody{})
	if check("PingWebhook", pw, err, 200, pw.JSON200 != nil) {
		expect("PingWebhook", pw.JSON200.Ok && pw.JSON200.HttpStatus == 204, "answered 204")
	}
	pw, err = api.WebhookServicePingWebhookWithResponse(ctx, uuid(), gen.PingWebhookBody{})
	checkError("PingWebhook", pw, err, 404, pw.JSON404, "WEBHOOK_NOT_FOUND")
	rs, err := api.WebhookServiceRotateWebhookSecretWithResponse(ctx, hookID, gen.RotateWebhookSecretBody{GraceSeconds: ptr(int32(60))})
	if check("RotateWebhookSecret", rs, err, 200, rs.JSON200 != nil) {
		expect("RotateWebhookSecret", rs.JSON200.Secret != nil && *rs.JSON200.Secret != hookSecret, "a new secret")
	}
	rs, err = api.WebhookServiceRotateWebhookSecretWithResponse(ctx, hookID, gen.RotateWebhookSecretBody{GraceSeconds: ptr(int32(-1))})
	checkError("RotateWebhookSecret", rs, err, 400, rs.JSON400, "INVALID_ARGUMENT")
	rp, err := api.WebhookServiceReplayWebhookWithResponse(ctx, hookID, gen.ReplayWebhookBody{After: hookCursor})
	if check("ReplayWebhook", rp, err, 200, rp.JSON200 != nil) {
		expect("ReplayWebhook", rp.JSON200.Cursor != nil && *rp.JSON200.Cursor == hookCursor, "the cursor replayed from")
	}
	rp, err = api.WebhookServiceReplayWebhookWithResponse(ctx, hookID, gen.ReplayWebhookBody{After: "nonsense"})
	checkError("ReplayWebhook", rp, err, 400, rp.JSON400, "INVALID_CURSOR")
	ld, err := api.WebhookServiceListWebhookDeliveriesWithResponse(ctx, hookID,
		&gen.WebhookServiceListWebhookDeliveriesParams{FailuresOnly: ptr(true)})
	if check("ListWebhookDeliveries", ld, err, 200, ld.JSON200 != nil) {
		expect("ListWebhookDeliveries", len(ld.JSON200.Data) == 0, "no failures")
	}
	ld, err = api.WebhookServiceListWebhookDeliveriesWithResponse(ctx, uuid(), &gen.WebhookServiceListWebhookDeliveriesParams{})
	checkError("ListWebhookDeliveries", ld, err, 404, ld.JSON404, "WEBHOOK_NOT_FOUND")
	// A logged delivery to resend: resume, write an issue, wait for its delivery.
	_, _ = api.WebhookServiceUpdateWebhookWithResponse(ctx, hookID, gen.WebhookUpdate{State: ptr(gen.ACTIVE)})
	_, _ = api.IssueServiceCreateIssueWithResponse(ctx, gen.CreateIssueRequest{PropertyId: "BER1", RoomNumber: "102",
		Title: "Webhook delivery", Category: gen.IssueCategoryOTHER, ReportedBy: "client"})
	deliveryID := "1"
	for i := 0; i < 100; i++ {
		log, err := api.WebhookServiceListWebhookDeliveriesWithResponse(ctx, hookID, &gen.WebhookServiceListWebhookDeliveriesParams{})
		if err == nil && log.JSON200 != nil && len(log.JSON200.Data) > 0 {
			deliveryID = log.JSON200.Data[0].Id
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	rd, err := api.WebhookServiceResendWebhookDeliveryWithResponse(ctx, hookID, deliveryID, gen.ResendWebhookDeliveryBody{})
	if check("ResendWebhookDelivery", rd, err, 200, rd.JSON200 != nil) {
		expect("ResendWebhookDelivery", rd.JSON200.Attempt == 0 && rd.JSON200.Succeeded, "a successful resend")
	}
	rd, err = api.WebhookServiceResendWebhookDeliveryWithResponse(ctx, hookID, "999999999", gen.ResendWebhookDeliveryBody{})
	checkError("ResendWebhookDelivery", rd, err, 404, rd.JSON404, "WEBHOOK_DELIVERY_NOT_FOUND")
	dw, err := api.WebhookServiceDeleteWebhookWithResponse(ctx, hookID)
	check("DeleteWebhook", dw, err, 200, dw.JSON200 != nil)
	dw, err = api.WebhookServiceDeleteWebhookWithResponse(ctx, hookID)
	checkError("DeleteWebhook", dw, err, 404, dw.JSON404, "WEBHOOK_NOT_FOUND")
	listener.Close()

	// Room blocks (1.3.0): a block made, read, listed, moved and cancelled; a batch; availability.
	blockOf := func(room, start, end string) gen.CreateRoomBlockRequest {
		return gen.CreateRoomBlockRequest{PropertyId: ptr("BER1"), RoomNumber: ptr(room), Type: ptr(gen.RoomBlockTypeOUTOFORDER),
			StartDate: ptr(start), EndDate: ptr(end), Reason: ptr("Renovation")}
	}
	cb, err := api.RoomBlockServiceCreateRoomBlockWithResponse(ctx, blockOf("110", "2032-01-10", "2032-01-15"))
	blockID, blockEtag := uuid(), ""
	if check("CreateRoomBlock", cb, err, 201, cb.JSON201 != nil && cb.JSON201.Id != nil) {
		blockID, blockEtag = *cb.JSON201.Id, cb.JSON201.Etag
	}
	cb, err = api.RoomBlockServiceCreateRoomBlockWithResponse(ctx, blockOf("110", "2032-01-12", "2032-01-20"))
	checkError("CreateRoomBlock", cb, err, 409, cb.JSON409, "ROOM_BLOCK_OVERLAP")
	gb, err := api.RoomBlockServiceGetRoomBlockWithResponse(ctx, blockID, &gen.RoomBlockServiceGetRoomBlockParams{})
	check("GetRoomBlock", gb, err, 200, gb.JSON200 != nil)
	gb, err = api.RoomBlockServiceGetRoomBlockWithResponse(ctx, uuid(), &gen.RoomBlockServiceGetRoomBlockParams{})
	checkError("GetRoomBlock", gb, err, 404, gb.JSON404, "ROOM_BLOCK_NOT_FOUND")
	lb, err := api.RoomBlockServiceListRoomBlocksWithResponse(ctx, &gen.RoomBlockServiceListRoomBlocksParams{PropertyId: ptr("BER1")})
	check("ListRoomBlocks", lb, err, 200, lb.JSON200 != nil)
	lb, err = api.RoomBlockServiceListRoomBlocksWithResponse(ctx, &gen.RoomBlockServiceListRoomBlocksParams{PropertyId: ptr("NOPE1")})
	checkError("ListRoomBlocks", lb, err, 404, lb.JSON404, "PROPERTY_NOT_FOUND")
	blockMatch := &gen.RoomBlockServiceUpdateRoomBlockParams{IfMatch: ptr(`"` + blockEtag + `"`)}
	ub, err := api.RoomBlockServiceUpdateRoomBlockWithResponse(ctx, blockID, blockMatch, gen.RoomBlockUpdate{EndDate: ptr("2032-01-16")})
	check("UpdateRoomBlock", ub, err, 200, ub.JSON200 != nil)
	ub, err = api.RoomBlockServiceUpdateRoomBlockWithResponse(ctx, blockID, blockMatch, gen.RoomBlockUpdate{EndDate: ptr("2032-01-17")})
	checkError("UpdateRoomBlock", ub, err, 409, ub.JSON409, "ETAG_MISMATCH")
	xb, err := api.RoomBlockServiceCancelRoomBlockWithResponse(ctx, blockID, &gen.RoomBlockServiceCancelRoomBlockParams{}, gen.CancelRoomBlockBody{})
	check("CancelRoomBlock", xb, err, 200, xb.JSON200 != nil)
	xb, err = api.RoomBlockServiceCancelRoomBlockWithResponse(ctx, uuid(), &gen.RoomBlockServiceCancelRoomBlockParams{}, gen.CancelRoomBlockBody{})
	checkError("CancelRoomBlock", xb, err, 404, xb.JSON404, "ROOM_BLOCK_NOT_FOUND")
	bb, err := api.RoomBlockServiceBatchCreateRoomBlocksWithResponse(ctx, gen.BatchCreateRoomBlocksRequest{
		Requests: &[]gen.CreateRoomBlockRequest{blockOf("109", "2032-02-01", "2032-02-03"), blockOf("108", "2032-02-01", "2032-02-03")}})
	check("BatchCreateRoomBlocks", bb, err, 200, bb.JSON200 != nil)
	bb, err = api.RoomBlockServiceBatchCreateRoomBlocksWithResponse(ctx, gen.BatchCreateRoomBlocksRequest{
		Requests: &[]gen.CreateRoomBlockRequest{blockOf("999", "2032-02-01", "2032-02-03")}})
	checkError("BatchCreateRoomBlocks", bb, err, 404, bb.JSON404, "ROOM_NOT_FOUND")
	dates := &gen.RoomBlockServiceGetPropertyAvailabilityParams{FromDate: "2032-01-30", ToDate: "2032-02-04"}
	av, err := api.RoomBlockServiceGetPropertyAvailabilityWithResponse(ctx, "BER1", dates)
	check("GetPropertyAvailability", av, err, 200, av.JSON200 != nil)
	av, err = api.RoomBlockServiceGetPropertyAvailabilityWithResponse(ctx, "NOPE1", dates)
	checkError("GetPropertyAvailability", av, err, 404, av.JSON404, "PROPERTY_NOT_FOUND")

	// Housekeeping (1.4.0): one room cleaned, an inspection refused, rooms set at once, the overview, a history.
	hkParams := &gen.HousekeepingServiceUpdateRoomHousekeepingParams{PropertyId: "BER1"}
	hu, err := api.HousekeepingServiceUpdateRoomHousekeepingWithResponse(ctx, "204", hkParams,
		gen.RoomHousekeepingUpdate{Condition: ptr(gen.RoomHousekeepingConditionCLEAN), UpdatedBy: ptr("Ana")})
	if check("UpdateRoomHousekeeping", hu, err, 200, hu.JSON200 != nil) {
		expect("UpdateRoomHousekeeping", hu.JSON200.Condition == "CLEAN", "the condition set")
	}
	hu, err = api.HousekeepingServiceUpdateRoomHousekeepingWithResponse(ctx, "205", hkParams,
		gen.RoomHousekeepingUpdate{Condition: ptr(gen.RoomHousekeepingConditionINSPECTED)})
	checkError("UpdateRoomHousekeeping", hu, err, 400, hu.JSON400, "ROOM_NOT_CLEAN")
	hs, err := api.HousekeepingServiceSetHousekeepingWithResponse(ctx, "BER1", gen.SetHousekeepingBody{
		RoomNumbers: &[]string{"204", "206"}, Occupancy: ptr(gen.RoomHousekeepingOccupancyVACANT), OccupancySource: ptr("pms")})
	if check("SetHousekeeping", hs, err, 200, hs.JSON200 != nil) {
		expect("SetHousekeeping", len(hs.JSON200.Rooms) == 2, "both rooms")
	}
	hs, err = api.HousekeepingServiceSetHousekeepingWithResponse(ctx, "BER1", gen.SetHousekeepingBody{
		RoomNumbers: &[]string{"204", "999"}, Condition: ptr(gen.RoomHousekeepingConditionDIRTY)})
	checkError("SetHousekeeping", hs, err, 404, hs.JSON404, "ROOM_NOT_FOUND")
	ho, err := api.HousekeepingServiceGetHousekeepingOverviewWithResponse(ctx, "BER1")
	check("GetHousekeepingOverview", ho, err, 200, ho.JSON200 != nil && ho.JSON200.Total != nil)
	ho, err = api.HousekeepingServiceGetHousekeepingOverviewWithResponse(ctx, "NOPE1")
	checkError("GetHousekeepingOverview", ho, err, 404, ho.JSON404, "PROPERTY_NOT_FOUND")
	hh, err := api.HousekeepingServiceListHousekeepingHistoryWithResponse(ctx, "204",
		&gen.HousekeepingServiceListHousekeepingHistoryParams{PropertyId: "BER1"})
	if check("ListHousekeepingHistory", hh, err, 200, hh.JSON200 != nil) {
		expect("ListHousekeepingHistory", len(hh.JSON200.Data) >= 2, "both writes")
	}
	hh, err = api.HousekeepingServiceListHousekeepingHistoryWithResponse(ctx, "999",
		&gen.HousekeepingServiceListHousekeepingHistoryParams{PropertyId: "BER1"})
	checkError("ListHousekeepingHistory", hh, err, 404, hh.JSON404, "ROOM_NOT_FOUND")
	// The housekeeping policy (1.5.0): read, changed, and a value out of range refused.
	hpParams := &gen.HousekeepingServiceGetHousekeepingPolicyParams{}
	hp, err := api.HousekeepingServiceGetHousekeepingPolicyWithResponse(ctx, "BER1", hpParams)
	check("GetHousekeepingPolicy", hp, err, 200, hp.JSON200 != nil)
	hp, err = api.HousekeepingServiceGetHousekeepingPolicyWithResponse(ctx, "NOPE1", hpParams)
	checkError("GetHousekeepingPolicy", hp, err, 404, hp.JSON404, "PROPERTY_NOT_FOUND")
	policyParams := &gen.HousekeepingServiceUpdateHousekeepingPolicyParams{}
	hpu, err := api.HousekeepingServiceUpdateHousekeepingPolicyWithResponse(ctx, "BER1", policyParams,
		gen.HousekeepingPolicyUpdate{VacantDirtyAfterDays: ptr(int32(3))})
	check("UpdateHousekeepingPolicy", hpu, err, 200, hpu.JSON200 != nil)
	hpu, err = api.HousekeepingServiceUpdateHousekeepingPolicyWithResponse(ctx, "BER1", policyParams,
		gen.HousekeepingPolicyUpdate{VacantDirtyAfterDays: ptr(int32(8))})
	checkError("UpdateHousekeepingPolicy", hpu, err, 400, hpu.JSON400, "INVALID_ARGUMENT")

	passed, failures := 0, []string{}
	for _, op := range order {
		if len(results[op]) == 0 {
			passed++
		}
		for _, f := range results[op] {
			failures = append(failures, op+": "+f)
		}
	}
	out, _ := json.Marshal(map[string]any{"generator": "oapi-codegen", "operations": len(order), "passed": passed,
		"calls": calls, "failures": failures})
	fmt.Println(string(out))
}
