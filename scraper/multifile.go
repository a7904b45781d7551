package scraper

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Multi-file answers (Mafia: `run` plus helpers; Bank Heist: a command and its source)
// name their blocks the way the questions showed: a line before the block holding the file
// name, or a comment on the block's first line.

// sourceExt are the extensions a name needs to be recognised inside a sentence or a
// comment, where a dotted word is not necessarily a file ("uses `os.path`:"). A label that
// is nothing but the name accepts any extension.
var sourceExt = map[string]bool{
	"py": true, "py2": true, "py3": true, "c": true, "h": true, "cc": true, "cpp": true, "cxx": true,
	"hpp": true, "hh": true, "java": true, "js": true, "mjs": true, "go": true, "sh": true,
	"bash": true, "rb": true, "pl": true, "pm": true, "lua": true, "rs": true, "hs": true,
	"php": true, "r": true, "jl": true, "cs": true, "kt": true, "scala": true, "ts": true,
	"txt": true, "json": true, "csv": true, "dat": true, "cfg": true, "ini": true, "in": true,
}

var (
	// A whole label that is a file name: "bot.c", "run", "helper.py:".
	nameToken = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)
	dottedExt = regexp.MustCompile(`\.([A-Za-z][A-Za-z0-9+]*)$`)
	// "File: helper.py", "Filename: run", "Save as bot.c", "Save this as `x`".
	filePrefix = regexp.MustCompile(`(?i)^(?:file\s*name|file|filename|save\s+(?:this\s+|it\s+)?as|name)\s*[:=]?\s+(\S+)$`)
	// First-line name comments: "# file: run", "// bot.c", "/* helper.h */", "-- x.lua".
	nameComment = regexp.MustCompile(`^\s*(?:#|//|--|;+|/\*|<!--|%|')\s*(?i:(file\s*name|file|filename)\s*[:=]\s*)?(\S+?)\s*(?:\*/|-->)?\s*$`)
)

// multiFile extracts every named block, and the main block, of an answer.
func (r Rules) multiFile(doc *goquery.Document, main string) ([]File, string) {
	blocks := codeBlocks(doc)
	if len(blocks) == 0 {
		return nil, "no code block in the answer"
	}
	var files []File
	var unnamed []string
	byName := map[string]bool{}
	for _, b := range blocks {
		name := r.labelName(b.pre)
		content := b.text
		cname, drop := r.commentName(content)
		if name == "" {
			name = cname
		}
		if drop { // "# file: run" above a shebang: the shebang must come first to work
			content = content[strings.IndexByte(content, '\n')+1:]
		}
		if name == "" {
			unnamed = append(unnamed, content)
			continue
		}
		if reason := r.checkName(name); reason != "" {
			return nil, reason
		}
		if byName[name] {
			return nil, fmt.Sprintf("two code blocks are named %s: give each file its own name", name)
		}
		byName[name] = true
		files = append(files, File{Name: name, Content: content})
	}
	// A lone script with a shebang is the entry point itself (a Mafia `run`).
	if r.Entry != "" && !byName[r.Entry] {
		for i, u := range unnamed {
			if strings.HasPrefix(u, "#!") {
				files = append(files, File{Name: r.Entry, Content: u})
				byName[r.Entry] = true
				unnamed = slices.Delete(unnamed, i, i+1)
				break
			}
		}
	}
	if !byName[main] && len(unnamed) > 0 {
		files = append(files, File{Name: main, Content: pickMain(unnamed)})
		byName[main] = true
	}
	// Without an entry file of its own, the bot is started through the language's file:
	// an answer whose only source in that language has another name ("// nonce.c",
	// "Nonce.java") is that source, under the name the build and run commands use.
	if r.Entry == "" && !byName[main] {
		ext := extOf(main)
		only := -1
		for i, f := range files {
			if extOf(f.Name) == ext {
				if only >= 0 {
					only = -1
					break
				}
				only = i
			}
		}
		if only >= 0 {
			files[only].Name = main
		} else if len(files) > 0 {
			return nil, fmt.Sprintf("no main file: this language runs %s; name one code block %s, or leave the main block unnamed", main, main)
		}
	}
	if len(files) == 0 {
		return nil, "no code block in the answer"
	}
	return files, ""
}

// extOf is a name's extension, "" when it has none.
func extOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[i:]
	}
	return ""
}

// pickMain chooses the main source among unnamed blocks: the first with more than one
// line, since a one-line block before the code is usually the command that runs it
// ("python3 bot.py"); the first block when all are one-liners.
func pickMain(unnamed []string) string {
	for _, u := range unnamed {
		if strings.Count(strings.TrimSpace(u), "\n") > 0 {
			return u
		}
	}
	return unnamed[0]
}

// labelName reads a file name from the element just before a code block (or, for a block
// that opens a quote or list item, from the element before that). A name found here was
// plainly meant as one, so a bad name is reported (checkName) rather than ignored.
func (r Rules) labelName(pre *goquery.Selection) string {
	prev := pre.Prev()
	if prev.Length() == 0 {
		if p := pre.Parent(); p.Length() > 0 && !p.Is("body, html") {
			prev = p.Prev()
		}
	}
	if prev.Length() == 0 || !prev.Is("p, h1, h2, h3, h4, h5, h6") {
		return ""
	}
	text := strings.TrimSpace(collapseSpaces(prev.Text()))
	bare := strings.TrimSpace(strings.TrimRight(text, ":"))
	bare = strings.Trim(bare, "*_`\"'")
	codes := prev.Find("code")
	inCode := codes.Length() == 1 && strings.TrimSpace(codes.Text()) == bare
	// The whole label is one word: a name if it is written as code, has an extension, is
	// the entry file, or is path-like (then checkName says why it is not allowed).
	if bare != "" && !strings.ContainsAny(bare, " \t") {
		if inCode || bare == r.Entry || pathLike(bare) || (nameToken.MatchString(bare) && dottedExt.MatchString(bare)) {
			return bare
		}
	}
	if m := filePrefix.FindStringSubmatch(bare); m != nil {
		return strings.Trim(m[1], "`\"'*_:")
	}
	// "Save this as `helper.py`:" – a sentence ending in ':' around one inline name.
	if strings.HasSuffix(text, ":") && codes.Length() == 1 {
		c := strings.TrimSpace(codes.Text())
		if r.looksLikeFile(c) || (pathLike(c) && !strings.ContainsAny(c, " \t")) {
			return c
		}
	}
	return ""
}

// pathLike: a word that was meant as a file but is not a plain name ("../x.py",
// "/etc/passwd", ".bashrc", "lib/util.py").
func pathLike(s string) bool {
	return strings.ContainsAny(s, `/\`) || (strings.HasPrefix(s, ".") && len(s) > 1 && s != "..." && dottedExt.MatchString(s))
}

// commentName reads "# file: run" or "// bot.c" from the first line of a block, or from the
// second line after a shebang. drop says the name line comes first and a shebang second:
// the name line is then removed so the shebang works.
func (r Rules) commentName(content string) (name string, drop bool) {
	lines := strings.SplitN(content, "\n", 3)
	try := func(line string) (string, bool) {
		if strings.HasPrefix(line, "#!") {
			return "", false
		}
		m := nameComment.FindStringSubmatch(line)
		if m == nil {
			return "", false
		}
		if m[1] != "" {
			return m[2], true
		}
		if r.looksLikeFile(m[2]) {
			return m[2], true
		}
		return "", false
	}
	if n, ok := try(lines[0]); ok {
		drop = len(lines) > 1 && strings.HasPrefix(lines[1], "#!")
		return n, drop
	}
	if len(lines) > 1 && strings.HasPrefix(lines[0], "#!") {
		if n, ok := try(lines[1]); ok {
			return n, false
		}
	}
	return "", false
}

// looksLikeFile: a plain token with a source extension, or the entry file's name.
func (r Rules) looksLikeFile(s string) bool {
	if !nameToken.MatchString(s) {
		return false
	}
	if s == r.Entry && s != "" {
		return true
	}
	m := dottedExt.FindStringSubmatch(s)
	return m != nil && sourceExt[strings.ToLower(m[1])]
}

// checkName returns why a file name is not allowed, or "".
func (r Rules) checkName(name string) string {
	bad := func(why string) string { return fmt.Sprintf("file name not allowed: %s (%s)", name, why) }
	switch {
	case strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || (len(name) > 1 && name[1] == ':'):
		return bad("absolute path; use a plain name like helper.py")
	case slices.Contains(strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }), ".."):
		return bad("parent directory; use a plain name like helper.py")
	case strings.ContainsAny(name, `/\`):
		return bad("directories are not supported; use a plain name like helper.py")
	case strings.HasPrefix(name, "."):
		return bad("hidden file names are not allowed")
	case !nameToken.MatchString(name):
		return bad("use letters, digits and . _ - + only")
	case len(name) > 100:
		return bad("longer than 100 characters")
	case slices.Contains(r.Reserved, name):
		return bad("the engine writes this file itself")
	}
	return ""
}
