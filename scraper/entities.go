package scraper

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeEntities undoes the HTML encoding the API applies to text fields under a safe filter
// (a question's body_markdown and title): &amp; &lt; &gt; &quot; &#39; &apos; and numeric
// references (&#60; &#x3C;). It is exact for what the API encodes: the API writes every
// '&' of the text as &amp;, so each '&' it sends starts one of these, and the text the
// author typed comes back byte for byte (a literal "&amp;" in a code block arrives as
// "&amp;amp;" and leaves as "&amp;"). An '&' that starts none of them is kept as it is,
// so nothing is lost if the API ever leaves one unencoded.
//
// html.UnescapeString is not used: it also decodes the hundreds of named HTML entities,
// some without their ';' ("&copy" → ©), which is right for HTML and wrong here.
func DecodeEntities(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, '&')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		r, n := entity(s)
		if n == 0 {
			b.WriteByte('&')
			s = s[1:]
			continue
		}
		b.WriteString(r)
		s = s[n:]
	}
}

var namedEntities = map[string]string{"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": `"`, "&#39;": "'", "&apos;": "'"}

// entity decodes the reference at the start of s (which starts with '&'), returning its
// text and length, or length 0 when s does not start with one this decoder knows.
func entity(s string) (string, int) {
	end := strings.IndexByte(s, ';')
	if end < 0 || end > 10 {
		return "", 0
	}
	ref := s[:end+1]
	if r, ok := namedEntities[ref]; ok {
		return r, len(ref)
	}
	if !strings.HasPrefix(ref, "&#") {
		return "", 0
	}
	num, base := ref[2:end], 10
	if strings.HasPrefix(num, "x") || strings.HasPrefix(num, "X") {
		num, base = num[1:], 16
	}
	if num == "" || strings.ContainsAny(num, "+-") {
		return "", 0
	}
	v, err := strconv.ParseUint(num, base, 32)
	if err != nil || v == 0 || !utf8.ValidRune(rune(v)) {
		return "", 0
	}
	return string(rune(v)), len(ref)
}

// EncodeEntities is what the API does to such a field: the inverse of DecodeEntities on
// text without stray references. fakeapi encodes the same way; kothd itself only decodes.
func EncodeEntities(s string) string {
	return entityEncoder.Replace(s)
}

var entityEncoder = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")
