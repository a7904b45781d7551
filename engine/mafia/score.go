package mafia

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kothd/kothd/engine"
)

// Columns of the leaderboard after Bot (spec §6); Rank and Faults are the publisher's.
var Columns = []string{"Score", "Village W/G", "Villager ratio", "Mafia W/G", "Mafia ratio", "Win rate", "Games"}

// Legend says what the columns mean (§6), for the board.
var Legend = map[string]string{
	"Score":          "villager ratio and mafia ratio, each less the field's mean",
	"Village W/G":    "wins and games on the village's side (villager, cop, doctor)",
	"Villager ratio": "village wins per village game",
	"Mafia W/G":      "wins and games as mafia",
	"Mafia ratio":    "mafia wins per mafia game",
	"Win rate":       "wins per game, either side",
	"Games":          "games played",
}

// tally is one listed bot's record over the scored games.
type tally struct {
	villageGames, villageWins int
	mafiaGames, mafiaWins     int
	faults                    int
}

func ratio(w, g int) (float64, bool) {
	if g == 0 {
		return 0, false
	}
	return float64(w) / float64(g), true
}

// Score builds the table of a tournament (spec §6): for each listed bot, the villager and
// mafia win ratios over the scored games, each minus its mean over the listed bots; a
// ratio with no games is left out of its mean and adds nothing to the bot's score.
// Abandoned and voided games are not scored.
func Score(entrants []engine.Entrant, lineup Lineup, games []GameResult) *engine.Result {
	t := make([]tally, len(entrants))
	var scored, voided, abandoned, village, mafia, days int
	var why string // the first voided game's host fault
	for _, g := range games {
		switch g.Outcome {
		case Voided:
			if voided++; why == "" {
				why = g.Detail
			}
			continue
		case Abandoned:
			abandoned++
		case VillageVictory:
			village++
		case MafiaVictory:
			mafia++
		}
		for b := range t {
			t[b].faults += g.Faults[b]
		}
		if g.Outcome != Abandoned {
			addGame(t, g)
			scored++
			days += g.Days
		}
	}
	res := table(entrants, t)
	res.Games, res.Voided = scored, voided
	res.Summary = summary(lineup, scored, village, mafia, abandoned, voided, days, why)
	rescore(res, entrants, games)
	return res
}

// addGame adds a scored game's roles and outcome to the tallies.
func addGame(t []tally, g GameResult) {
	for b := range t {
		if g.Roles[b].Mafia() {
			t[b].mafiaGames++
			if g.Outcome == MafiaVictory {
				t[b].mafiaWins++
			}
		} else {
			t[b].villageGames++
			if g.Outcome == VillageVictory {
				t[b].villageWins++
			}
		}
	}
}

// rescore lets the publisher bootstrap over the scored games.
func rescore(res *engine.Result, entrants []engine.Entrant, games []GameResult) {
	r := &resampler{entrants: entrants}
	for _, g := range games {
		if g.Outcome != Voided && g.Outcome != Abandoned {
			r.scored = append(r.scored, g)
		}
	}
	res.Units, res.UnitName, res.Resample = len(r.scored), "games", r
}

// resampler scores a resample of the games as a whole: a bot's score is relative to the
// field's mean ratios, not a sum of per-game values.
type resampler struct {
	entrants []engine.Entrant
	scored   []GameResult
}

func (r *resampler) Rescore(units []int) map[string]float64 {
	t := make([]tally, len(r.entrants))
	for _, u := range units {
		addGame(t, r.scored[u])
	}
	out := make(map[string]float64, len(r.entrants))
	for _, row := range table(r.entrants, t).Rows {
		out[row.Bot] = row.Score
	}
	return out
}

// table scores the tallies and sorts the rows: score, then overall win rate, then name.
func table(entrants []engine.Entrant, t []tally) *engine.Result {
	res := &engine.Result{Columns: Columns, Legend: Legend}
	meanV, meanM := means(t)
	for b, e := range entrants {
		s := t[b]
		score := 0.0
		vr, okV := ratio(s.villageWins, s.villageGames)
		mr, okM := ratio(s.mafiaWins, s.mafiaGames)
		if okV {
			score += vr - meanV
		}
		if okM {
			score += mr - meanM
		}
		// Rounded so that float noise in the means cannot break a tie the tie-breaks decide.
		score = math.Round(score*1e9) / 1e9
		played := s.villageGames + s.mafiaGames
		wins := s.villageWins + s.mafiaWins
		res.Rows = append(res.Rows, engine.Row{
			Bot: e.Name, Baseline: e.Baseline, Score: score, Played: played, Wins: wins, Errors: s.faults,
			Cells: []string{
				fixed(score),
				fmt.Sprintf("%d/%d", s.villageWins, s.villageGames), ratioCell(vr, okV),
				fmt.Sprintf("%d/%d", s.mafiaWins, s.mafiaGames), ratioCell(mr, okM),
				ratioCell(ratio(wins, played)), strconv.Itoa(played),
			},
		})
	}
	sort.SliceStable(res.Rows, func(i, j int) bool {
		a, b := res.Rows[i], res.Rows[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		ra, _ := ratio(a.Wins, a.Played)
		rb, _ := ratio(b.Wins, b.Played)
		if ra != rb {
			return ra > rb
		}
		return a.Bot < b.Bot
	})
	return res
}

// means returns the mean villager and mafia ratios over the bots that have such games.
func means(t []tally) (float64, float64) {
	var sv, sm float64
	var nv, nm int
	for _, s := range t {
		if r, ok := ratio(s.villageWins, s.villageGames); ok {
			sv += r
			nv++
		}
		if r, ok := ratio(s.mafiaWins, s.mafiaGames); ok {
			sm += r
			nm++
		}
	}
	return sv / float64(max(nv, 1)), sm / float64(max(nm, 1))
}

func summary(lineup Lineup, scored, village, mafia, abandoned, voided, days int, why string) []string {
	out := []string{fmt.Sprintf("%s scored: %s, %s.", count(scored, "game"), count(village, "village victory"), count(mafia, "mafia victory"))}
	if scored > 0 {
		out = append(out, fmt.Sprintf("Average length: %.2f days (day 0 included).", float64(days)/float64(scored)))
	}
	if abandoned > 0 {
		out = append(out, fmt.Sprintf("%s abandoned (nobody died in %d days and nights) and not scored.", count(abandoned, "game"), StalemateDays))
	}
	if voided > 0 {
		out = append(out, fmt.Sprintf("%s voided by host faults (the first: %s).", count(voided, "game"), why))
	}
	if f := len(lineup.Names) - lineup.Bots; f > 0 && lineup.Bots > 0 {
		out = append(out, fmt.Sprintf("Fewer than %d bots: %s played in every game.", MinPlayers, count(f, "Randy filler")))
	}
	return out
}

// count writes "1 game", "2 games", "3 village victories".
func count(n int, noun string) string {
	if n != 1 {
		if s, ok := strings.CutSuffix(noun, "y"); ok {
			noun = s + "ies"
		} else {
			noun += "s"
		}
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// fixed formats a score with three decimals and a sign, never "-0.000".
func fixed(x float64) string {
	s := fmt.Sprintf("%+.3f", x)
	if s == "-0.000" || s == "+0.000" {
		return "0.000"
	}
	return s
}

func ratioCell(r float64, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.3f", r)
}
