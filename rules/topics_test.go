package rules

import (
	"reflect"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

func TestWithTopics(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	topics := domain.TopicsOf(map[int64]domain.Topics{
		7: {ResearchTypeID: 4, CategoryIDs: []int64{55, 56}},
		8: {ResearchTypeID: 0, CategoryIDs: nil},
		// the provider groups 10 in event 1 (event/all) and 2 (live-details)
		10: {ResearchTypeID: 5, CategoryIDs: []int64{60}, EventIDs: []int64{1, 2}},
	})
	rec := func(sub, cat, rt int64) domain.HistoryRecord {
		return domain.HistoryRecord{PanelistID: "P1", SubsampleID: sub, StatusID: 3, RegisteredAt: at, EventID: 1, CategoryID: cat, ResearchTypeID: rt}
	}
	tests := []struct {
		name string
		in   []domain.HistoryRecord
		want []domain.HistoryRecord
	}{
		{"a record with research type 0 takes its subsample's, and category 0 its first category; it stands for the other category too",
			[]domain.HistoryRecord{rec(7, 0, 0)}, []domain.HistoryRecord{rec(7, 55, 4), rec(7, 56, 4)}},
		{"a category rule compares every category of the record's subsample, not only the one on the record",
			[]domain.HistoryRecord{rec(7, 56, 9)}, []domain.HistoryRecord{rec(7, 56, 9), rec(7, 55, 9)}},
		{"records of subsamples never seen stay as they are",
			[]domain.HistoryRecord{rec(9, 0, 0), rec(8, 0, 0)}, []domain.HistoryRecord{rec(9, 0, 0), rec(8, 0, 0)}},
		{"spec rule 5, \"subsamples must be grouped by eventId\": a record stands once more for every other event the provider groups its subsample in",
			[]domain.HistoryRecord{rec(10, 60, 5)}, []domain.HistoryRecord{rec(10, 60, 5), func() domain.HistoryRecord { r := rec(10, 60, 5); r.EventID = 2; return r }()}},
		{"records before and after a completed one keep their order",
			[]domain.HistoryRecord{rec(9, 1, 1), rec(7, 55, 4), rec(7, 0, 2), rec(8, 3, 3)},
			[]domain.HistoryRecord{rec(9, 1, 1), rec(7, 55, 4), rec(7, 56, 4), rec(7, 55, 2), rec(7, 56, 2), rec(8, 3, 3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WithTopics(tt.in, topics); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			// WithTopicsIn: the same records, in a buffer with room or
			// without (then a new array), never in the history's.
			for _, room := range []int{0, 1, 16} {
				buf := make([]domain.HistoryRecord, 1, room+1)[1:] // its length is ignored
				got := WithTopicsIn(buf, tt.in, topics)
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("WithTopicsIn, room for %d: got  %+v\nwant %+v", room, got, tt.want)
				}
				if room == 16 && len(tt.want) > len(tt.in) && &got[0] != &buf[:1][0] {
					t.Error("WithTopicsIn, room for 16: the records are not in the buffer")
				}
			}
		})
	}
	same := []domain.HistoryRecord{rec(9, 0, 0)}
	if got := WithTopics(same, topics); &got[0] != &same[0] {
		t.Error("nothing to complete: WithTopics must return the history itself")
	}
}
