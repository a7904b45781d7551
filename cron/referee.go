package cron

import "github.com/kothd/kothd/runner/protocol"

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
