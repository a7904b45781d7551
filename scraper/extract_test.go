package scraper

import (
	"strings"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/runner/build"
)

// testLangs is a small language table in the shape of config.yaml's.
var testLangs = map[string][]string{
	"python3":    {"Python 3", "Python3", "Python", "py3"},
	"python2":    {"Python 2", "Python2", "Python 2.7", "py2"},
	"c":          {"C", "C (gcc)", "gcc"},
	"cpp":        {"C++", "cpp", "C++ (g++)", "g++"},
	"java":       {"Java"},
	"javascript": {"JavaScript", "JS", "Node", "Node.js"},
	"bash":       {"Bash", "sh", "Shell"},
}

var testMain = map[string]string{"python3": "bot.py", "python2": "bot.py", "c": "bot.c", "cpp": "bot.cpp", "java": "Bot.java", "javascript": "bot.js", "bash": "bot.sh"}

var (
	mafiaRules = Rules{Mode: "multi-file", HeaderLanguage: true, MaxBytes: 4096, Languages: testLangs, MainFile: testMain,
		Entry: "run", Reserved: []string{"from_server", "to_server", "players"}}
	heistRules = Rules{Mode: "multi-file", HeaderLanguage: true, Languages: testLangs, MainFile: testMain}
	fortyRules = Rules{Mode: "class-blocks", ClassPattern: `^class \w+\(\w*Bot\):`, Language: "python3", Languages: testLangs, MainFile: testMain}
	firstRules = Rules{Mode: "first-block", Language: "python3", Languages: testLangs, MainFile: testMain}
)

func ans(id int64, body string) Answer {
	return Answer{AnswerID: id, QuestionID: 1, Body: body, CreationDate: 1500000000 + id,
		Owner: Owner{UserID: id, DisplayName: "Jane &amp; O&#39;Brien", UserType: "registered"}}
}

// files renders a submission's files as "name=content|name=content" for compact checks.
func files(s Submission) string {
	var parts []string
	for _, f := range s.Files {
		parts = append(parts, f.Name+"="+f.Content)
	}
	return strings.Join(parts, "|")
}

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rules  Rules
		body   string
		title  string
		lang   string
		files  string // "" when rejected
		main   string
		reject string // substring of the reason
	}{
		{
			name: "first block, entities decoded once", rules: firstRules,
			body:  "<h1>Greedy</h1>\n<p>Takes the best &amp; runs.</p>\n<pre><code>class G(WhiteElephantBot):\n    s = '&amp;lt;' if 1 &lt; 2 &gt; 0 else \"&quot;\"\n</code></pre>\n<pre><code>ignored()\n</code></pre>\n",
			title: "Greedy", lang: "python3", main: "bot.py",
			files: "bot.py=class G(WhiteElephantBot):\n    s = '&lt;' if 1 < 2 > 0 else \"\"\"\n",
		},
		{
			name: "bare pre", rules: firstRules, body: "<p>No heading</p><pre>class A(Adventurer):\n    pass\n</pre>",
			title: "", lang: "python3", main: "bot.py", files: "bot.py=class A(Adventurer):\n    pass\n",
		},
		{
			name: "first pre-code block after a hand-written pre", rules: firstRules,
			body:  "<h1>B</h1><pre>Sample <b>output</b>\n</pre><pre><code>class B(WhiteElephantBot):\n    pass\n</code></pre>",
			title: "B", lang: "python3", main: "bot.py", files: "bot.py=class B(WhiteElephantBot):\n    pass\n",
		},
		{name: "no code block", rules: firstRules, body: "<h1>Idea</h1><p>I will post code <code>later</code>.</p>", reject: "no code block in the answer"},
		{
			name: "class blocks joined, helper block dropped", rules: fortyRules,
			body:  "<h1>Two bots</h1><pre><code>class A(Bot):\n    pass\n</code></pre><pre><code>def helper(): pass\n</code></pre><pre class=\"lang-py prettyprint-override\"><code>class B(ThrowTwiceBot):\n    pass\n</code></pre>",
			title: "Two bots", lang: "python3", main: "bot.py",
			files: "bot.py=class A(Bot):\n    pass\n\n\nclass B(ThrowTwiceBot):\n    pass\n",
		},
		{name: "no class", rules: fortyRules, body: "<h1>X</h1><pre><code>class A(Bot, Mixin):\n    pass\n</code></pre>", reject: "no bot class found"},
		{
			name: "mafia run and helper labelled by paragraphs", rules: mafiaRules,
			body:  "<h1>Randy, Python 2</h1>\n<p><code>run</code>:</p>\n<pre><code>#!/bin/bash\n./randy.py &lt; from_server &gt; to_server\n</code></pre>\n<p><code>randy.py</code>:</p>\n<pre><code>#!/usr/bin/env python\nprint 'vote'\n</code></pre>",
			title: "Randy", lang: "python2",
			files: "run=#!/bin/bash\n./randy.py < from_server > to_server\n|randy.py=#!/usr/bin/env python\nprint 'vote'\n",
		},
		{
			name: "headings, File: prefix and first-line comments", rules: mafiaRules,
			body: "<h1>Zulu &#8211; Python 3</h1><h2>run</h2><pre><code># file: run\n#!/bin/sh\npython3 zulu.py\n</code></pre>" +
				"<p>File: helper.py</p><pre><code>X = 1\n</code></pre>" +
				"<p>And the bot itself:</p><pre><code>#!/usr/bin/env python3\n# zulu.py\nimport helper\n</code></pre>" +
				"<pre><code>// notes.txt\nplain\n</code></pre>",
			title: "Zulu", lang: "python3",
			files: "run=#!/bin/sh\npython3 zulu.py\n|helper.py=X = 1\n|zulu.py=#!/usr/bin/env python3\n# zulu.py\nimport helper\n|notes.txt=// notes.txt\nplain\n",
		},
		{
			name: "unnamed main gets the language's file; helper by sentence", rules: heistRules,
			body: "<h1>Robin Hood - C++</h1><p>Compile with <code>g++ bot.cpp</code> and run <code>./bot</code>.</p>" +
				"<pre><code>#include \"util.h\"\nint main(){}\n</code></pre><p>Save this as <code>util.h</code>:</p><pre><code>#pragma once\n</code></pre>",
			title: "Robin Hood", lang: "cpp", main: "bot.cpp",
			files: "util.h=#pragma once\n|bot.cpp=#include \"util.h\"\nint main(){}\n",
		},
		{
			name: "one-line command block is not the main source", rules: heistRules,
			body:  "<h1>Nonce, Python 2</h1><p>Run with:</p><pre><code>python2 bot.py\n</code></pre><pre><code>import sys\nprint 0\n</code></pre>",
			title: "Nonce", lang: "python2", main: "bot.py", files: "bot.py=import sys\nprint 0\n",
		},
		{
			name: "a block named like the main file wins over unnamed ones", rules: heistRules,
			body:  "<h1>Tiny, JavaScript</h1><p><code>bot.js</code>:</p><pre><code>console.log(0)\n</code></pre><p>Output:</p><pre><code>0\n1\n</code></pre>",
			title: "Tiny", lang: "javascript", main: "bot.js", files: "bot.js=console.log(0)\n",
		},
		{
			name: "the only source in the language is the main file", rules: heistRules,
			body:  "<h1>Nonce, C</h1><pre><code>// nonce.c\nint main(){}\n</code></pre><p><code>nonce.h</code>:</p><pre><code>#define N 1\n</code></pre>",
			title: "Nonce", lang: "c", main: "bot.c", files: "bot.c=// nonce.c\nint main(){}\n|nonce.h=#define N 1\n",
		},
		{
			name: "two sources in the language, neither the main file", rules: heistRules,
			body:   "<h1>Pair, Python 3</h1><p><code>a.py</code>:</p><pre><code>import b\n</code></pre><p><code>b.py</code>:</p><pre><code>X = 1\n</code></pre>",
			reject: "no main file: this language runs bot.py; name one code block bot.py, or leave the main block unnamed",
		},
		{
			name: "a lone shebang block is run", rules: mafiaRules,
			body:  "<h1>Quiet, Bash</h1><pre><code>#!/bin/bash\n: &gt; to_server\n</code></pre>",
			title: "Quiet", lang: "bash", files: "run=#!/bin/bash\n: > to_server\n",
		},
		{
			name: "struck-out old name", rules: heistRules,
			body:  "<h1><s>OldName</s> NewName, Python 3</h1><pre><code>print(0)\n</code></pre>",
			title: "NewName", lang: "python3", main: "bot.py", files: "bot.py=print(0)\n",
		},
		{name: "unknown language", rules: heistRules, body: "<h1>Tape, Brainfuck</h1><pre><code>+.</code></pre>", title: "Tape",
			reject: "unknown language: Brainfuck (known: Bash, C, C++, Java, JavaScript, Python 2, Python 3)"},
		{name: "heading without language", rules: heistRules, body: "<h1>JustAName</h1><pre><code>x</code></pre>", reject: `the heading "JustAName" names no language`},
		{name: "no heading", rules: heistRules, body: "<p>code:</p><pre><code>x</code></pre>", reject: "no heading"},
		{name: "parent directory", rules: mafiaRules, body: "<h1>Evil, Bash</h1><p><code>../evil.sh</code>:</p><pre><code>rm -rf /\n</code></pre>", reject: "file name not allowed: ../evil.sh (parent directory"},
		{name: "absolute path", rules: mafiaRules, body: "<h1>Evil, Bash</h1><pre><code># file: /etc/passwd\nx\n</code></pre>", reject: "file name not allowed: /etc/passwd (absolute path"},
		{name: "hidden file", rules: mafiaRules, body: "<h1>Evil, Bash</h1><p><code>.bashrc</code></p><pre><code>x\n</code></pre>", reject: "file name not allowed: .bashrc (hidden"},
		{name: "subdirectory", rules: mafiaRules, body: "<h1>Evil, Bash</h1><p>File: lib/x.sh</p><pre><code>x\n</code></pre>", reject: "directories are not supported"},
		{name: "reserved name", rules: mafiaRules, body: "<h1>Cheat, Bash</h1><p><code>players</code>:</p><pre><code>Alice\n</code></pre>", reject: "file name not allowed: players (the engine writes this file itself)"},
		{name: "collision", rules: mafiaRules, body: "<h1>Twice, Bash</h1><p><code>a.sh</code>:</p><pre><code>1\n</code></pre><p><code>a.sh</code>:</p><pre><code>2\n</code></pre>", reject: "two code blocks are named a.sh"},
		{name: "too large", rules: mafiaRules, body: "<h1>Big, Bash</h1><pre><code>#!/bin/bash\n" + strings.Repeat("#", 5000) + "</code></pre>", reject: "code too large (5012 bytes, limit 4096)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Extract(ans(42, tc.body), tc.rules)
			if s.Hash == "" {
				t.Errorf("no hash")
			}
			if tc.reject != "" {
				if !strings.Contains(s.Reject, tc.reject) {
					t.Fatalf("reject = %q, want it to contain %q", s.Reject, tc.reject)
				}
				if len(s.Files) != 0 {
					t.Errorf("rejected submission has files %q", files(s))
				}
				if tc.title != "" && s.Title != tc.title {
					t.Errorf("title %q, want %q", s.Title, tc.title)
				}
				return
			}
			if s.Reject != "" {
				t.Fatalf("rejected: %s", s.Reject)
			}
			if s.Title != tc.title || s.Language != tc.lang || s.Main != tc.main {
				t.Errorf("title %q language %q main %q, want %q %q %q", s.Title, s.Language, s.Main, tc.title, tc.lang, tc.main)
			}
			if got := files(s); got != tc.files {
				t.Errorf("files\n got %q\nwant %q", got, tc.files)
			}
			if s.Author != "Jane & O'Brien" || s.AnswerID != 42 {
				t.Errorf("author %q id %d", s.Author, s.AnswerID)
			}
		})
	}
}

func TestSplitHeading(t *testing.T) {
	for _, tc := range []struct{ h, name, lang, key string }{
		{"Randy, Python 2", "Randy", "Python 2", "python2"},
		{"Hello, World, Python 3", "Hello, World", "Python 3", "python3"},
		{"Robin Hood - C++", "Robin Hood", "C++", "cpp"},
		{"Robin Hood—C++", "Robin Hood", "C++", "cpp"},
		{"Robin-Hood, C", "Robin-Hood", "C", "c"},
		{"Randy (Python 3.8)", "Randy", "Python 3.8", "python3"},
		{"Randy in Node.js", "Randy", "Node.js", "javascript"},
		{"Python 3, Randy", "Randy", "Python 3", "python3"},
		{"Randy, Python 2.", "Randy", "Python 2", "python2"},
		{"Randy, C (gcc)", "Randy", "C (gcc)", "c"},
		{"Randy, Java 17, 2nd version", "Randy", "Java 17", "java"},
		{"Tape, Brainfuck", "Tape", "Brainfuck", ""},
		{"Lonely", "Lonely", "", ""},
		{"Pythonista (v2)", "Pythonista", "v2", ""},
	} {
		name, lang, key := splitHeading(tc.h, testLangs)
		if name != tc.name || lang != tc.lang || key != tc.key {
			t.Errorf("splitHeading(%q) = %q, %q, %q; want %q, %q, %q", tc.h, name, lang, key, tc.name, tc.lang, tc.key)
		}
	}
}

// TestLanguageResolutionMatchesRunner keeps the scraper's resolver in step with the
// runner's (the scraper may not import the runner, so the logic is repeated).
func TestLanguageResolutionMatchesRunner(t *testing.T) {
	cfg, err := config.Load("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	langs := map[string][]string{}
	for k, l := range cfg.Languages {
		langs[k] = l.Aliases
	}
	for _, s := range []string{"Python 3", "python3", "Python 2.7.18", "Python 3.8", "C", "c (GCC)", "C++17", "g++",
		"Java 11", "Node.js", "node", "ES6", "Golang", "Go 1.22", "bash", "Shell script", "Brainfuck", "", "3", "Python (3)", "Python [numpy]"} {
		want, wok := build.ResolveLanguage(cfg.Languages, s)
		got, gok := resolveLanguage(langs, s)
		if got != want || gok != wok {
			t.Errorf("%q: scraper says %q %v, runner says %q %v", s, got, gok, want, wok)
		}
	}
}

func TestOwnerName(t *testing.T) {
	for _, tc := range []struct {
		o    Owner
		want string
	}{
		{Owner{DisplayName: "Jane &amp; Co", UserType: "registered"}, "Jane & Co"},
		{Owner{DisplayName: "&amp;lt;b&amp;gt;", UserType: "registered"}, "&lt;b&gt;"},
		{Owner{DisplayName: "user12345", UserType: "does_not_exist"}, "user12345"},
		{Owner{UserType: "does_not_exist"}, "(deleted user)"},
	} {
		if got := tc.o.Name(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.o, got, tc.want)
		}
	}
}

func TestExtractAllRejectsDuplicateNames(t *testing.T) {
	body := func(h string) string { return "<h1>" + h + "</h1><pre><code>#!/bin/bash\necho\n</code></pre>" }
	a1 := ans(100, body("Randy, Bash"))
	a2 := ans(101, body("Randy, Bash"))
	a3 := ans(102, body("Sheriff, Bash"))
	a4 := ans(103, body("Sheriff, Cobol")) // rejected: does not claim the name
	a5 := ans(104, body("R-A-N-D-Y, Python 3"))
	a1.Owner.DisplayName = "First"
	// Given newest first: the oldest answer still keeps the name.
	subs := ExtractAll([]Answer{a5, a4, a3, a2, a1}, mafiaRules)
	var got []string
	for _, s := range subs {
		r := "ok"
		if s.Reject != "" {
			r = s.Reject
		}
		got = append(got, r)
	}
	if got[4] != "ok" || got[2] != "ok" || !strings.HasPrefix(got[1], "unknown language") {
		t.Errorf("first claims rejected: %q", got)
	}
	for _, i := range []int{0, 3} {
		if !strings.Contains(got[i], `duplicate bot name`) || !strings.Contains(got[i], "answer 100 by First") {
			t.Errorf("answer %d: %q, want a duplicate-name rejection naming answer 100", subs[i].AnswerID, got[i])
		}
	}
	// Class-named challenges leave clashes to the engines.
	f := ExtractAll([]Answer{ans(1, "<h1>Same</h1><pre><code>class A(Bot):\n</code></pre>"), ans(2, "<h1>Same</h1><pre><code>class A(Bot):\n</code></pre>")}, fortyRules)
	if f[0].Reject != "" || f[1].Reject != "" {
		t.Errorf("class-block answers rejected for a shared title: %q, %q", f[0].Reject, f[1].Reject)
	}
}

func TestHashFollowsWhatMatters(t *testing.T) {
	base := Extract(ans(7, "<h1>Bot, Python 3</h1><p>Prose.</p><pre><code>print(1)\n</code></pre>"), heistRules)
	prose := Extract(ans(7, "<h1>Bot, Python 3</h1><p>Better prose, with a <a href=\"x\">link</a>.</p><pre><code>print(1)\n</code></pre>"), heistRules)
	code := Extract(ans(7, "<h1>Bot, Python 3</h1><p>Prose.</p><pre><code>print(2)\n</code></pre>"), heistRules)
	lang := Extract(ans(7, "<h1>Bot, Python 2</h1><p>Prose.</p><pre><code>print(1)\n</code></pre>"), heistRules)
	rej1 := Extract(ans(7, "<h1>Bot, Cobol</h1><pre><code>x</code></pre>"), heistRules)
	rej2 := Extract(ans(7, "<h1>Bot, Fortran</h1><pre><code>x</code></pre>"), heistRules)
	if base.Hash != prose.Hash {
		t.Errorf("editing prose changed the hash")
	}
	if base.Hash == code.Hash || base.Hash == lang.Hash || rej1.Hash == rej2.Hash || rej1.Hash == "" {
		t.Errorf("hash missed a change: base %s code %s lang %s rej %s %s", base.Hash[:8], code.Hash[:8], lang.Hash[:8], rej1.Hash, rej2.Hash)
	}
	if HashFiles([]File{{Name: "a", Content: "1"}, {Name: "b", Content: "2"}}) != HashFiles([]File{{Name: "b", Content: "2"}, {Name: "a", Content: "1"}}) ||
		HashFiles([]File{{Name: "a", Content: "12"}}) == HashFiles([]File{{Name: "a1", Content: "2"}}) {
		t.Errorf("HashFiles is order-dependent or ambiguous")
	}
}

func TestChanged(t *testing.T) {
	known := map[int64]QuestionInfo{1: {QuestionID: 1, AnswerCount: 3, LastActivityDate: 10}, 2: {QuestionID: 2, AnswerCount: 1, LastActivityDate: 5}, 5: {QuestionID: 5}}
	probed := []QuestionInfo{{QuestionID: 1, AnswerCount: 3, LastActivityDate: 10}, {QuestionID: 2, AnswerCount: 1, LastActivityDate: 6}, {QuestionID: 3, AnswerCount: 0}}
	got := Changed(known, probed)
	if len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("Changed = %v, want [2 3]", got)
	}
}
