package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/engine/bankheist"
)

// Bank Heist and Mafia runs killed with SIGKILL resume like forty's
// (TestKilledRunResumesFromCheckpoint): the next plain cycle says where it resumes, plays
// the rest, and ends with the standings of the same run played straight through. The
// bots are the snapshot's answers that draw no randomness of their own; Mafia's field
// adds Counter, which keeps a file across games that decides its votes, so the table
// equals the straight run's only if the checkpoint gave the file back.

// questionSnapshot is the bundled snapshot of question q cut to the given answers, plus
// made-up answers (id and HTML body), in a temp directory.
func questionSnapshot(t *testing.T, q int64, answers []int64, made map[int64]string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("../../testdata/snapshot/codegolf/%d/answers.1.json", q))
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Items   []map[string]any `json:"items"`
		HasMore bool             `json:"has_more"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	for _, it := range page.Items {
		if slices.Contains(answers, int64(it["answer_id"].(float64))) {
			items = append(items, it)
		}
	}
	if len(items) != len(answers) {
		t.Fatalf("the snapshot lacks some of the answers %v", answers)
	}
	for id, body := range made {
		it := map[string]any{}
		for k, v := range items[0] {
			it[k] = v
		}
		it["answer_id"], it["body"] = id, body
		items = append(items, it)
	}
	page.Items, page.HasMore = items, false
	dir := t.TempDir()
	qd := filepath.Join(dir, "codegolf", fmt.Sprint(q))
	if err := os.MkdirAll(qd, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(page)
	if err := os.WriteFile(filepath.Join(qd, "answers.1.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// challengeConfig is hostDir with lines added to challenge name's block (after its
// engine line), in place of its own games line.
func challengeConfig(t *testing.T, name, lines string) string {
	t.Helper()
	path := hostDir(t, "")
	b, _ := os.ReadFile(path)
	s := string(b)
	i := strings.Index(s, "  - name: "+name+"\n")
	j := strings.Index(s[i:], "    engine: ")
	if i < 0 || j < 0 {
		t.Fatalf("config.yaml: no challenge %s with an engine line", name)
	}
	j += i
	k := j + strings.Index(s[j:], "\n") + 1
	end := len(s)
	if e := strings.Index(s[k:], "\n  - name: "); e >= 0 {
		end = k + e + 1
	}
	var block []string
	for _, l := range strings.SplitAfter(s[k:end], "\n") {
		if !strings.HasPrefix(l, "    games: ") && l != fortyAdaptive {
			block = append(block, l)
		}
	}
	s = s[:k] + lines + strings.Join(block, "") + s[end:]
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// killAndResume kills a run of challenge after a checkpoint of at least min games, resumes
// it with a plain `kothd once`, plays the same run straight in another host, and compares
// their standings (games is the run's planned games).
func killAndResume(t *testing.T, challenge, lines, snap string, min, games int) {
	const seed = "20261126"
	cfg := challengeConfig(t, challenge, lines)
	args := []string{"--config", cfg, "--snapshot", snap, "--challenge", challenge}

	// The run played straight, in another host, meanwhile: on a busy machine the three
	// runs one after another take long.
	ref := challengeConfig(t, challenge, lines)
	q := startKothd(t, "once", "--seed", seed, "--config", ref, "--snapshot", snap, "--challenge", challenge)

	p := startKothd(t, append([]string{"once", "--seed", seed}, args...)...)
	p.waitFor(t, challenge+": run 1, seed", 10*time.Minute)
	done := waitCheckpoint(t, p, cfg, min)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, time.Minute)
	t.Logf("killed with a checkpoint after %d games", done)

	r := startKothd(t, append([]string{"once"}, args...)...)
	code := r.wait(t, 20*time.Minute)
	out, errs := r.output()
	if code != 0 {
		t.Fatalf("cycle after the kill: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if at, of := resumedAt(out); at < done || of != games {
		t.Fatalf("the cycle after the kill did not resume at game %d or later of %d:\n%s", done, games, out)
	}
	if code := q.wait(t, 20*time.Minute); code != 0 {
		out, errs := q.output()
		t.Fatalf("uninterrupted run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	resumedLikeStraight(t, cfg, ref)
}

// A Bank Heist run resumes at a tournament boundary.
func TestKilledBankHeistRunResumes(t *testing.T) {
	snap := questionSnapshot(t, 115303, []int64{115321, 115412, 115577, 115601}, nil)
	killAndResume(t, "bankheist", "    games: 80\n    options: {games_per_tournament: 10}\n", snap, 20, planned(t, 80, 10))
}

// planned is the games of a Bank Heist run of games games in tournaments of n.
func planned(t *testing.T, games, n int) int {
	t.Helper()
	// Tournament i lasts n to 1.1 n games, drawn from the run's seed.
	return bankheist.PlannedGames(bankheist.Config{Seed: 20261126, Tournaments: games / n, GamesPerTournament: n})
}

// counterBot keeps the number of games it has begun in a file, and votes for the player
// that number names: after a resume that lost the file it votes differently.
const counterBot = `<h1>Counter, Bash</h1>

<pre><code>#!/bin/bash
n=$(cat games 2&gt;/dev/null || echo 0)
if grep -q "day 0" from_server; then n=$((n+1)); echo $n &gt; games; fi
k=$(grep -c "" players)
p=$(sed -n "$(( n % k + 1 ))p" players)
echo "vote $p" &gt; to_server
</code></pre>
`

// A Mafia run resumes after its last checkpointed game, its bots' kept files restored.
// CopTrust keeps files too (its role, the dead, the suspects); the field is small, as a
// Mafia game is thousands of runs of the bots.
func TestKilledMafiaRunResumes(t *testing.T) {
	snap := questionSnapshot(t, 151341, []int64{151402, 151610}, map[int64]string{999001: counterBot})
	killAndResume(t, "mafia", "    games: 3\n", snap, 1, 3)
}
