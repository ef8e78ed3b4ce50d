package sim

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// routes registers the nine endpoints of the spec. ServeMux answers 405 for
// a known path with the wrong method and 404 for unknown paths.
func (s *Simulator) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /supplier/v1/event/all", s.eventAll)
	mux.HandleFunc("POST /supplier/v1/event/live-details", s.liveDetails)
	mux.HandleFunc("GET /supplier/v1/subsamples/{subsampleId}/quotas", s.quotas)
	mux.HandleFunc("GET /supplier/v1/subsamples/{subsampleId}/eligibility-rules", s.eligibilityRules)
	mux.HandleFunc("GET /supplier/v1/locales/{locale}/questions", s.questions)
	mux.HandleFunc("GET /supplier/v1/locales/{locale}/questions/{questionId}/answers", s.answers)
	mux.HandleFunc("GET /supplier/v1/countries", s.static(s.world.countriesBody))
	mux.HandleFunc("GET /supplier/v1/locales", s.static(s.world.localesBody))
	mux.HandleFunc("GET /supplier/v1/survey-statuses", s.static(s.world.statusesBody))
	return mux
}

// eventAll lists every subsample with its current status. The optional
// filters of the request body are accepted and ignored.
func (s *Simulator) eventAll(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	m := s.world.minutesAt(s.now())
	size := 2
	for _, ss := range s.world.subs {
		size += len(ss.summaryHead) + len(ss.summaryTail) + 20
	}
	body := make([]byte, 0, size)
	body = append(body, '[')
	for i, ss := range s.world.subs {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, ss.summaryHead...)
		body = appendString(body, ss.statusAt(m).String())
		body = append(body, ss.summaryTail...)
	}
	body = append(body, ']')
	writeJSON(w, http.StatusOK, body)
}

// liveDetails lists the subsamples that are live and allocated now.
func (s *Simulator) liveDetails(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	m := s.world.minutesAt(s.now())
	var listed []*subsample
	size := 2
	for _, ss := range s.world.subs {
		if ss.listedLive(m) {
			listed = append(listed, ss)
			size += len(ss.detail) + 1
		}
	}
	body := make([]byte, 0, size)
	body = append(body, '[')
	for i, ss := range listed {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, ss.detail...)
	}
	body = append(body, ']')
	writeJSON(w, http.StatusOK, body)
}

func (s *Simulator) quotas(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.subsample(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, ss.quotasAt(s.world.minutesAt(s.now()), s.reportedFull(ss)))
}

func (s *Simulator) eligibilityRules(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.subsample(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, ss.rules.encode())
}

// subsample resolves the subsampleId path parameter, answering 400 or 404
// itself when it cannot.
func (s *Simulator) subsample(w http.ResponseWriter, r *http.Request) (*subsample, bool) {
	id, ok := pathID(w, r, "subsampleId")
	if !ok {
		return nil, false
	}
	ss := s.world.byID[id]
	if ss == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("subsample %d not found", id))
		return nil, false
	}
	return ss, true
}

func (s *Simulator) questions(w http.ResponseWriter, r *http.Request) {
	loc := strings.ToLower(r.PathValue("locale"))
	body, ok := s.world.library.questionsBody[loc]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no question library for locale %q", loc))
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Simulator) answers(w http.ResponseWriter, r *http.Request) {
	loc := strings.ToLower(r.PathValue("locale"))
	bodies, ok := s.world.library.answersBody[loc]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no question library for locale %q", loc))
		return
	}
	id, ok := pathID(w, r, "questionId")
	if !ok {
		return
	}
	body, ok := bodies[id]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("question %d not found in locale %q", id, loc))
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// static serves a body encoded at New.
func (s *Simulator) static(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, body) }
}

// pathID parses an integer path parameter, answering 400 when it is not one.
func pathID(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	raw := r.PathValue(name)
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s %q is not an integer", name, raw))
		return 0, false
	}
	return id, true
}

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	w.Write(body)
}

// writeError answers with a small JSON error body; the spec leaves error
// payloads undefined.
func writeError(w http.ResponseWriter, code int, msg string) {
	o := beginObject(nil)
	o.int("status", int64(code))
	o.str("error", http.StatusText(code))
	o.str("message", msg)
	writeJSON(w, code, o.end())
}
