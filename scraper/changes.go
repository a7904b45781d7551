package scraper

import "sort"

// ChangeKind says how an answer differs from what the store holds.
type ChangeKind string

const (
	ChangeNew       ChangeKind = "new"       // not in the store
	ChangeEdited    ChangeKind = "edited"    // in the store with another hash
	ChangeUnchanged ChangeKind = "unchanged" // in the store with the same hash
	ChangeDeleted   ChangeKind = "deleted"   // in the store, not in this fetch
)

// Change is one answer's difference between the store and a complete fetch.
type Change struct {
	AnswerID int64
	Kind     ChangeKind
	Hash     string      // current Submission.Hash; "" when deleted
	PrevHash string      // hash in the store; "" when new
	Sub      *Submission // the current submission; nil when deleted
}

// Classify compares a complete fetch (cur, e.g. from ExtractAll) with the store's view
// (prev: answer id → Submission.Hash). The result lists cur's answers in cur's order, then
// the deleted ones by ascending id. cur must be a complete fetch: an answer missing from it
// is reported deleted. A repeated answer id in cur counts once (the first).
func Classify(prev map[int64]string, cur []Submission) []Change {
	var out []Change
	seen := map[int64]bool{}
	for i := range cur {
		s := &cur[i]
		if seen[s.AnswerID] {
			continue
		}
		seen[s.AnswerID] = true
		c := Change{AnswerID: s.AnswerID, Hash: s.Hash, Sub: s}
		old, ok := prev[s.AnswerID]
		switch {
		case !ok:
			c.Kind = ChangeNew
		case old != s.Hash:
			c.Kind, c.PrevHash = ChangeEdited, old
		default:
			c.Kind, c.PrevHash = ChangeUnchanged, old
		}
		out = append(out, c)
	}
	var gone []int64
	for id := range prev {
		if !seen[id] {
			gone = append(gone, id)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i] < gone[j] })
	for _, id := range gone {
		out = append(out, Change{AnswerID: id, Kind: ChangeDeleted, PrevHash: prev[id]})
	}
	return out
}

// Changed returns the ids of probed questions that need fetching: those not in known, and
// those whose answer count or last activity differs from what known holds (the values the
// caller saved from the previous Probe). Questions known but missing from probed (deleted,
// or not on the site) are not listed: there is nothing to fetch, and their last good data
// should stay.
func Changed(known map[int64]QuestionInfo, probed []QuestionInfo) []int64 {
	var out []int64
	for _, p := range probed {
		k, ok := known[p.QuestionID]
		if !ok || k.AnswerCount != p.AnswerCount || k.LastActivityDate != p.LastActivityDate {
			out = append(out, p.QuestionID)
		}
	}
	return out
}
