package uploads

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// Upload fields: any multipart text part is either taken (known field, at most 4 KiB) or refused
// naming it, never a panic or a field taken silently.
func FuzzUploadFields(f *testing.F) {
	f.Add("alt_text", "Double room")
	f.Add("sort_order", "12")
	f.Add("sort_order", "-99999999999")
	f.Add("file", "x")
	f.Add("other", strings.Repeat("a", 5000))
	f.Fuzz(func(t *testing.T, name, value string) {
		var body bytes.Buffer
		form := multipart.NewWriter(&body)
		if err := form.WriteField(name, value); err != nil {
			return
		}
		_ = form.Close()
		fields := map[string]string{}
		file, st, code := readFields(multipart.NewReader(&body, form.Boundary()), fields)
		if st != nil {
			if code != http.StatusBadRequest && code != http.StatusRequestEntityTooLarge && code != http.StatusRequestTimeout {
				t.Errorf("%q: refused with %d", name, code)
			}
			return
		}
		if file != nil {
			if file.FormName() != "file" || len(fields) > 0 {
				t.Errorf("%q taken as the file", name)
			}
			return
		}
		if len(fields) != 1 || fields[name] != value || len(value) > maxUploadFieldLen {
			t.Errorf("%q=%q taken as %v", name, value, fields)
		}
		_, _ = fieldsMetadata(fields)
	})
}
