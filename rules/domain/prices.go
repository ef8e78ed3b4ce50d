package domain

import "time"

// PricePoint is a subsample's price from a time on, as Fieldboard saw it:
// a refresh that read a currency and CPI different from the last one kept
// (or the first) records one, From the time of that read. A subsample's
// points, oldest first, are its price history.
type PricePoint struct {
	SubsampleID int64     `db:"subsample_id"`
	Currency    string    `db:"currency"`
	CPI         float64   `db:"cpi"`
	From        time.Time `db:"from_at"`
}

// InvoiceParty is who a subsample's completes are invoiced to, as the
// provider names it: the billing entity and job number of its event (the
// spec's billingEntity and jobBookId, either may be empty).
type InvoiceParty struct {
	BillingEntity string `db:"billing_entity"`
	JobBookID     string `db:"job_book_id"`
	EventID       int64  `db:"event_id"`
}
