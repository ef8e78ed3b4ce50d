package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"fieldboard/store/storetest"
)

// TestRolesOnTheCommandLine: user add makes the first user an admin and
// later ones viewers unless --role says; user role changes a role but not
// the last admin's; token create gives the role asked, coordinator by
// default; the lists show the roles; an unknown role is a usage error.
func TestRolesOnTheCommandLine(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		db := d.Target(t)
		var out, errOut bytes.Buffer
		user := func(args ...string) error {
			out.Reset()
			return runUser(ctx, append([]string{args[0], "--db", db}, args[1:]...), strings.NewReader(""), &out, &errOut)
		}
		token := func(args ...string) error {
			out.Reset()
			return runToken(ctx, append([]string{args[0], "--db", db}, args[1:]...), &out, &errOut)
		}
		for _, step := range []struct {
			args []string
			want string
		}{
			{[]string{"add", "ada"}, "ada: added as admin"},
			{[]string{"add", "vic"}, "vic: added as viewer"},
			{[]string{"add", "--role", "coordinator", "cora"}, "cora: added as coordinator"},
			{[]string{"role", "--role", "admin", "vic"}, "vic: role admin"},
			{[]string{"role", "--role", "viewer", "vic"}, "vic: role viewer"},
		} {
			if err := user(step.args...); err != nil || !strings.Contains(out.String(), step.want) {
				t.Errorf("user %q: %v %q, want %q", step.args, err, out.String(), step.want)
			}
		}
		if err := user("role", "--role", "viewer", "ada"); err == nil || !strings.Contains(err.Error(), "no admin") {
			t.Errorf("the last admin made a viewer: %v, want refused", err)
		}
		for _, args := range [][]string{{"add", "--role", "owner", "olga"}, {"role", "--role", "owner", "vic"}, {"role", "vic"}} {
			if err := user(args...); err == nil || !strings.Contains(err.Error(), "--role") {
				t.Errorf("user %q: %v, want a usage error naming --role", args, err)
			}
		}
		if err := user("list"); err != nil || !strings.Contains(out.String(), "ada\tadmin\t") || !strings.Contains(out.String(), "cora\tcoordinator\t") || !strings.Contains(out.String(), "vic\tviewer\t") {
			t.Errorf("user list: %v %q, want each role", err, out.String())
		}

		if err := token("create", "--name", "nightly"); err != nil || !strings.Contains(out.String(), "coordinator role") {
			t.Errorf("token create: %v %q, want the coordinator role", err, out.String())
		}
		if err := token("create", "--name", "reader", "--role", "viewer"); err != nil || !strings.Contains(out.String(), "viewer role") {
			t.Errorf("token create --role viewer: %v %q", err, out.String())
		}
		if err := token("create", "--name", "odd", "--role", "owner"); err == nil || !strings.Contains(err.Error(), "--role") {
			t.Errorf("token create --role owner: %v, want a usage error", err)
		}
		if err := token("revoke", "--name", "reader"); err != nil {
			t.Fatal(err)
		}
		if err := token("list"); err != nil || !strings.Contains(out.String(), "nightly\tcoordinator\tcreated ") || !strings.Contains(out.String(), "by the command line") ||
			!strings.Contains(out.String(), "reader\tviewer\t") || !strings.Contains(out.String(), "\trevoked ") {
			t.Errorf("token list: %v %q, want roles, makers and the revoked one", err, out.String())
		}
	})
}
