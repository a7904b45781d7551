package cron

import (
	"strings"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/scraper"
)

// Only the toolchains of languages the answers use are required: a table with a language
// whose compiler is not installed stops nothing until an answer in it comes, and then only
// its challenge, naming the language (preflight demanded every language of the table, so a
// host without a JDK had a daemon that exited at start, for ever).
func TestOnlyLanguagesInUseAreChecked(t *testing.T) {
	c := &Cycle{Config: &config.Config{Languages: map[string]config.Language{
		"bash": {Run: []string{"bash", "bot.sh"}},
		"java": {Build: []string{"/nonexistent/jdk/bin/javac", "Bot.java"}, Run: []string{"/nonexistent/jdk/bin/java", "Bot"}},
	}}}
	ch := &config.Challenge{Name: "bankheist", Protocol: "argv"}
	bash := []scraper.Submission{{AnswerID: 1, Language: "bash"}, {AnswerID: 2, Reject: "no code", Language: "java"}}
	if err := c.checkLanguages(ch, bash); err != nil {
		t.Errorf("answers in bash only (a refused one in java): %v", err)
	}
	err := c.checkLanguages(ch, append(bash, scraper.Submission{AnswerID: 3, Language: "java"}))
	if err == nil || !strings.Contains(err.Error(), "language java: /nonexistent/jdk/bin/javac, /nonexistent/jdk/bin/java not found") || strings.Contains(err.Error(), "bash") {
		t.Errorf("an answer in java without its JDK: %v", err)
	}
	if err := c.checkLanguages(&config.Challenge{Name: "forty", Protocol: "pyclass"}, []scraper.Submission{{Language: "java"}}); err != nil {
		t.Errorf("a Python-class challenge: %v", err)
	}
}
