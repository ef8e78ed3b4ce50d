package formats_test

import (
	"testing"

	"fieldboard/views/formats"
)

// TestWebhookURLHidesTokens: an address is shown with its scheme, host,
// port and a first path segment that is a word; a token, in the path or
// the query, is never shown.
func TestWebhookURLHidesTokens(t *testing.T) {
	for _, c := range []struct{ name, url, want string }{
		{"Slack", "https://hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/abcdEFGHijklMNOPqrstUVWX", "https://hooks.slack.com/services/…"},
		{"Discord", "https://discord.com/api/webhooks/123456789012345678/Zx9-tokentokentoken", "https://discord.com/api/…"},
		{"a token as the first segment", "https://webhook.site/0b6cbd1e-8a4e-4b63-9f4f-1d2c3b4a5e6f", "https://webhook.site/…"},
		{"a short token with digits as the first segment", "https://example.com/a1b2c3", "https://example.com/…"},
		{"a word longer than 16 letters", "https://example.com/abcdefghijklmnopq", "https://example.com/…"},
		{"a token in the query", "https://example.com/hook?token=s3cret", "https://example.com/hook?…"},
		{"one word", "https://example.com:8443/fieldboard", "https://example.com:8443/fieldboard"},
		{"one word and a slash", "https://example.com/fieldboard/", "https://example.com/fieldboard/"},
		{"no path", "http://93.184.216.34", "http://93.184.216.34"},
		{"IPv6", "http://[2606:4700::1111]:8080/hook/x", "http://[2606:4700::1111]:8080/hook/…"},
		{"not a URL", "http://a b/%zz", "(an address that does not parse)"},
	} {
		if got := formats.WebhookURL(c.url); got != c.want {
			t.Errorf("%s: %s shown as %s, want %s", c.name, c.url, got, c.want)
		}
	}
}
