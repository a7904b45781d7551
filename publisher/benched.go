package publisher

import "fmt"

// Text is the bench in a sentence: "benched from game 812 after 50 faults in a row (3,900
// calls got the default)".
func (b *Benched) Text() string {
	return fmt.Sprintf("benched from game %d after %d faults in a row (%s calls got the default without being sent)", b.Game, b.Streak, thousands(b.Calls))
}
