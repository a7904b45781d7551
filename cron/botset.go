package cron

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kothd/kothd/store"
)

// botSetHashVersion starts every bot-set hash of the current definition; a stored hash
// without it is of an earlier kothd (legacyBotSetHash).
const botSetHashVersion = "v2:"

// botSetHash identifies what a run plays, by content and never by place, so the same bots
// under another spelling of the same paths (a relative --config, a data directory
// restored elsewhere) are the same run: the settings that change results (engine, games,
// concurrency, the engine's options, adaptive length, the bots' limits, the Python of
// Python-class bots), and per bot its name, its answer and the hash of its source files
// (its directory's name, "<answer>-<content hash>", never the directory's path) and the
// command that runs it (its language).
func botSetHash(env *PlayEnv) string {
	h := sha256.New()
	ch := env.Challenge
	opts, _ := json.Marshal(env.Run.Options())
	// The games and concurrency as asked, not resolved: the hashes stored by earlier
	// builds were made so, and a game's default is part of its build anyway.
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00", ch.Engine, env.Run.Asked(), ch.Concurrency, opts)
	if k := adaptiveKey(env); k != "" {
		fmt.Fprintf(h, "%s\x00", k)
	}
	fmt.Fprintf(h, "limits %s\x00", nonZeroJSON(ch.Limits))
	if ch.Protocol == "pyclass" {
		fmt.Fprintf(h, "python %s\x00", env.Config.Python)
	}
	if k := refereeKey(env); k != "" { // a challenge whose rules are the host's program
		fmt.Fprintf(h, "referee %s\x00", k)
	}
	for _, b := range env.Bots {
		where := ""
		if b.Dir != "" {
			where = filepath.Base(b.Dir)
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", b.Name, where, strings.Join(b.Run, "\x01"))
	}
	return botSetHashVersion + hex.EncodeToString(h.Sum(nil))
}

// nonZeroJSON is v as JSON without its zero-valued fields, so a new setting added to a
// struct (a limit left unset) does not change the hash of every host's bots.
func nonZeroJSON(v any) string {
	b, _ := json.Marshal(v)
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return string(b)
	}
	for k, x := range m {
		switch x := x.(type) {
		case nil:
			delete(m, k)
		case bool:
			if !x {
				delete(m, k)
			}
		case float64:
			if x == 0 {
				delete(m, k)
			}
		case string:
			if x == "" {
				delete(m, k)
			}
		}
	}
	b, _ = json.Marshal(m) // map keys sorted
	return string(b)
}

// legacyBotSetHash is the definition of kothd before botSetHashVersion: the bots by name
// and directory path. Kept to recognise a store's last run after an upgrade.
func legacyBotSetHash(env *PlayEnv) string {
	h := sha256.New()
	opts, _ := json.Marshal(env.Run.Options())
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00", env.Challenge.Engine, env.Run.Asked(), env.Challenge.Concurrency, opts)
	if k := adaptiveKey(env); k != "" {
		fmt.Fprintf(h, "%s\x00", k)
	}
	for _, b := range env.Bots {
		fmt.Fprintf(h, "%s\x00%s\x00", b.Name, b.Dir)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// upgradeBotSet rewrites, in today's definition, the hash of the last run and of the last
// attempt when they are of an earlier kothd and of these very bots: upgrading kothd does
// not play the same bots again, nor start an interrupted run afresh.
func (c *Cycle) upgradeBotSet(ctx context.Context, env *PlayEnv, botset string, runs ...*store.Run) error {
	legacy := ""
	for _, r := range runs {
		if r == nil || strings.HasPrefix(r.BotSet, botSetHashVersion) {
			continue
		}
		if legacy == "" {
			legacy = legacyBotSetHash(env)
		}
		if r.BotSet != legacy {
			continue
		}
		if err := c.Store.SetBotSet(ctx, r.ID, botset); err != nil {
			return err
		}
		r.BotSet = botset
	}
	return nil
}
