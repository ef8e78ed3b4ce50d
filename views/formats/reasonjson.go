package formats

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// appendReason writes r as json.Marshal does, without reflection: a
// panelist's surveys write one for nearly every live subsample. What it
// cannot write the same way by hand (a string needing escapes, a time
// json.Marshal would refuse or write otherwise) it has json.Marshal write;
// an error is json.Marshal's. TestAppendReasonIsMarshal holds it to that.
func appendReason(w *bytes.Buffer, r ReasonJSON) error {
	w.WriteString(`{"kind":`)
	if err := appendString(w, r.Kind); err != nil {
		return err
	}
	if r.Rule != "" {
		w.WriteString(`,"rule":`)
		if err := appendString(w, r.Rule); err != nil {
			return err
		}
	}
	w.WriteString(`,"reason":`)
	if err := appendString(w, r.Reason); err != nil {
		return err
	}
	if rec := r.Record; rec != nil {
		w.WriteString(`,"record":`)
		at := rec.RegisteredAt
		if at.Location() != time.UTC || at.Year() < 0 || at.Year() > 9999 {
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			w.Write(b)
		} else {
			w.WriteString(`{"panelistId":`)
			if err := appendString(w, rec.PanelistID); err != nil {
				return err
			}
			var num [64]byte
			w.WriteString(`,"subsampleId":`)
			w.Write(strconv.AppendInt(num[:0], rec.SubsampleID, 10))
			w.WriteString(`,"statusId":`)
			w.Write(strconv.AppendInt(num[:0], rec.StatusID, 10))
			w.WriteString(`,"registeredAt":"`)
			w.Write(at.AppendFormat(num[:0], time.RFC3339Nano))
			w.WriteString(`","eventId":`)
			w.Write(strconv.AppendInt(num[:0], rec.EventID, 10))
			w.WriteString(`,"categoryId":`)
			w.Write(strconv.AppendInt(num[:0], rec.CategoryID, 10))
			w.WriteString(`,"researchTypeId":`)
			w.Write(strconv.AppendInt(num[:0], rec.ResearchTypeID, 10))
			w.WriteByte('}')
		}
	}
	w.WriteByte('}')
	return nil
}

// appendString writes s as a JSON string as json.Marshal does: by
// appendJSONString (the next-survey answer's), and by json.Marshal where
// that cannot (a control or non-ASCII byte).
func appendString(w *bytes.Buffer, s string) error {
	if b, ok := appendJSONString(w.AvailableBuffer(), s); ok {
		w.Write(b)
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	w.Write(b)
	return nil
}
