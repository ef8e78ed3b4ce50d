package rules

import "strings"

// JoinBlockValue returns a rule's words with a block's value made one
// word of the rest ("block billing-entity Acme Research" blocks Acme
// Research), for a rule typed on one line or as command-line words; any
// other rule's words are returned as they are, for ParsePolicyRule.
func JoinBlockValue(words []string) []string {
	if len(words) > 3 && strings.EqualFold(words[0], "block") {
		return []string{words[0], words[1], strings.Join(words[2:], " ")}
	}
	return words
}
