package cron

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kothd/kothd/runner/protocol"
)

// Referee is the run's referee, for a game whose rules are the host's program: its
// directory and the command that starts it (ok false for a game whose rules are Go). A
// cluster ships them with each job.
func (env *PlayEnv) Referee() (dir string, run []string, ok bool, err error) {
	p, err := protocol.ResolveReferee(&env.Env)
	if p == nil || err != nil {
		return "", nil, false, err
	}
	return p.Dir, p.Run, true, nil
}

// UseReferee makes the run start its referee from dir with run: a worker's copy of the
// daemon's.
func (env *PlayEnv) UseReferee(dir string, run []string) {
	env.Env.Referee = &protocol.RefereeProgram{Dir: dir, Run: run}
}

// refereeKey is what the bot-set hash holds of a run's referee: its command and the content
// of its directory (every file's path and bytes), so that a host who edits the rules plays
// again; "" for a game whose rules are Go. A referee that cannot be read gets a key that
// says so (the run itself then fails with the reason).
func refereeKey(env *PlayEnv) string {
	dir, run, ok, err := env.Referee()
	if !ok {
		return ""
	}
	if err != nil {
		return "unresolved: " + err.Error()
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", strings.Join(run, "\x01"))
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}
