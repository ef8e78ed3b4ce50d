package formats

import (
	"net/url"
	"strings"
)

// WebhookURL is how the page and the command line show a webhook's
// address, which may carry a secret in its path or query (Slack's
// https://hooks.slack.com/services/T…/B…/token, Discord's, Teams', a
// ?token=): the scheme, the host and port, and the path's first segment
// when it is a word (up to 16 letters, '-', '_' or '.', as services,
// hooks or api); the rest of the path, and the query, as "…".
func WebhookURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(an address that does not parse)"
	}
	shown := u.Scheme + "://" + u.Host
	if path := strings.TrimPrefix(u.EscapedPath(), "/"); path != "" {
		first, rest, _ := strings.Cut(path, "/")
		switch {
		case !isWord(first):
			shown += "/…"
		case rest != "":
			shown += "/" + first + "/…"
		default:
			shown += "/" + path
		}
	}
	if u.RawQuery != "" {
		shown += "?…"
	}
	return shown
}

// isWord says whether a path segment reads as a name rather than a token.
func isWord(s string) bool {
	return s != "" && len(s) <= 16 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_.") == ""
}
