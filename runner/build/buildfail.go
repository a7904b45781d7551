package build

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// BuildError is a build that failed because of the answer's sources (a compile error, a
// compiler that ran out of time or memory on them): the participant's to fix, reported as
// the "failed build" status with the log.
type BuildError struct {
	File   string    // the language's main file, e.g. bot.c
	How    string    // how the build ended: "compiler failed (exit status 1)", "timed out after 2m0s"
	Log    string    // the compiler's output (tail, readable)
	Cached time.Time // when the same sources failed before, if this failure was remembered (not built again)
}

func (e *BuildError) Error() string {
	msg := fmt.Sprintf("build %s: %s", e.File, e.How)
	if !e.Cached.IsZero() {
		msg += fmt.Sprintf(" (these sources failed to build on %s UTC and are not built again until the answer changes)", e.Cached.UTC().Format("2006-01-02 15:04"))
	}
	return msg
}

// buildFailure is a BuildError as the memo keeps it.
type buildFailure struct {
	File string `json:"file"`
	How  string `json:"how"`
	Log  string `json:"log"`
	At   int64  `json:"at"` // Unix seconds
}

// recallBuildFailure returns the remembered failure of the build keyed key, if any. A
// memo that cannot be read is the host's failure.
func recallBuildFailure(ctx context.Context, memo Memo, key string) (*BuildError, error) {
	if memo == nil {
		return nil, nil
	}
	v, ok, err := memo.Recall(ctx, memoBuildFailure, key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBuildHost, err)
	}
	var f buildFailure
	if !ok || json.Unmarshal(v, &f) != nil {
		return nil, nil
	}
	return &BuildError{File: f.File, How: f.How, Log: f.Log, Cached: time.Unix(f.At, 0)}, nil
}

// rememberBuildFailure records a failed build. A memo that cannot be written is the
// host's failure.
func rememberBuildFailure(ctx context.Context, memo Memo, key string, e *BuildError) error {
	if memo == nil {
		return nil
	}
	v, err := json.Marshal(buildFailure{File: e.File, How: e.How, Log: e.Log, At: time.Now().Unix()})
	if err == nil {
		err = memo.Remember(ctx, memoBuildFailure, key, v)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuildHost, err)
	}
	return nil
}
