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
	Author   string // the owner's display name, unescaped
	UserID   int64  // the owner's user id (0: unknown, e.g. a deleted account)
	// Title is the bot's name where the challenge takes it from the heading (header_language:
	// the part before the language), otherwise the answer's first heading as written.
	Title   string
	Heading string // the first heading as written, struck-out words removed
	// HeadingText is the first heading's whole text, struck-out words included (what the
	// originals' scrapers read).
	HeadingText string
	Language    string // key of the language table
	Files       []File
	// Main is the file the language's build and run commands expect (its `file`, e.g.
	// bot.py) when the answer has it; "" otherwise (a Mafia answer may consist of `run` and
	// helpers only).
	Main string
	// Hash identifies this revision of the submission: its name, language, files and
	// rejection reason (hex SHA-256). Any change that matters to the bot or to the
	// participant's status changes it; editing the prose around the code does not.
	Hash    string
	Reject  string // why the answer is not entered; empty when accepted
	Created int64
	Edited  int64 // last edit (or creation) date, Unix seconds
}

// File is one extracted file; Name is a plain base name, sanitised.
type File struct {
	Name    string
	Content string
	// Exec: the file is meant to be executed directly (it starts with "#!", or it is the
	// Rules.Entry file): materialise it with mode 0755. A Mafia `run` calling
	// `./randy.py` needs both files executable, as the original host made them.
	Exec bool `json:",omitempty"`
}

// Rules say how a challenge's answers become files (config.yaml, `extract:`; see
// RulesFromConfig).
type Rules struct {
	// Mode: "class-blocks" (every code block with a line matching ClassPattern, joined),
	// "first-block" (the first code block; the default) or "multi-file" (every code block,
	// named by a label before it or a first-line comment; see Extract).
	Mode         string
	ClassPattern string
	// HeaderLanguage: the first heading reads "Name, Language"; the name becomes the Title
	// and the language is resolved through Languages.
	HeaderLanguage bool
	Language       string // fixed language key (or the default when the heading names none)
	MaxBytes       int    // limit on the total size of the files; 0 = none
	// Languages maps a language key to the header spellings that name it.
	Languages map[string][]string
	// MainFile maps a language key to its source file name (config `file`): the name of
	// an answer's unnamed main code block. Missing keys fall back to "bot.py".
	MainFile map[string]string
	// Entry is a file every bot must have besides its sources (Mafia: "run"); in
	// multi-file mode an unnamed block starting with "#!" becomes it when no block is
	// named so.
	Entry string
	// Reserved are file names an answer may not ship (the protocol's own files).
	Reserved []string
}

// Extract turns one answer into a submission under the challenge's rules. It never fails:
// a problem with the answer is the submission's Reject reason, worded for the participant.
// Use ExtractAll for a whole question (it also rejects duplicate bot names).
//
// Code blocks are <pre><code> or a bare <pre>; entities are decoded exactly once.
// In multi-file mode a block's file name comes, in this order, from the element just before
// it – a heading or paragraph that is the name (`<h2>run</h2>`, `<p><code>bot.c</code>:</p>`),
// says "File: helper.py", or ends with ':' around one inline file name ("Save this as
// `helper.py`:") – or from a comment on its first line (`# file: run`, `// bot.c`, after a
// shebang too). The first unnamed block of more than one line is the main source and
// gets the language's file name (unless a block is named so); other unnamed blocks (usage
// lines, sample output) are left out. With Rules.Entry (Mafia's `run`) an unnamed block
// starting with "#!" becomes the entry file. Without one, the bot starts through the
// language's file: an answer whose only source in that language has another name gets it
// renamed, and one with several, none so named, is rejected. Names are sanitised: plain
// names only, no directories, no hidden files, no reserved names, no two blocks with one
// name.
func Extract(a Answer, r Rules) Submission {
	s := extract(a, r)
	s.Hash = submissionHash(&s)
	return s
}

func extract(a Answer, r Rules) Submission {
	s := Submission{AnswerID: a.AnswerID, Author: a.Owner.Name(), UserID: a.Owner.UserID, Created: a.CreationDate, Edited: max(a.LastEditDate, a.CreationDate)}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(a.Body))
	if err != nil {
		s.Reject = "the answer's HTML could not be read"
		return s
	}
	s.Heading = heading(doc)
	s.HeadingText = headingText(doc)
	s.Title = s.Heading
	s.Language = r.Language
	if r.HeaderLanguage {
		if s.Reject = r.headerLanguage(&s); s.Reject != "" {
			return s
		}
	}
	main := r.mainFile(s.Language)
	switch r.Mode {
	case "class-blocks":
		s.Files, s.Reject = classBlocks(doc, r.ClassPattern, main)
	case "first-block", "":
		s.Files, s.Reject = firstBlock(doc, main)
	case "multi-file":
		s.Files, s.Reject = r.multiFile(doc, main)
	default:
		s.Reject = fmt.Sprintf("extraction mode %q is not supported (host configuration)", r.Mode)
	}
	if s.Reject != "" {
		s.Files = nil
		return s
	}
	for i, f := range s.Files {
		if f.Name == main {
			s.Main = main
		}
		s.Files[i].Exec = strings.HasPrefix(f.Content, "#!") || (r.Entry != "" && f.Name == r.Entry)
	}
	if r.MaxBytes > 0 {
		n := 0
		for _, f := range s.Files {
			n += len(f.Content)
		}
		if n > r.MaxBytes {
			s.Reject = fmt.Sprintf("code too large (%d bytes, limit %d)", n, r.MaxBytes)
			s.Files, s.Main = nil, ""
		}
	}
	return s
}

// headerLanguage splits the heading into bot name and language and sets s.Title and
// s.Language; it returns a rejection reason or "".
func (r Rules) headerLanguage(s *Submission) string {
	if s.Heading == "" {
		return `no heading: start the answer with a heading like "# MyBot, Python 3"`
	}
	name, lang, key := splitHeading(s.Heading, r.Languages)
	switch {
	case key != "":
		s.Language = key
	case lang != "" && r.Language == "":
		if name != "" {
			s.Title = name // so the rejection lists the bot by its name
		}
		return unknownLanguage(lang, r.Languages)
	case lang == "" && r.Language == "":
		return fmt.Sprintf(`the heading %q names no language: write it as "%s, Python 3" (known languages: %s)`,
			s.Heading, s.Heading, knownLanguages(r.Languages))
	default: // the challenge has a default language; the heading is all name
		name = trimPart(s.Heading)
	}
	if name == "" {
		return fmt.Sprintf("the heading %q has no bot name before the language", s.Heading)
	}
	s.Title = name
	return ""
}

func (r Rules) mainFile(lang string) string {
	if f := r.MainFile[lang]; f != "" {
		return f
	}
	return "bot.py"
}

// block is one code block: its text and the element it came from.
type block struct {
	text    string
	pre     *goquery.Selection
	hasCode bool // <pre><code>, as Markdown renders code; a bare <pre> is hand-written HTML
}

// codeBlocks returns every code block with text: <pre><code>, or a bare <pre>. Text()
// decodes entities exactly once. Line ends are normalised to \n.
func codeBlocks(doc *goquery.Document) []block {
	var out []block
	doc.Find("pre").Each(func(_ int, pre *goquery.Selection) {
		b := block{pre: pre}
		if code := pre.Find("code").First(); code.Length() > 0 {
			b.text, b.hasCode = code.Text(), true
		} else {
			b.text = pre.Text()
		}
		b.text = strings.ReplaceAll(b.text, "\r\n", "\n")
		if strings.TrimSpace(b.text) != "" {
			out = append(out, b)
		}
	})
	return out
}

// firstBlock takes the first <pre><code> block, as the White Elephant and Ruins scrapers
// did (specs §1.3/§1.4); a bare <pre> counts only when the answer has no other kind.
func firstBlock(doc *goquery.Document, main string) ([]File, string) {
	blocks := codeBlocks(doc)
	if len(blocks) == 0 {
		return nil, "no code block in the answer"
	}
	for _, b := range blocks {
		if b.hasCode {
			return []File{{Name: main, Content: b.text}}, ""
		}
	}
	return []File{{Name: main, Content: blocks[0].text}}, ""
}

// classBlocks keeps every code block with a line matching the class pattern, in order,
// joined into one file (the forty game's downloader, spec §1.3).
func classBlocks(doc *goquery.Document, pattern, main string) ([]File, string) {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return nil, "bad class_pattern in the host's config: " + err.Error()
	}
	blocks := codeBlocks(doc)
	if len(blocks) == 0 {
		return nil, "no code block in the answer"
	}
	var kept []string
	for _, b := range blocks {
		if re.MatchString(b.text) {
			kept = append(kept, b.text)
		}
	}
	if len(kept) == 0 {
		return nil, "no bot class found (a code block needs a line like `class MyBot(Bot):`)"
	}
	return []File{{Name: main, Content: strings.Join(kept, "\n\n")}}, ""
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

// submissionHash is Submission.Hash: every field that matters to the bot or its status,
// each length-prefixed so no two different submissions share an input.
func submissionHash(s *Submission) string {
	h := sha256.New()
	for _, f := range []string{"kothd submission v1", s.Title, s.Language, s.Main, s.Reject, HashFiles(s.Files)} {
		fmt.Fprintf(h, "%d:%s\n", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}
