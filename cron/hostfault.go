package cron

import (
	"fmt"
	"regexp"
	"strings"
)

// sameFailure strips what differs between answers from a failure text (paths, numbers,
// quoted names), leaving what went wrong.
var (
	failurePath   = regexp.MustCompile(`/[^\s:'"]+`)
	failureNumber = regexp.MustCompile(`[0-9]+`)
	failureQuoted = regexp.MustCompile(`'[^']*'|"[^"]*"`)
)

// allFailedAlike reports a host's fault seen through the answers: when no answer entered
// and every one of at least two that reached validation failed it the same way (the same
// text but for paths, numbers and names), the cause is common to them, which is the host
// (an interpreter or a library missing, a broken harness), not the participants. Playing
// on would publish a board of baselines saying every answer is broken.
func allFailedAlike(rep *Report) error {
	if rep.Entered > 0 {
		return nil
	}
	var first, norm string
	n := 0
	for _, r := range rep.Rejected {
		if r.Status != "failed validation" {
			continue
		}
		s := r.Reason
		if r.Name != "" {
			s = strings.ReplaceAll(s, r.Name, "NAME")
		}
		s = failureNumber.ReplaceAllString(failureQuoted.ReplaceAllString(failurePath.ReplaceAllString(s, "PATH"), "Q"), "N")
		if n == 0 {
			first, norm = r.Reason, s
		} else if s != norm {
			return nil
		}
		n++
	}
	if n < 2 {
		return nil
	}
	return fmt.Errorf("all %d answers that reached validation failed it the same way, which points at the host, not the answers "+
		"(check python, python_imports and the sandbox); nothing was played and the last board stays: %s", n, first)
}
