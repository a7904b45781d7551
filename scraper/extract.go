package scraper

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Submission is what an answer yields: files to materialise, or the reason it yields none.
type Submission struct {
	AnswerID int64
	Author   string
	Title    string // the answer's first heading, the bot's name where the challenge uses it
	Language string // key of the language table
	Files    []File
	Hash     string // content hash of Files (name and content), hex
	Reject   string // why the answer is not entered; empty when accepted
	Created  int64
	Edited   int64 // last edit (or creation) date, Unix seconds
}

// File is one extracted file; Name is a plain base name, sanitised.
type File struct {
	Name    string
	Content string
}

// Rules say how a challenge's answers become files (config.yaml, `extract:`).
type Rules struct {
	Mode           string // class-blocks, first-block, multi-file
	ClassPattern   string
	HeaderLanguage bool
	Language       string // fixed language key
	MaxBytes       int
	// Languages maps a language key to the header spellings that name it.
	Languages map[string][]string
}

// Extract turns one answer into a submission under the challenge's rules. It never fails:
// a problem with the answer is the submission's Reject reason.
func Extract(a Answer, r Rules) Submission {
	s := Submission{AnswerID: a.AnswerID, Author: a.Owner.Name(), Created: a.CreationDate, Edited: max(a.LastEditDate, a.CreationDate)}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.Body))
	if err != nil {
		s.Reject = "the answer's HTML could not be read"
		return s
	}
	s.Title = heading(doc)
	s.Language = r.Language
	switch r.Mode {
	case "class-blocks":
		s.Files, s.Reject = classBlocks(doc, r.ClassPattern)
	case "first-block", "":
		s.Files, s.Reject = firstBlock(doc)
	default:
		s.Reject = fmt.Sprintf("extraction mode %q is not supported", r.Mode)
	}
	if s.Reject == "" && r.MaxBytes > 0 {
		n := 0
		for _, f := range s.Files {
			n += len(f.Content)
		}
		if n > r.MaxBytes {
			s.Reject = fmt.Sprintf("code too large (%d bytes, limit %d)", n, r.MaxBytes)
		}
	}
	if s.Reject == "" {
		s.Hash = HashFiles(s.Files)
	}
	return s
}

// heading is the text of the first h1, else h2, else h3.
func heading(doc *goquery.Document) string {
	for _, h := range []string{"h1", "h2", "h3"} {
		if sel := doc.Find(h).First(); sel.Length() > 0 {
			return strings.TrimSpace(sel.Text())
		}
	}
	return ""
}

// codeBlocks returns the text of every code block: <pre><code>, or a bare <pre>. Text()
// decodes entities exactly once.
func codeBlocks(doc *goquery.Document) []string {
	var out []string
	doc.Find("pre").Each(func(_ int, pre *goquery.Selection) {
		if code := pre.Find("code").First(); code.Length() > 0 {
			out = append(out, code.Text())
			return
		}
		out = append(out, pre.Text())
	})
	return out
}

func firstBlock(doc *goquery.Document) ([]File, string) {
	blocks := codeBlocks(doc)
	if len(blocks) == 0 {
		return nil, "no code block in the answer"
	}
	return []File{{Name: "bot.py", Content: blocks[0]}}, ""
}

// classBlocks keeps every code block with a line matching the class pattern, in order,
// joined into one bot.py (the forty game's downloader, spec §1.3).
func classBlocks(doc *goquery.Document, pattern string) ([]File, string) {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return nil, "bad class_pattern in config: " + err.Error()
	}
	blocks := codeBlocks(doc)
	if len(blocks) == 0 {
		return nil, "no code block in the answer"
	}
	var kept []string
	for _, b := range blocks {
		if re.MatchString(b) {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return nil, "no bot class found (a code block needs a line like `class MyBot(Bot):`)"
	}
	return []File{{Name: "bot.py", Content: strings.Join(kept, "\n\n")}}, ""
}

// HashFiles is the content hash of a set of files, independent of their order.
func HashFiles(files []File) string {
	sorted := append([]File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	h := sha256.New()
	for _, f := range sorted {
		fmt.Fprintf(h, "%d:%s\n%d:", len(f.Name), f.Name, len(f.Content))
		h.Write([]byte(f.Content))
	}
	return hex.EncodeToString(h.Sum(nil))
}
