package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"
)

// startPprof serves Go's profiles (/debug/pprof/) on addr, which must be a
// loopback address: the profiles show the process's memory and must never
// be reachable from the network. It returns a function that stops it.
func startPprof(addr string, logger *slog.Logger) (func(), error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, errFlag("pprof", "%q is not host:port", addr)
	}
	if !loopbackHost(host) {
		return nil, errFlag("pprof", "%q is not a loopback address (use 127.0.0.1:PORT or localhost:PORT)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: %w", err)
	}
	srv := &http.Server{Handler: pprofHandler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	logger.Info("serving profiles", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return func() { srv.Close() }, nil
}

// pprofHandler serves the profiles, less /debug/pprof/cmdline: the command
// line holds the --upstream-header values, the provider's secrets. (The
// index still lists cmdline, as net/http/pprof always does; its link
// answers 404.) A request whose Host is not a loopback name is refused
// with 421, so a web page on another site cannot read the profiles through
// the browser by pointing its own name at 127.0.0.1 (DNS rebinding).
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", http.NotFound)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host // no port
		}
		if !loopbackHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")) {
			http.Error(w, "The profiles answer only to localhost, 127.0.0.1 or [::1]; this request was for "+fmt.Sprintf("%q", r.Host)+".", http.StatusMisdirectedRequest)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether host (without port or brackets) is
// localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
