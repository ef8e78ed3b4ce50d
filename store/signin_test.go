package store_test

import (
	"context"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestSignInFailures: ReserveSignIn gives decide each key's failures in
// the window, counts what it says, and forgets failures out of the
// window; a user name that reads like an address counts apart from the
// address; undo and forget take failures back.
func TestSignInFailures(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		target := d.Target(t)
		st := openAt(t, target)
		t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		user := store.SignInKey{Kind: store.SignInByUser, Key: "192.0.2.7"}
		address := store.SignInKey{Kind: store.SignInByAddress, Key: "192.0.2.7"}
		reserve := func(at time.Time, count ...bool) (recent [][]time.Time, ids []int64) {
			t.Helper()
			ids, err := st.ReserveSignIn(ctx, []store.SignInKey{address, user}, at.Add(-time.Minute), at, func(r [][]time.Time) []bool {
				recent = r
				return count
			})
			if err != nil {
				t.Fatal(err)
			}
			return recent, ids
		}
		_, ids := reserve(t0, true, true)
		if ids[0] == 0 || ids[1] == 0 || ids[0] == ids[1] {
			t.Fatalf("two failures counted as %v", ids)
		}
		reserve(t0.Add(10*time.Second), false, true)
		if err := st.AddSignInFailure(ctx, user, t0.Add(-time.Minute), t0.Add(20*time.Second)); err != nil {
			t.Fatal(err)
		}
		recent, ids := reserve(t0.Add(30*time.Second), true, false)
		if len(recent[0]) != 1 || len(recent[1]) != 3 || !recent[1][0].Equal(t0) || !recent[1][2].Equal(t0.Add(20*time.Second)) {
			t.Errorf("failures in the window: %v; want the address's one and the user's three, oldest first", recent)
		}
		if ids[1] != 0 {
			t.Errorf("a key decide did not count was counted as %d", ids[1])
		}
		if err := st.UndoSignInFailure(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
		if recent, _ = reserve(t0.Add(40*time.Second), false, false); len(recent[0]) != 1 {
			t.Errorf("after an undo the address has %d failures, want 1", len(recent[0]))
		}
		if err := st.ForgetSignInFailures(ctx, user); err != nil {
			t.Fatal(err)
		}
		if recent, _ = reserve(t0.Add(50*time.Second), false, false); len(recent[1]) != 0 || len(recent[0]) != 1 {
			t.Errorf("after forgetting the user's failures: %v; want the address's only", recent)
		}
		// A window later the old failures are gone, from the table too.
		reserve(t0.Add(5*time.Minute), true, false)
		var kept int
		if err := storetest.Raw(t, target).QueryRowContext(ctx, `SELECT count(*) FROM signin_failures`).Scan(&kept); err != nil {
			t.Fatal(err)
		}
		if kept != 1 {
			t.Errorf("after a window, %d failures are kept, want only the new one", kept)
		}
	})
}
