package scraper

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
