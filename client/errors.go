package client

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Error is the error of every call that did not succeed.
type Error struct {
	// Endpoint is the method and API path, e.g.
	// "GET /supplier/v1/subsamples/123/quotas".
	Endpoint string
	// StatusCode is the HTTP status of the response Err is about; 0 when
	// there was none (network error, timeout, cancellation).
	StatusCode int
	// Attempts is how many requests were sent.
	Attempts int
	// Err is the cause: a status error, a network or decode error,
	// ErrAttemptTimeout, or the caller's context error.
	Err error
}

// Error is one line, such as
// "POST /supplier/v1/event/all: 503 Service Unavailable after 3 attempts".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Endpoint)
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else if e.StatusCode != 0 {
		b.WriteString(statusText(e.StatusCode))
	} else {
		b.WriteString("failed")
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// statusError is a non-2xx response, with the start of its body.
type statusError struct {
	code    int
	snippet string
}

func (e *statusError) Error() string {
	if e.snippet == "" {
		return statusText(e.code)
	}
	return fmt.Sprintf("%s: %q", statusText(e.code), e.snippet)
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return strconv.Itoa(code) + " " + t
	}
	return strconv.Itoa(code)
}
