package store_test

import "strings"

// encodingCase is one way a supplier's tool may write the same CSV file.
type encodingCase struct {
	name    string
	content string
}

// acceptedEncodings is the one set of spellings every import accepts for
// the same two lines: file builds a file of lines under the import's
// header, quoted is the file with its header and first line quoted.
func acceptedEncodings(file func(lines ...string) string, lines []string, quoted string) []encodingCase {
	return []encodingCase{
		{"UTF-8 byte order mark", "\xEF\xBB\xBF" + file(lines...)},
		{"CRLF line endings", strings.ReplaceAll(file(lines...), "\n", "\r\n")},
		{"BOM and CRLF", "\xEF\xBB\xBF" + strings.ReplaceAll(file(lines...), "\n", "\r\n")},
		{"no final line break", strings.TrimSuffix(file(lines...), "\n")},
		{"blank lines", file(lines[0], "", lines[1], "")},
		{"quoted header and fields", quoted},
	}
}
