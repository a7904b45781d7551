package publisher

import (
	"fmt"
	"time"
)

// Text is the bench in a sentence: "benched from game 812 after 50 faults in a row (3,900
// calls got the default)".
func (b *Benched) Text() string {
	if b.Budget > 0 {
		return fmt.Sprintf("benched from game %d: its decisions took its run budget of %s (limits.run_budget) (%s calls got the default without being sent)",
			b.Game, time.Duration(b.Budget*float64(time.Second)).Round(time.Second), thousands(b.Calls))
	}
	return fmt.Sprintf("benched from game %d after %d faults in a row (%s calls got the default without being sent)", b.Game, b.Streak, thousands(b.Calls))
}
