package cron

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/kothd/kothd/config"
)

// A cycle whose probe finds no activity on the question plays nothing (the leaderboard
// stands). But the host's own change to what a run plays (games, concurrency, baselines,
// exclude, options, adaptive length, the bots' limits, how answers are extracted, the
// Python of Python-class bots) is news the API cannot report: the config's play settings
// are remembered after each cycle that reached the challenge, and a cycle that finds them
// changed fetches and plays (play then decides, by the bot-set hash, whether the run
// differs from the last one).

// playSettingsKey is the store's key for the challenge's remembered play settings.
func playSettingsKey(challenge string) string { return "play settings " + challenge }

// playSettings is a hash of the parts of the config that change what a run of ch plays.
func playSettings(cfg *config.Config, ch *config.Challenge) string {
	var opts any
	if err := ch.Options.Decode(&opts); err != nil || ch.Options.Kind == 0 {
		opts = nil
	}
	python := ""
	if ch.Protocol == "pyclass" {
		python = cfg.Python
	}
	b, _ := json.Marshal(struct {
		Engine, Protocol string
		Games            int
		Concurrency      int
		Baselines        bool
		Exclude          []string
		Limits           string
		Extract          config.Extract
		Options          any
		Adaptive         *config.Adaptive
		Python           string
	}{ch.Engine, ch.Protocol, ch.Games, ch.Concurrency, ch.Baselines, ch.Exclude, nonZeroJSON(ch.Limits), ch.Extract, opts, ch.Adaptive, python})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// settingsChanged says why ch must be played although its question shows no activity: the
// config changed what a run plays since the last cycle that reached it; "" when not, or
// when nothing is remembered yet (a store from before this was kept: nothing is replayed
// on upgrading).
func (c *Cycle) settingsChanged(ctx context.Context, ch *config.Challenge) string {
	was, err := c.Store.APIValue(ctx, playSettingsKey(ch.Name))
	if err != nil {
		c.Log.Error("read the remembered play settings", "challenge", ch.Name, "err", err)
		return ""
	}
	if was == "" || was == playSettings(c.Config, ch) {
		return ""
	}
	return "the config changed what a run plays (games, concurrency, baselines, exclude, options, adaptive, limits, extract or python)"
}

// rememberSettings records ch's play settings after a cycle reached it.
func (c *Cycle) rememberSettings(ctx context.Context, ch *config.Challenge) {
	if err := c.Store.SetAPIValue(ctx, playSettingsKey(ch.Name), playSettings(c.Config, ch)); err != nil {
		c.Log.Error("remember the play settings", "challenge", ch.Name, "err", err)
	}
}
