package web

import (
	"fieldboard/views"
	"fieldboard/web/refresh"
)

// handlersRefresher gives the handlers the refresher as they declare it
// (handlers.Refresher), so that handlers import nothing from web.
type handlersRefresher struct{ *refresh.Refresher }

func (r handlersRefresher) Start(subsampleID int64, force bool) views.RefreshProgress {
	return progressView(r.Refresher.Start(refresh.Request{SubsampleID: subsampleID, Force: force}))
}

func (r handlersRefresher) Progress() views.RefreshProgress {
	return progressView(r.Refresher.Progress())
}

// progressView is the refresher's progress as the pages show it: the
// same fields, which the conversion checks.
func progressView(p refresh.Progress) views.RefreshProgress { return views.RefreshProgress(p) }
