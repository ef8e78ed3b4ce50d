package handlers

import (
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// slowClientTimeout is how long one write of a long answer (a send list,
// a bulk check) may wait for its client to read: a client that stops
// reading is dropped after it rather than kept forever.
const slowClientTimeout = 30 * time.Second

// deadlineWriter writes to a response, giving each write slowClientTimeout.
type deadlineWriter struct {
	res *echo.Response
	rc  *http.ResponseController
}

// toClient returns the response of c as a writer whose writes each wait
// at most slowClientTimeout for the client.
func toClient(c echo.Context) io.Writer {
	return deadlineWriter{res: c.Response(), rc: http.NewResponseController(c.Response())}
}

func (w deadlineWriter) Write(p []byte) (int, error) {
	// A writer without deadlines (a test's recorder) writes without one.
	_ = w.rc.SetWriteDeadline(time.Now().Add(slowClientTimeout))
	return w.res.Write(p)
}
