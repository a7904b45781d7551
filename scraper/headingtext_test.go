package scraper

import "testing"

// A struck-out word leaves the bot's name (Heading, Title) but stays in HeadingText, the
// whole heading the originals' scrapers read (Ruins names an answer's module after it).
func TestHeadingTextKeepsStruckWords(t *testing.T) {
	a := Answer{AnswerID: 1, Body: "<h1><s>Zed</s> <del>Old</del> Alpha</h1><pre><code>class Alpha(Adventurer):\n    pass\n</code></pre>"}
	s := Extract(a, Rules{Mode: "first-block", Language: "python3"})
	if s.Heading != "Alpha" || s.Title != "Alpha" {
		t.Errorf("heading %q, title %q; want Alpha", s.Heading, s.Title)
	}
	if s.HeadingText != "Zed Old Alpha" {
		t.Errorf("heading text %q, want %q", s.HeadingText, "Zed Old Alpha")
	}
}
