package cron

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/store"
)

func botsetEnv(dataDir string) *PlayEnv {
	dir := func(s string) string { return filepath.Join(dataDir, "bots", "forty", s) }
	return &PlayEnv{Env: protocol.Env{
		Config:    &config.Config{Python: "/usr/bin/python3"},
		Challenge: &config.Challenge{Name: "forty", Engine: "forty", Protocol: "pyclass", Games: 10, Limits: config.Limits{MemoryMB: 1024}},
		Bots: []engine.Bot{
			{Entrant: engine.Entrant{Name: "A"}, AnswerID: 1, Dir: dir("1-0123456789ab")},
			{Entrant: engine.Entrant{Name: "B"}, AnswerID: 2, Dir: dir("2-ba9876543210")},
			{Entrant: engine.Entrant{Name: "Baseline", Baseline: true}},
		},
	}}
}

// The bot-set hash is what the bots are, not where they lie: the same bots under another
// spelling or place of the data directory hash alike (they used to play a new run); a
// change of content, language (run command), limits or Python does not.
func TestBotSetHashIsContentNotPlace(t *testing.T) {
	base := botSetHash(botsetEnv("/srv/kothd/data"))
	for _, d := range []string{"data", "/srv/kothd/./data", "/restored/elsewhere/data"} {
		if h := botSetHash(botsetEnv(d)); h != base {
			t.Errorf("data directory %q: hash %s, want %s", d, h, base)
		}
	}
	changes := map[string]func(e *PlayEnv){
		"content":  func(e *PlayEnv) { e.Bots[0].Dir = filepath.Join(filepath.Dir(e.Bots[0].Dir), "1-ffffffffffff") },
		"language": func(e *PlayEnv) { e.Bots[1].Run = []string{"/usr/bin/python3", "bot.py"} },
		"limits":   func(e *PlayEnv) { e.Challenge.Limits.CallTimeout = config.Duration(1e9) },
		"python":   func(e *PlayEnv) { e.Config.Python = "/usr/bin/python3.11" },
		"name":     func(e *PlayEnv) { e.Bots[0].Name = "A2" },
	}
	for what, change := range changes {
		e := botsetEnv("/srv/kothd/data")
		change(e)
		if botSetHash(e) == base {
			t.Errorf("a change of %s keeps the hash", what)
		}
	}
	if !strings.HasPrefix(base, botSetHashVersion) {
		t.Errorf("hash %q lacks its version", base)
	}
}

// A store's runs hashed by an earlier kothd (name and directory path) are recognised and
// rewritten in today's definition, so upgrading does not play the same bots again; a
// legacy hash of other bots is left alone (those bots did change).
func TestUpgradeBotSetRewritesLegacyHash(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.DB().Exec(`INSERT INTO challenges (name, question_id) VALUES ('forty', 177765)`); err != nil {
		t.Fatal(err)
	}
	env := botsetEnv("/srv/kothd/data")
	other := botsetEnv("/srv/kothd/data")
	other.Bots = other.Bots[:2]
	sameID, _ := st.StartRun(ctx, "forty", 1, 1, legacyBotSetHash(env), 10)
	otherID, _ := st.StartRun(ctx, "forty", 2, 1, legacyBotSetHash(other), 10)
	same, _ := st.GetRun(ctx, sameID)
	diff, _ := st.GetRun(ctx, otherID)
	c := &Cycle{Store: st}
	now := botSetHash(env)
	if err := c.upgradeBotSet(ctx, env, now, same, diff, nil); err != nil {
		t.Fatal(err)
	}
	if r, _ := st.GetRun(ctx, sameID); r.BotSet != now || same.BotSet != now {
		t.Errorf("legacy hash of the same bots not rewritten: stored %q, in memory %q, want %q", r.BotSet, same.BotSet, now)
	}
	if r, _ := st.GetRun(ctx, otherID); r.BotSet != legacyBotSetHash(other) {
		t.Errorf("legacy hash of other bots rewritten to %q", r.BotSet)
	}
}

// A setting added later and left unset does not change the hash (limits are hashed
// without their zero fields).
func TestNonZeroJSONIgnoresUnsetFields(t *testing.T) {
	type v1 struct{ A int }
	type v2 struct {
		A int
		B int
		C string
		D bool
	}
	if a, b := nonZeroJSON(v1{A: 3}), nonZeroJSON(v2{A: 3}); a != b {
		t.Errorf("%s != %s", a, b)
	}
	if a, b := nonZeroJSON(v1{A: 3}), nonZeroJSON(v2{A: 3, B: 1}); a == b {
		t.Errorf("a set field is ignored: %s", a)
	}
}

// The bot set's hash holds each challenge's decoded options as JSON. They are decoded
// straight into the engines' own option types, whose fields the run sets are marked
// json:"-": their JSON must stay what the earlier, options-only types gave, or every host
// would play its unchanged bots again after an upgrade.
func TestOptionsJSONIsStable(t *testing.T) {
	want := map[string]string{
		"bankheist":     `{"GamesPerTournament":20}`,
		"ruins":         `{"SeedString":"K48XMESC","GameSize":0,"PoolGames":0,"Lead":0,"MaxFinals":0}`,
		"whiteelephant": `{"WinningScore":20}`,
	}
	blocks := map[string]string{"bankheist": "games_per_tournament: 20", "ruins": "seed_string: K48XMESC", "whiteelephant": "winning_score: 20"}
	for name, w := range want {
		g, err := all.Games().Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		var node yaml.Node
		if err := yaml.Unmarshal([]byte(blocks[name]), &node); err != nil {
			t.Fatal(err)
		}
		o, err := g.DecodeOptions(node.Content[0])
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(o); string(got) != w {
			t.Errorf("%s: options JSON %s, want %s", name, got, w)
		}
	}
}
