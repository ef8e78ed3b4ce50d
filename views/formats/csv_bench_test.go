package formats

import (
	"io"
	"strconv"
	"testing"
)

// BenchmarkCSVWriterBulkLines writes 100,000 lines of a bulk check's answer,
// ids that need neutralising among them; one op is the whole answer.
func BenchmarkCSVWriterBulkLines(b *testing.B) {
	ids := make([]string, 100000)
	for i := range ids {
		ids[i] = "P" + strconv.Itoa(i)
		if i%1000 == 0 {
			ids[i] = "=" + ids[i]
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard)
		for i, id := range ids {
			reasons := ""
			if i%3 == 0 {
				reasons = "Complete on subsample 200017 of the same event 30005 on 2026-11-20 (respondents must be unique within an event)."
			}
			if err := w.WriteKeyed(id, strconv.FormatBool(reasons == ""), reasons); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}
