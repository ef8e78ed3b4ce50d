package demo

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"fieldboard/store"
	"fieldboard/web/auth"
)

// Viewer is the demo's colleague who may only look (Colleagues).
const Viewer = "tom"

// Colleagues adds, beside the demo's admin, the coordinator who sets our
// rules (Coordinator) and a viewer, so that /users shows the three roles.
// Their passwords are drawn and shown to nobody: the admin sets one with
// fieldboard user passwd NAME when someone is to sign in as them.
func Colleagues(ctx context.Context, st *store.Store, now time.Time, logger *slog.Logger) error {
	for _, u := range []struct {
		name string
		role store.Role
	}{{Coordinator, store.RoleCoordinator}, {Viewer, store.RoleViewer}} {
		hash, err := auth.HashPassword(auth.GeneratePassword())
		if err != nil {
			return fmt.Errorf("demo user %s: %w", u.name, err)
		}
		if err := st.AddUser(ctx, u.name, u.role, hash, now); err != nil {
			return fmt.Errorf("demo user %s: %w", u.name, err)
		}
	}
	logger.Info("demo: added the users " + Coordinator + " (coordinator) and " + Viewer + " (viewer), their passwords shown to nobody; see /users, and set one with fieldboard user passwd NAME")
	return nil
}
