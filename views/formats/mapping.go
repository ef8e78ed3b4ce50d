package formats

import (
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// MappingJSON is the answer of GET /api/v1/profiles/mapping: the stored
// mapping, the supplier's whole table as its last import gave it (a
// general row has country ""; an age row value "" and answerId 0), and
// the supplier's (code, value) pairs of the own-code profiles that no row
// covers for the panelists' countries, the most carried first.
type MappingJSON struct {
	Mapping  []domain.MappingRow  `json:"mapping"`
	Unmapped []store.UnmappedCode `json:"unmapped"`
}

// NewMappingJSON is the answer of the mapping and unmapped codes given,
// with empty lists rather than null.
func NewMappingJSON(rows []domain.MappingRow, unmapped []store.UnmappedCode) MappingJSON {
	return MappingJSON{Mapping: NonNil(rows), Unmapped: NonNil(unmapped)}
}
