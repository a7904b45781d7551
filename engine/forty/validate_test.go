package forty_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/cron/crontest"
)

// A bot enters only after a validation game in which its decisions are made: one against
// the game's baselines, real harness processes under bwrap. Bots that fault on every one
// of their decisions are not entered, with the first fault and its input; a bot that
// faults on some decisions only is entered. `kothd check` comes to the same verdicts (the
// same code path), with the same reasons.
func TestValidationPlaysDecisions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type want struct {
		enter  bool
		reason []string // parts of the "not entered" reason
	}
	bots := []struct {
		name, code string
		want
	}{
		{"Honest", "class Honest(Bot):\n    def make_throw(self, scores, last_round):\n        while sum(self.current_throws) < 15:\n            yield True\n        yield False\n",
			want{enter: true}},
		// Faults on every other decision it is asked: the rest are decisions all the same.
		{"Sometimes", "class Sometimes(Bot):\n    n = 0\n    def make_throw(self, scores, last_round):\n        Sometimes.n += 1\n        if Sometimes.n % 2:\n            raise ValueError('odd call')\n        yield False\n",
			want{enter: true}},
		// SafetyNet's mistake: return where the harness iterates a generator.
		{"ReturnsBool", "class ReturnsBool(Bot):\n    def make_throw(self, scores, last_round):\n        return sum(self.current_throws) < 12\n",
			want{reason: []string{"faulted on every one of its", "TypeError: 'bool' object is not iterable", "\ninput: start {\"throws\":["}}},
		{"Misspelt", "class Misspelt(Bot):\n    def make_trow(self, scores, last_round):\n        yield True\n",
			want{reason: []string{"class Misspelt does not define make_throw: it would only play Bot's (never throws again); it defines make_trow"}}},
		// No network in the sandbox: every decision raises.
		{"Fetcher", "import urllib.request\nclass Fetcher(Bot):\n    def make_throw(self, scores, last_round):\n        urllib.request.urlopen('http://example.com/', timeout=0.05)\n        yield True\n",
			want{reason: []string{"crash: ", "URLError", "\ninput: start "}}},
		{"Spinner", "class Spinner(Bot):\n    def make_throw(self, scores, last_round):\n        while True:\n            pass\n        yield False\n",
			want{reason: []string{"faulted on every one of its", "timeout", "\ninput: start "}}},
	}
	var bodies []string
	for _, b := range bots {
		bodies = append(bodies, "<h1>"+b.name+"</h1><pre><code>"+htmlEscape(b.code)+"</code></pre>")
	}
	src := crontest.WriteSnapshot(t, filepath.Join(dir, "snap"), 177765, bodies)
	cy := crontest.NewCycle(t, dir)
	cy.Source = src
	ch, err := cy.Config.Challenge("forty")
	if err != nil {
		t.Fatal(err)
	}
	ch.Baselines = false
	// Short calls: the spinner spends a call's time on each of its decisions. CPU time, so
	// a loaded host does not turn the honest bots' calls into timeouts.
	ch.Limits.CallTimeout = config.Duration(300 * time.Millisecond)
	ctx := context.Background()
	seed := uint64(3)
	rep, err := cy.Run(ctx, ch, cron.Options{Games: 10, Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	rejected := map[string]string{}
	for _, r := range rep.Rejected {
		if r.Status != "failed validation" {
			t.Errorf("%s: status %q (%s)", r.Name, r.Status, r.Reason)
		}
		rejected[r.Name] = r.Reason
	}
	for k, b := range bots {
		reason, out := rejected[b.name]
		switch {
		case b.enter && out:
			t.Errorf("%s not entered: %s", b.name, reason)
		case !b.enter && !out:
			t.Errorf("%s entered", b.name)
		}
		for _, part := range b.reason {
			if !strings.Contains(reason, part) {
				t.Errorf("%s: reason %q lacks %q", b.name, reason, part)
			}
		}
		if len(reason) > 1600 {
			t.Errorf("%s: reason of %d bytes", b.name, len(reason))
		}
		// check says what the cycle said.
		cr, err := cy.Check(ctx, ch, int64(177766+k))
		if err != nil {
			t.Fatal(err)
		}
		if len(cr.Bots) != 1 {
			t.Fatalf("check %s: %+v", b.name, cr)
		}
		got := cr.Bots[0]
		switch {
		case b.enter && got.Status != cron.WouldEnter:
			t.Errorf("check %s: %s: %s", b.name, got.Status, got.Reason)
		case !b.enter && (got.Status != "failed validation" || sameVerdict(got.Reason) != sameVerdict(reason)):
			t.Errorf("check %s: %s: %q, the cycle said %q", b.name, got.Status, got.Reason, reason)
		}
	}
	if rep.Entered != 2 {
		t.Errorf("entered %d", rep.Entered)
	}
}

// SafetyNet (answer 178141 of the bundled snapshot) returns a bool where the harness
// iterates a generator: check says it is not entered, with the TypeError and the input.
func TestCheckSafetyNet(t *testing.T) {
	t.Parallel()
	cy := crontest.NewCycle(t, t.TempDir())
	ch, err := cy.Config.Challenge("forty")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := cy.Check(context.Background(), ch, 178141)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Bots) != 1 || rep.Bots[0].Name != "SafetyNet" || rep.Bots[0].Status != "failed validation" {
		t.Fatalf("check: %+v", rep)
	}
	for _, part := range []string{"crash: TypeError: 'bool' object is not iterable", "\ninput: start {\"throws\":["} {
		if !strings.Contains(rep.Bots[0].Reason, part) {
			t.Errorf("reason %q lacks %q", rep.Bots[0].Reason, part)
		}
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// sameVerdict is a validation reason with a timeout's detail cut: which limit a spinning bot
// hits first (its CPU time, the call's wall time, the batch's deadline) depends on how busy
// the host is, and check and the cycle play at different moments. Everything else, the
// decision's input included, must be the same.
func sameVerdict(reason string) string {
	head, rest, ok := strings.Cut(reason, "timeout: ")
	if !ok {
		return reason
	}
	_, input, _ := strings.Cut(rest, "\ninput: ")
	return head + "timeout: …\ninput: " + input
}
