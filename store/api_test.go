package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// The parts of the store's API the web's tests exercise on SQLite, here on
// each dialect: sessions and tokens, the question library and reference
// data, the live details and snapshot reads.

// TestSessionsAndTokens: a session is found until it expires or ends, a
// new password ends the user's sessions, and a token is found by its hash
// until revoked.
func TestSessionsAndTokens(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if err := s.AddUser(ctx, "maria", store.RoleAdmin, "hash-1", t0); err != nil {
			t.Fatal(err)
		}
		sess := store.Session{SecretHash: []byte("session-hash"), UserName: "maria", CSRFToken: "csrf", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		got, err := s.SessionOf(ctx, sess.SecretHash, t0.Add(time.Minute))
		if err != nil || got.UserName != "maria" || got.CSRFToken != "csrf" || !got.ExpiresAt.Equal(sess.ExpiresAt) || string(got.SecretHash) != "session-hash" {
			t.Errorf("SessionOf = %+v, %v; want maria's session", got, err)
		}
		if _, err := s.SessionOf(ctx, sess.SecretHash, t0.Add(2*time.Hour)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SessionOf after it expired: %v, want ErrNotFound", err)
		}
		if err := s.SetPassword(ctx, "maria", "hash-2", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionOf(ctx, sess.SecretHash, t0.Add(2*time.Minute)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SessionOf after a new password: %v, want ErrNotFound", err)
		}
		if hash, err := s.PasswordHash(ctx, "maria"); err != nil || hash != "hash-2" {
			t.Errorf("PasswordHash = %q, %v; want hash-2", hash, err)
		}
		if err := s.SetPassword(ctx, "nobody", "hash", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SetPassword of nobody: %v, want ErrNotFound", err)
		}
		sess.SecretHash = []byte("second-session")
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSession(ctx, sess.SecretHash); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionOf(ctx, sess.SecretHash, t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SessionOf after signing out: %v, want ErrNotFound", err)
		}
		users, err := s.Users(ctx)
		if err != nil || len(users) != 1 || users[0].Name != "maria" || !users[0].PasswordChangedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("Users = %+v, %v", users, err)
		}

		if err := s.CreateToken(ctx, store.Token{Name: "nightly", Role: store.RoleAdmin, CreatedAt: t0}, []byte("token-hash")); err != nil {
			t.Fatal(err)
		}
		if tok, err := s.TokenOf(ctx, []byte("token-hash")); err != nil || tok.Name != "nightly" || !tok.CreatedAt.Equal(t0) {
			t.Errorf("TokenOf = %+v, %v", tok, err)
		}
		if toks, err := s.Tokens(ctx); err != nil || len(toks) != 1 || toks[0].Name != "nightly" {
			t.Errorf("Tokens = %+v, %v", toks, err)
		}
		if err := s.RevokeToken(ctx, "nightly", time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TokenOf(ctx, []byte("token-hash")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("TokenOf a revoked token: %v, want ErrNotFound", err)
		}
		if err := s.RevokeToken(ctx, "nightly", time.Now()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("revoking it again: %v, want ErrNotFound", err)
		}
	})
}

// TestLibraryAndReferenceReadBack: a refresh of the library replaces the
// locales it read and keeps those that failed; reference data and the
// refresh log read back as written.
func TestLibraryAndReferenceReadBack(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		gender := domain.Question{ID: 43, Type: "Single Punch", Name: "GENDER", Text: "Gender?", Translation: "Genre ?"}
		answers := []domain.Answer{{ID: 1, Name: "Male", Text: "Male"}, {ID: 2, Name: "Female", Text: "Female"}, {ID: 3, Name: "None", IsExclusive: true}}
		run := store.Run{Dataset: store.DatasetLibrary, StartedAt: t0, FinishedAt: t0.Add(time.Second)}
		err := s.SaveLibrary(ctx, run, []store.LocaleLibrary{
			{Locale: "fr-fr", FetchedAt: t0, Questions: []domain.Question{gender}, Answers: map[int64][]domain.Answer{43: answers}},
			{Locale: "de-de", FetchedAt: t0, Err: errors.New("timeout")},
		})
		if err != nil {
			t.Fatal(err)
		}
		if qs, err := s.Questions(ctx, "fr-fr"); err != nil || len(qs) != 1 || qs[0] != gender {
			t.Errorf("Questions(fr-fr) = %+v, %v", qs, err)
		}
		if as, err := s.Answers(ctx, "fr-fr", 43); err != nil || !reflect.DeepEqual(as, answers) {
			t.Errorf("Answers(fr-fr, 43) = %+v, %v; want %+v", as, err, answers)
		}
		questions, byQuestion, err := s.Library(ctx, "fr-fr", []int64{43, 44})
		if err != nil || len(questions) != 1 || questions[43] != gender || len(byQuestion[43]) != 3 || !byQuestion[43][3].IsExclusive {
			t.Errorf("Library(fr-fr, 43 44) = %+v, %+v, %v", questions, byQuestion, err)
		}
		locales, err := s.LibraryLocales(ctx)
		if err != nil || !locales["fr-fr"].Equal(t0) || !locales["de-de"].IsZero() || len(locales) != 2 {
			t.Errorf("LibraryLocales = %v, %v; want fr-fr read at %v, de-de never", locales, err, t0)
		}
		known, err := s.KnownQuestions(ctx)
		if err != nil || known == nil || !known(43) || known(44) {
			t.Errorf("KnownQuestions: 43 %v, 44 %v, %v", known != nil && known(43), known != nil && known(44), err)
		}
		// A second refresh replaces what it read.
		run.StartedAt, run.FinishedAt = t0.Add(time.Hour), t0.Add(time.Hour+time.Second)
		if err := s.SaveLibrary(ctx, run, []store.LocaleLibrary{{Locale: "fr-fr", FetchedAt: t0.Add(time.Hour), Questions: []domain.Question{gender},
			Answers: map[int64][]domain.Answer{43: answers[:2]}}}); err != nil {
			t.Fatal(err)
		}
		if as, err := s.Answers(ctx, "fr-fr", 43); err != nil || len(as) != 2 {
			t.Errorf("answers after a second refresh: %+v, %v; want the 2 it read", as, err)
		}

		ref := store.Reference{
			Run:       store.Run{Dataset: store.DatasetReference, StartedAt: t0, FinishedAt: t0.Add(time.Second)},
			Countries: []domain.Country{{ID: 2, Code: "FR", Name: "France", RegionName: "Europe"}, {ID: 1, Code: "DE", Name: "Germany", RegionName: "Europe"}},
			Locales:   []domain.Locale{{ID: 7, CountryID: 2, Name: "French", Locale: "fr-fr", ShortLocale: "fr", CountryDefault: true, CountryName: "France", CountryCode: "FR", RegionName: "Europe"}},
			Statuses:  []domain.SurveyStatus{{ID: 2, StatusName: "Live"}, {ID: 1, StatusName: "Pending"}},
		}
		if err := s.SaveReference(ctx, ref); err != nil {
			t.Fatal(err)
		}
		if cs, err := s.Countries(ctx); err != nil || len(cs) != 2 || cs[0] != ref.Countries[0] {
			t.Errorf("Countries = %+v, %v; want France first (by name)", cs, err)
		}
		if ls, err := s.Locales(ctx); err != nil || len(ls) != 1 || ls[0] != ref.Locales[0] {
			t.Errorf("Locales = %+v, %v", ls, err)
		}
		if ss, err := s.SurveyStatuses(ctx); err != nil || len(ss) != 2 || ss[0] != ref.Statuses[1] {
			t.Errorf("SurveyStatuses = %+v, %v; want Pending first (by id)", ss, err)
		}
		runs, err := s.RecentRuns(ctx, 2)
		if err != nil || len(runs) != 2 || runs[0].Dataset != store.DatasetReference || !runs[0].OK || runs[1].Dataset != store.DatasetLibrary {
			t.Errorf("RecentRuns(2) = %+v, %v; want the reference run, then the second library run", runs, err)
		}
	})
}

// TestLibraryOfManyRowsWithRepeats: a library of more rows than one
// statement writes, in which a question is listed twice and an answer
// twice within its question, is written on each dialect, each row once
// as its last listing says (the batched writer would otherwise write a
// row twice in one statement, which PostgreSQL refuses), and the same
// locale read twice in one refresh keeps the second reading.
func TestLibraryOfManyRowsWithRepeats(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		var questions []domain.Question
		answers := map[int64][]domain.Answer{}
		for id := int64(1); id <= 150; id++ {
			questions = append(questions, domain.Question{ID: id, Type: "Single Punch", Name: fmt.Sprint("Q", id), Text: "first"})
			answers[id] = []domain.Answer{{ID: 1, Name: "yes"}, {ID: 2, Name: "no"}, {ID: 3, Name: "maybe"}}
		}
		// Question 7 listed again last, answer 2 of question 9 listed again
		// after answer 3.
		questions = append(questions, domain.Question{ID: 7, Type: "Multi Punch", Name: "Q7", Text: "second"})
		answers[9] = append(answers[9], domain.Answer{ID: 2, Name: "no, really"})
		run := store.Run{Dataset: store.DatasetLibrary, StartedAt: t0, FinishedAt: t0.Add(time.Second)}
		err := s.SaveLibrary(ctx, run, []store.LocaleLibrary{
			{Locale: "en-us", FetchedAt: t0, Questions: []domain.Question{{ID: 999, Name: "GONE"}}, Answers: map[int64][]domain.Answer{999: {{ID: 1}}}},
			{Locale: "en-us", FetchedAt: t0, Questions: questions[:100], Answers: answers},
			{Locale: "fr-fr", FetchedAt: t0, Questions: questions, Answers: answers},
		})
		if err != nil {
			t.Fatal(err)
		}
		qs, err := s.Questions(ctx, "fr-fr")
		if err != nil || len(qs) != 150 {
			t.Fatalf("Questions(fr-fr): %d, %v; want 150", len(qs), err)
		}
		if last := qs[len(qs)-1]; last.ID != 7 || last.Type != "Multi Punch" || last.Text != "second" {
			t.Errorf("the last question of fr-fr is %+v; want question 7 as its second listing says, in its place", last)
		}
		if as, err := s.Answers(ctx, "fr-fr", 9); err != nil || len(as) != 3 || as[2].ID != 2 || as[2].Name != "no, really" {
			t.Errorf("Answers(fr-fr, 9) = %+v, %v; want 1, 3, then 2 as its second listing says", as, err)
		}
		for id := int64(1); id <= 150; id++ {
			if as, err := s.Answers(ctx, "fr-fr", id); err != nil || len(as) != 3 {
				t.Fatalf("Answers(fr-fr, %d): %d, %v; want 3", id, len(as), err)
			}
		}
		if qs, err := s.Questions(ctx, "en-us"); err != nil || len(qs) != 100 || qs[0].ID != 1 {
			t.Errorf("Questions(en-us): %d, %v; want the 100 of its second reading", len(qs), err)
		}
	})
}

// TestLiveDetailsAndSnapshotReadBack: a live subsample reads back as
// live-details sent it, and the snapshot as the checks read it.
func TestLiveDetailsAndSnapshotReadBack(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		snap := snapshotAt(t0, 40)
		want := snap.Live[0]
		want.JobBookID, want.GroupID, want.ChildSurvey, want.Automation = ptr("JB-7"), ptr[int64](3), ptr(false), ptr(true)
		want.ExpectedIncidenceRate, want.FieldEndDate = ptr(0.25), domain.LocalTime{Time: t0.Add(72 * time.Hour)}
		want.AllowMobile, want.CollectPII = true, true
		snap.Live[0] = want
		if _, err := s.SaveEvents(ctx, snap, time.Hour); err != nil {
			t.Fatal(err)
		}
		got, err := s.LiveSubsample(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("LiveSubsample(100) =\n%+v\nwant\n%+v", got, want)
		}
		if _, err := s.LiveSubsample(ctx, 101); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("LiveSubsample of one not live: %v, want ErrNotFound", err)
		}
		summary, err := s.SubsampleSummary(ctx, 101)
		if err != nil || summary != snap.Summaries[1] {
			t.Errorf("SubsampleSummary(101) = %+v, %v; want %+v", summary, err, snap.Summaries[1])
		}
		if locales, err := s.SubsampleLocales(ctx); err != nil || !reflect.DeepEqual(locales, []string{"en-us"}) {
			t.Errorf("SubsampleLocales = %v, %v", locales, err)
		}
		if counts, err := s.StatusCounts(ctx); err != nil || counts[domain.StatusLive] != 1 || counts[domain.StatusComplete] != 1 {
			t.Errorf("StatusCounts = %v, %v; want one live, one complete", counts, err)
		}
		all, err := s.ReadSnapshot(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		one, err := s.ReadSnapshot(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(all.Rows) != 2 || len(one.Rows) != 1 || one.Rows[0].SubsampleID != 100 || !one.Rows[0].Live || one.Rows[0].Status != domain.StatusLive ||
			one.Rows[0].QuotasOK == nil || !*one.Rows[0].QuotasOK || all.Version != one.Version || all.Version == 0 {
			t.Errorf("ReadSnapshot: all %+v, one %+v", all.Rows, one.Rows)
		}
		if len(one.Quotas[100]) != 2 || len(one.Rules[100].Surveys) != 1 || len(one.Links[100]) != 1 || one.Links[100][0].Name != "en-us" ||
			!reflect.DeepEqual(one.Countries[100], []string{"US"}) {
			t.Errorf("ReadSnapshot(100): quotas %+v, rules %+v, links %+v, countries %v", one.Quotas[100], one.Rules[100], one.Links[100], one.Countries[100])
		}
	})
}
