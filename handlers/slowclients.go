package handlers

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
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

// answerFile is an answer written to a temporary file before any of it is
// sent, for an answer computed in the checks service's turn (a send list):
// the turn is given back before the client reads, so a slow client holds
// up nobody else, and memory does not grow with the answer. An error
// found while writing it is still answered with a status, since nothing
// was sent yet.
type answerFile struct {
	file *os.File
	*bufio.Writer
}

// newAnswerFile creates an empty answer file; Close removes it.
func newAnswerFile() (*answerFile, error) {
	f, err := os.CreateTemp("", "fieldboard-answer-*")
	if err != nil {
		return nil, fmt.Errorf("create a file for the answer: %w", err)
	}
	os.Remove(f.Name()) // gone once closed; the open file stays readable
	return &answerFile{file: f, Writer: bufio.NewWriterSize(f, 64<<10)}, nil
}

// Close closes and removes the file.
func (a *answerFile) Close() error { return a.file.Close() }

// send answers with what was written, its length declared, each write to
// the client given slowClientTimeout.
func (a *answerFile) send(c echo.Context, contentType string) error {
	if err := a.Flush(); err != nil {
		return fmt.Errorf("write the answer's file: %w", err)
	}
	size, err := a.file.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("read the answer's file back: %w", err)
	}
	if _, err := a.file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read the answer's file back: %w", err)
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, contentType)
	res.Header().Set(echo.HeaderContentLength, strconv.FormatInt(size, 10))
	res.WriteHeader(http.StatusOK)
	_, err = io.CopyBuffer(toClient(c), a.file, make([]byte, 32<<10))
	return err
}
