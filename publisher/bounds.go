package publisher

import (
	"fmt"

	"github.com/kothd/kothd/internal/mdtext"
)

// Bounds on what participants put on a board. The cycle bounds its records as it makes
// them (one record for an answer's classes beyond the cap, reasons cut); these hold for any
// board whatever made it, so no answer can make the page or the JSON large.
const (
	// MaxNotEntered is the most not-entered records a board lists; one more says how many
	// were left off.
	MaxNotEntered = 200
	maxWords      = 1000 // a reason, a status
	maxName       = 160  // a name or a title as a record shows it
	maxAuthor     = 100
	maxFault      = 5000 // a first fault: its outcome, detail and input
)

// BoundNotEntered returns the records as a board carries them: each field cut to its
// bound and at most MaxNotEntered records, the last of which counts those left off.
func BoundNotEntered(list []Rejected) []Rejected {
	out := make([]Rejected, 0, min(len(list), MaxNotEntered+1))
	for i, r := range list {
		if i == MaxNotEntered {
			out = append(out, Rejected{Status: "not listed", Reason: fmt.Sprintf(
				"%d more answers or bots did not enter; a board lists at most %d (the host's log names them all)", len(list)-i, MaxNotEntered)})
			break
		}
		r.Author, r.Name = mdtext.Cut(r.Author, maxAuthor), mdtext.Cut(r.Name, maxName)
		r.Status, r.Reason = mdtext.Cut(r.Status, maxWords), mdtext.Cut(r.Reason, maxWords)
		out = append(out, r)
	}
	return out
}

// boundChanges cuts the participants' words of changes to their bounds.
func boundChanges(list []Change) []Change {
	out := make([]Change, len(list))
	for i, c := range list {
		c.Title, c.Author, c.Bot = mdtext.Cut(c.Title, maxName), mdtext.Cut(c.Author, maxAuthor), mdtext.Cut(c.Bot, maxName)
		out[i] = c
	}
	return out
}
