package publisher

import (
	"fmt"
	"math"
	"strings"
)

// How many more games would separate ranks that stay wide: an estimate from the board's own
// intervals, whose width shrinks about as 1/√games. A group of bots whose rank ranges overlap
// (1–15) splits at a place k when every bot above k has its interval wholly above every
// bot's below; with n' games instead of n the intervals are √(n/n') as wide about the same
// scores, so the split needs n' = n·((lowWidth_i + highWidth_j)/(score_i − score_j))² for the
// hardest pair i above, j below. The first split is the easiest place; the group is ordered
// one by one when the hardest is.

// Separation is a group of bots whose ranks the run left wide, and how many more games
// would separate them, as estimated from the intervals.
type Separation struct {
	Ranks [2]int `json:"ranks"` // the group's ranks, first and last
	// FirstSplit is how many more games would split the group in two (somewhere), nil when
	// no number of games would (equal scores) or past a thousand times the games played.
	FirstSplit *int `json:"more_games_first_split"`
	// Ordered is how many more games would give every bot of the group a rank of its own,
	// nil as FirstSplit.
	Ordered *int `json:"more_games_ordered"`
}

// maxFactor bounds the estimate: past a thousand times the games played, the scores are
// too close for games to settle, and the board says so rather than print a number.
const maxFactor = 1000

// separations estimates, for each group of rows whose rank ranges the run left wide.
func separations(b *Board) []Separation {
	rows := b.Rows
	n := b.Run.Games
	if n <= 0 || len(rows) < 2 {
		return nil
	}
	var out []Separation
	for start := 0; start < len(rows); {
		end := start // the group: rows start..end, closed where no rank range crosses
		reach := rangeOf(rows[start])[1]
		for end+1 < len(rows) && reach > end+1 {
			end++
			reach = max(reach, rangeOf(rows[end])[1])
		}
		if end > start {
			if s, ok := separate(rows[start:end+1], n); ok {
				s.Ranks = [2]int{start + 1, end + 1}
				out = append(out, s)
			}
		}
		start = end + 1
	}
	return out
}

// separate estimates the games that split and order a group; false when its rows have no
// intervals to estimate from.
func separate(g []Row, games int) (Separation, bool) {
	var s Separation
	first, all := math.Inf(1), 0.0
	for k := 0; k+1 < len(g); k++ { // the place between g[k] and g[k+1]
		f := math.Inf(1) // the largest width factor (new width / old) at which the place is split
		for i := 0; i <= k; i++ {
			for j := k + 1; j < len(g); j++ {
				a, c := g[i], g[j]
				if a.Interval == nil || c.Interval == nil {
					return s, false
				}
				gap := a.Score - c.Score
				w := (a.Score - a.Interval.Low) + (c.Interval.High - c.Score)
				switch {
				case gap <= 0:
					f = 0
				case w > 0:
					f = min(f, gap/w)
				}
			}
		}
		need := math.Inf(1) // games in all
		if f > 0 && !math.IsInf(f, 1) {
			need = float64(games) / (f * f)
		} else if math.IsInf(f, 1) {
			need = float64(games)
		}
		first = min(first, need)
		all = max(all, need)
	}
	s.FirstSplit, s.Ordered = moreGames(first, games), moreGames(all, games)
	return s, true
}

// moreGames is need − games, to two significant digits; nil past maxFactor.
func moreGames(need float64, games int) *int {
	if math.IsInf(need, 0) || need > maxFactor*float64(games) {
		return nil
	}
	more := max(need-float64(games), 0)
	if more >= 100 {
		p := math.Pow(10, math.Floor(math.Log10(more))-1)
		more = math.Round(more/p) * p
	}
	m := int(math.Ceil(more))
	return &m
}

// separationText is the board's paragraph on wide ranks, "" when none.
func separationText(b *Board) string {
	if len(b.Separation) == 0 {
		return ""
	}
	var parts []string
	for _, s := range b.Separation {
		p := fmt.Sprintf("ranks %d–%d ", s.Ranks[0], s.Ranks[1])
		switch {
		case s.FirstSplit == nil:
			p += "are too close for more games to separate (more than a thousand times the games played)"
		case s.Ordered == nil:
			p += fmt.Sprintf("would start to split after about %s more games; ordering all of them would take more than a thousand times the games played", thousands(*s.FirstSplit))
		case *s.FirstSplit == *s.Ordered:
			p += fmt.Sprintf("would be ordered after about %s more games", thousands(*s.Ordered))
		default:
			p += fmt.Sprintf("would start to split after about %s more games and be ordered one by one after about %s", thousands(*s.FirstSplit), thousands(*s.Ordered))
		}
		parts = append(parts, p)
	}
	return "**Wide ranks**: " + strings.Join(parts, "; ") + ". An estimate from the intervals, whose width shrinks about as 1/√games.\n"
}
