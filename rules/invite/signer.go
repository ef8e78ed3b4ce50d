package invite

import (
	"fmt"
	"time"
)

// Signer signs invitations with one key, valid until one time, linking to
// one public address: make one per list (NewSigner), not per link.
type Signer struct {
	key       Key
	expires   time.Time
	publicURL string
}

// NewSigner returns a signer of invitations under key, valid for ttl
// from now, whose links point at publicURL (ParsePublicURL's). The key is
// the store's newest (store.Store.SigningKey).
func NewSigner(key Key, now time.Time, ttl time.Duration, publicURL string) (Signer, error) {
	if ttl <= 0 {
		return Signer{}, fmt.Errorf("an invitation must be valid for some time, not %s", ttl)
	}
	return Signer{key: key, expires: now.Add(ttl), publicURL: publicURL}, nil
}

// Token is the token of an invitation for the panelist to subsampleID (0:
// to whatever the router chooses), valid until the signer's expiry.
func (g Signer) Token(panelistID string, subsampleID int64) string {
	return Sign(g.key, Invitation{PanelistID: panelistID, SubsampleID: subsampleID, Expires: g.expires})
}

// Link is the invitation link of Token(panelistID, subsampleID).
func (g Signer) Link(panelistID string, subsampleID int64) string {
	return Link(g.publicURL, g.Token(panelistID, subsampleID))
}
