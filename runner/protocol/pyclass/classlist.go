package pyclass

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kothd/kothd/runner/build"
	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// ListClasses executes an answer (dir/bot.py, with the harness installed in dir) and
// returns its competing classes in definition order, or the reason it has none (the
// answer's exception, a start time-out).
//
// With cfg.Memo the outcome, classes or fault, is remembered by content: the files in dir
// (the answer's and the harness's: a new harness is a new key), the interpreter, the
// harness module, the start timeout, the limits and the sandbox. An unchanged answer is
// not executed again (its import-time code may be slow, or never finish). Host faults and
// cancellations are not remembered.
func ListClasses(ctx context.Context, sb sandbox.Sandbox, cfg PyConfig, dir string) ([]string, error) {
	if cfg.Memo == nil {
		return listClasses(ctx, sb, cfg, dir)
	}
	// The harness's builds go in first: the key is the directory as the listing sees it.
	if err := cfg.installBuilds(dir); err != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
	}
	tree, err := build.HashTree(dir)
	if err != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: "list classes: " + err.Error()}
	}
	key := build.MemoKey("pyclass listing v1", tree, build.InterpreterID(cfg.Python), cfg.Harness,
		cfg.StartTimeout.String(), fmt.Sprintf("%+v", cfg.Limits), sb.Name())
	remembered, ok, err := cfg.Memo.Recall(ctx, build.MemoClasses, key)
	if err != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: "list classes: " + err.Error()}
	}
	var l listing
	if ok && json.Unmarshal(remembered, &l) == nil {
		return l.result()
	}
	classes, err := listInstalled(ctx, sb, cfg, dir)
	var f *engine.Fault
	switch {
	case ctx.Err() != nil:
		return classes, err
	case err == nil:
		l = listing{Classes: classes}
	case errors.As(err, &f) && f.Outcome != engine.HostFault:
		l = listing{Fault: &listingFault{Outcome: f.Outcome, Detail: f.Detail}}
	default:
		return classes, err
	}
	l.At = time.Now().Unix()
	v, merr := json.Marshal(l)
	if merr == nil {
		merr = cfg.Memo.Remember(ctx, build.MemoClasses, key, v)
	}
	if merr != nil {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: "list classes: " + merr.Error()}
	}
	return classes, err
}

// listing is a class listing as the memo keeps it.
type listing struct {
	Classes []string      `json:"classes,omitempty"`
	Fault   *listingFault `json:"fault,omitempty"`
	At      int64         `json:"at"` // Unix seconds
}

type listingFault struct {
	Outcome engine.Outcome `json:"outcome"`
	Detail  string         `json:"detail"`
}

// result is the remembered outcome; a fault says it was remembered, and since when.
func (l listing) result() ([]string, error) {
	if l.Fault == nil {
		return l.Classes, nil
	}
	when := time.Unix(l.At, 0).UTC().Format("2006-01-02 15:04")
	return nil, &engine.Fault{Outcome: l.Fault.Outcome, ProcessDied: true,
		Detail: fmt.Sprintf("%s (as on %s UTC: the answer is not run again until it changes)", l.Fault.Detail, when)}
}
