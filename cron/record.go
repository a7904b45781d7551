package cron

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/store"
)

// play decides whether anything needs playing, plays, records and publishes.
func (c *Cycle) play(ctx context.Context, env *PlayEnv, a protocol.Protocol, opts Options, rep *Report) error {
	ch := env.Challenge
	env.Run = env.resolve(opts.Games) // the seed comes below, once resume is decided
	botset := botSetHash(env)
	last, err := c.Store.LastRun(ctx, ch.Name)
	if err != nil {
		return err
	}
	// A run the daemon did not finish (killed, stopped) is played again with its own seed,
	// so the table it publishes is the one the run would have produced.
	prev, err := c.Store.LastAttempt(ctx, ch.Name)
	if err != nil {
		return err
	}
	if err := c.upgradeBotSet(ctx, env, botset, last, prev); err != nil {
		return err
	}
	resume := opts.Seed == nil && prev != nil && (prev.Interrupted() || prev.BoardMissing()) && prev.BotSet == botset
	if !resume && !opts.Force && opts.Seed == nil && last != nil && last.BotSet == botset {
		rep.Skipped = fmt.Sprintf("nothing changed since run %d; its leaderboard stands", last.ID)
		c.printf("%s: %s\n", ch.Name, rep.Skipped)
		return c.republish(ctx, last, rep, opts.down)
	}
	if len(env.Bots) < 2 {
		rep.Skipped = fmt.Sprintf("only %d bot(s) entered; at least 2 are needed", len(env.Bots))
		c.printf("%s: %s\n", ch.Name, rep.Skipped)
		return nil
	}
	var seed uint64
	switch {
	case opts.Seed != nil:
		seed = *opts.Seed
	case resume:
		seed = prev.Seed
		// The games in flight it was played with, too: a default that changed since (a newer
		// kothd) would otherwise change the table of bots that keep state across games.
		// Rows from before the run description recorded 0 here: keep the resolved value.
		if prev.Concurrency > 0 {
			env.Run = env.Run.withConcurrency(prev.Concurrency)
		}
		// In the journal too: the daemon has no Out, and a run stopped before its first
		// checkpoint is played again without the "resuming ... from its checkpoint" line.
		c.Log.Info("playing an interrupted run again with its seed", "challenge", ch.Name, "run", prev.ID, "seed", prev.Seed)
		c.printf("%s: run %d was interrupted; playing it again with its seed %d\n", ch.Name, prev.ID, prev.Seed)
	default:
		seed = newSeed()
	}
	env.Run = env.Run.withSeed(seed)
	for i := range env.Bots {
		env.Bots[i].Seed = engine.SubSeed(seed, env.Bots[i].Name)
	}
	if err := checkAskedGames(env, opts.Games); err != nil {
		rep.Skipped = err.Error()
		return err
	}
	runID, err := c.Store.StartRun(ctx, ch.Name, seed, env.Run.Concurrency(), botset, env.Run.Games())
	if err != nil {
		return err
	}
	live := &LiveRun{Challenge: ch.Name, Run: runID, Seed: seed, Total: env.Run.Games(), Started: time.Now().UTC()}
	c.writeLive(live)
	defer c.removeLive(ch.Name)
	env.Progress = c.progressPrinter(ch.Name, live)
	rep.RunID, rep.Seed = runID, seed
	if err := c.Store.RecordRunBots(ctx, runID, env.Bots); err != nil {
		c.endRun(ctx, runID, err)
		return describe(err)
	}
	c.printf("%s: run %d, seed %d, %d bots\n", ch.Name, runID, seed, len(env.Bots))
	if checkpointable(env) {
		if env.Checkpoints, err = c.checkpoints(ctx, env, runID, prev, resume); err != nil {
			c.endRun(ctx, runID, err)
			return err
		}
	}
	start := time.Now()
	var played *Played
	if c.sharded(env) {
		played, err = c.playFitting(ctx, env, runID, func(watch bool) (*Played, error) {
			return c.playSharded(ctx, env, runID, live, watch)
		})
	} else {
		played, err = c.playFitting(ctx, env, runID, func(watch bool) (*Played, error) {
			return playRun(ctx, env, a, watch)
		})
	}
	rep.Elapsed = time.Since(start)
	if err != nil {
		c.endRun(ctx, runID, err)
		outcome := "failed"
		if ctx.Err() != nil {
			rep.Stopped, rep.Games, outcome = true, live.Done, "interrupted"
		}
		c.watch().RunEnded(ch.Name, outcome, rep.Games, rep.Elapsed)
		return fmt.Errorf("run %d: %w", runID, describe(err))
	}
	rep.Games, rep.Played = played.Result.Games, played.Games
	c.watch().RunEnded(ch.Name, "done", rep.Games, rep.Elapsed)
	c.watchDecisions(ch.Name, played.Stats)
	if v := played.Result.Voided; v > 0 {
		// Host faults (the sandbox failed, the machine ran out of processes) void games
		// rather than scoring them against a bot; a host should look at why.
		c.Log.Warn("games voided by host faults", "challenge", ch.Name, "run", runID, "voided", v)
		c.printf("%s: %d games voided by host faults (not scored)\n", ch.Name, v)
	}
	c.Log.Info("run finished", "challenge", ch.Name, "run", runID, "seed", seed, "games", rep.Games, "elapsed", rep.Elapsed)
	// A resumed run played only the games after its checkpoint this time.
	now := rep.Games
	if cp := env.Checkpoints; cp != nil && cp.Resume != nil {
		now = max(0, now-cp.Resume.Done)
	}
	c.printf("%s: %d games in %s (%s games/s)\n", ch.Name, rep.Games, rep.Elapsed.Round(time.Millisecond), rateText(float64(now)/max(rep.Elapsed.Seconds(), 1e-9)))
	if played.Ending != nil {
		c.printf("%s: %s\n", ch.Name, played.Ending)
	}
	board, err := c.board(ctx, env, played, rep, last)
	if err != nil {
		return err
	}
	if err := c.Store.FinishRunBoard(ctx, runID, played.Result, standings(env, played), publisher.JSON(board)); err != nil {
		return err
	}
	if err := c.recordMoves(ctx, board); err != nil {
		return err
	}
	return c.publish(ctx, board, rep, opts.down)
}

// checkAskedGames refuses a number of games asked for (--games) that the engine cannot
// play near enough: some play games in indivisible units (Bank Heist: whole tournaments of
// 1,000 to 1,100 games), so --games 20 would silently play 1,071. Within a tenth either way
// is the engine's own rounding and accepted; an engine that cannot say before playing
// (Planned 0) is trusted.
func checkAskedGames(env *PlayEnv, asked int) error {
	if asked <= 0 || env.Game.Planned == nil {
		return nil
	}
	planned := env.Game.Planned(env.run(), nil)
	if planned <= 0 || (planned*10 <= asked*11+10 && planned*10 >= asked*9) {
		return nil
	}
	return fmt.Errorf("--games %d: the %s engine plays its games in indivisible units and would play %d games for it, not %d; "+
		"ask for a number it can play (about %d or a multiple of it), or set a shorter unit in the challenge's options (docs/games/%s.md); nothing was played",
		asked, env.Game.Name, planned, asked, planned, env.Game.Name)
}

// checkpoints sets up the checkpoints of run runID: from the interrupted run prev's last
// one when the run resumes it (same seed, same bots), else from game 0.
func (c *Cycle) checkpoints(ctx context.Context, env *PlayEnv, runID int64, prev *store.Run, resume bool) (*Checkpoints, error) {
	games := env.plannedGames(nil) // games played in units (Bank Heist's tournaments): the units' games
	cp := &Checkpoints{Store: c.Store, RunID: runID, Every: checkpointEvery(games)}
	if !resume {
		return cp, nil
	}
	saved, err := c.Store.MoveCheckpoint(ctx, prev.ID, runID)
	if err != nil || saved == nil {
		return cp, err
	}
	if b, this := checkpointBuild(saved), publisher.Version(); b != this {
		c.Log.Warn("checkpoint written by another kothd build: playing the run again from game 0", "challenge", env.Challenge.Name, "run", prev.ID, "written_by", b, "this", this)
		c.printf("%s: run %d's checkpoint (game %d) was written by kothd %q, this is %q: playing it again from game 0\n", env.Challenge.Name, prev.ID, saved.Done, b, this)
		return cp, nil
	}
	cp.Resume = saved
	c.Log.Info("resuming an interrupted run from its checkpoint", "challenge", env.Challenge.Name, "run", prev.ID, "as", runID, "game", saved.Done, "games", games)
	c.printf("%s: resuming run %d at game %d of %d (as run %d)\n", env.Challenge.Name, prev.ID, saved.Done, games, runID)
	return cp, nil
}

func standings(env *PlayEnv, p *Played) []store.Standing {
	byName := map[string]int{}
	for i, b := range env.Bots {
		byName[b.Name] = i
	}
	var out []store.Standing
	for rank, r := range p.Result.Rows {
		st := store.Standing{Rank: rank + 1, Bot: r.Bot, Baseline: r.Baseline, Score: r.Score, Played: r.Played, Wins: r.Wins, Errors: r.Errors}
		if i, ok := byName[r.Bot]; ok {
			st.AnswerID = env.Bots[i].AnswerID
			if i < len(p.Stats) && p.Stats[i] != nil {
				st.Faults = p.Stats[i].Counts()
				if f := p.Stats[i].First(); f != nil {
					b, _ := json.Marshal(f)
					st.FirstFault = string(b)
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// board builds the run's board: the table with its statistics, compared with the last
// published board, and the history of earlier runs for the chart.
func (c *Cycle) board(ctx context.Context, env *PlayEnv, p *Played, rep *Report, last *store.Run) (*publisher.Board, error) {
	revs, err := c.Store.CurrentRevisions(ctx, env.Challenge.Name)
	if err != nil {
		return nil, err
	}
	in := publisher.Input{
		Challenge: env.Challenge.Name, Title: env.Challenge.Title, Engine: env.Challenge.Engine, QuestionID: env.Challenge.QuestionID,
		RunID: rep.RunID, Seed: env.Run.Seed(), Date: time.Now(), Sandbox: c.Sandbox.Name(),
		Result: p.Result, Bots: map[string]publisher.BotInfo{}, NotEntered: rep.Rejected, Changes: changeList(rep.Changes, revs),
		Ending: p.Ending, Lowered: p.Lowered, FirstRun: last == nil, NextRun: c.nextRun(env.Challenge.Name),
	}
	for i, e := range env.Bots {
		info := publisher.BotInfo{Bot: e}
		if r, ok := revs[e.AnswerID]; ok && e.AnswerID != 0 {
			info.ContentHash, info.Versions, info.Revision = r.Hash, r.Versions, int64(r.Site)
		}
		if i < len(p.Stats) && p.Stats[i] != nil {
			info.Faults = publisher.Faults{}
			for o, n := range p.Stats[i].Counts() {
				if o != engine.OK {
					info.Faults[o] = n
				}
			}
			if f := p.Stats[i].First(); f != nil {
				info.FirstFault = fmt.Sprintf("%s: %s\ninput: %s", f.Outcome, f.Detail, f.Input)
			}
			if b := p.Stats[i].Bench(); b != nil {
				info.Benched = &publisher.Benched{Game: b.Game, Streak: b.Streak, Calls: b.Calls, Budget: b.Budget.Seconds()}
			}
		}
		in.Bots[e.Name] = info
	}
	if last != nil {
		if raw, err := c.Store.RunBoard(ctx, last.ID); err == nil && raw != nil {
			var prev publisher.Board
			if json.Unmarshal(raw, &prev) == nil {
				in.Previous = &prev
			}
		}
	}
	past, err := c.Store.ScoreHistory(ctx, env.Challenge.Name, 30)
	if err != nil {
		return nil, err
	}
	answerOf := map[string]int64{}
	for _, e := range env.Bots {
		answerOf[e.Name] = e.AnswerID
	}
	for _, h := range past {
		in.History = append(in.History, publisher.HistoryRun{Run: h.RunID, Date: time.Unix(h.Finished, 0).UTC(), Scores: pastScores(h, answerOf)})
	}
	return publisher.Build(in), nil
}

// pastScores are a past run's scores for the chart, keyed so that a line follows one bot
// (answer and name), not a name: a past bot whose name another answer's bot holds now is
// keyed "Name (answer N)", so the chart does not join the two into one line.
func pastScores(h store.RunScores, answerOf map[string]int64) map[string]float64 {
	out := make(map[string]float64, len(h.Scores))
	for name, score := range h.Scores {
		if now, ok := answerOf[name]; ok && now != h.Answers[name] {
			name = fmt.Sprintf("%s (answer %d)", name, h.Answers[name])
		}
		out[name] = score
	}
	return out
}

// recordMoves records the board's significant moves as events.
func (c *Cycle) recordMoves(ctx context.Context, b *publisher.Board) error {
	for _, ch := range b.Changes {
		if ch.Kind == "up" || ch.Kind == "down" {
			if err := c.Store.AddEvent(ctx, b.Challenge, "rank", ch.AnswerID, fmt.Sprintf("%s %s from %d to %d", ch.Bot, ch.Kind, ch.From, ch.To)); err != nil {
				return err
			}
		}
	}
	return nil
}

// republish brings the last run's board up to date without playing: the answers not
// entered as they stand now (a new broken answer must learn why at once) and this fetch's
// changes. Sinks that already hold exactly that are left alone; one whose last publication
// failed gets it now.
func (c *Cycle) republish(ctx context.Context, last *store.Run, rep *Report, down map[string]error) error {
	raw, err := c.Store.RunBoard(ctx, last.ID)
	if err != nil || raw == nil {
		return err
	}
	var b publisher.Board
	if err := json.Unmarshal(raw, &b); err != nil {
		return fmt.Errorf("board of run %d unreadable: %w", last.ID, err)
	}
	if b.SchemaVersion != publisher.SchemaVersion {
		c.Log.Warn("board of the last run is in an older format; it is published again after the next run", "run", last.ID)
		return nil
	}
	revs, err := c.Store.CurrentRevisions(ctx, b.Challenge)
	if err != nil {
		return err
	}
	b.NotEntered = publisher.BoundNotEntered(rep.Rejected)
	b.Run.NextRun = c.nextRun(b.Challenge)
	b.Changes = append(b.Changes, publisher.FetchChanges(&b, changeList(rep.Changes, revs), false)...)
	return c.publish(ctx, &b, rep, down)
}

// publish writes the board to every sink whose last publication differs. Targets are
// independent: a failure (or a target down since its check, in down) is recorded for
// status and in rep.Targets, and the others are still written. The error is for what is
// not a target's: the board refused (guardBoard) or the store failing.
func (c *Cycle) publish(ctx context.Context, b *publisher.Board, rep *Report, down map[string]error) error {
	if err := c.guardBoard(b); err != nil {
		return err
	}
	files := publisher.Files(b)
	hash := publisher.Hash(files)
	for _, s := range c.Sinks {
		out := TargetOutcome{Target: s.Target()}
		prev, err := c.Store.LastPublication(ctx, b.Challenge, s.Target())
		if err != nil {
			return err
		}
		if prev == hash {
			out.Current = true
			rep.Targets = append(rep.Targets, out)
			continue
		}
		commit := ""
		if out.Err = down[s.Target()]; out.Err == nil {
			commit, out.Err = s.Publish(ctx, files, fmt.Sprintf("%s: run %d, %d games, seed %d", b.Challenge, b.Run.ID, b.Run.Games, b.Run.Seed))
		}
		if out.Err != nil {
			rep.Targets = append(rep.Targets, out)
			if ctx.Err() != nil {
				continue // stopped on request: not the target's failure
			}
			c.watch().Published(b.Challenge, s.Target(), false)
			c.Log.Error("publish failed; the next cycle retries", "challenge", b.Challenge, "target", s.Target(), "err", out.Err)
			c.printf("%s: publication to %s failed (the next cycle retries): %v\n", b.Challenge, s.Target(), out.Err)
			// An event, so `kothd status` can say why the board is not out.
			if eerr := c.Store.AddEvent(context.WithoutCancel(ctx), b.Challenge, store.PublishFailedEvent, 0, s.Target()+": "+out.Err.Error()); eerr != nil {
				c.Log.Error("record failed publication", "err", eerr)
			}
			continue
		}
		if err := c.Store.RecordPublication(ctx, b.Challenge, b.Run.ID, s.Target(), hash, commit); err != nil {
			return err
		}
		out.Published = true
		c.watch().Published(b.Challenge, s.Target(), true)
		rep.Targets = append(rep.Targets, out)
		rep.Published = append(rep.Published, s.Target())
		c.printf("%s: leaderboard written to %s\n", b.Challenge, s.Target())
	}
	// After the sinks, whatever they did; a target like them (cron/question.go).
	if out, ok := c.publishQuestion(ctx, b); ok {
		rep.Targets = append(rep.Targets, out)
		if out.Published {
			rep.Published = append(rep.Published, out.Target)
		}
	}
	// Then the participants whose answers are not entered (cron/comments.go).
	c.commentOnAnswers(ctx, b)
	return nil
}

// changeList describes a fetch's changes for the board, with each edit's time.
func changeList(changes []store.Change, revs map[int64]store.Revision) []publisher.Change {
	var out []publisher.Change
	for _, ch := range changes {
		c := publisher.Change{Kind: ch.Kind, AnswerID: ch.AnswerID, Title: ch.Title, Author: ch.Author}
		switch ch.Kind {
		case "unchanged":
			continue
		case "deleted":
			c.Kind = "withdrawn"
		case "edited":
			if r, ok := revs[ch.AnswerID]; ok && r.Edited > 0 {
				t := time.Unix(r.Edited, 0).UTC()
				c.Edited = &t
			}
		}
		out = append(out, c)
	}
	return out
}
