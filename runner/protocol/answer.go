package protocol

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/build"
)

// Helpers of the protocols whose answers are one bot built in its directory (argv,
// dirfiles).

// BuildAnswer runs the language's build command (if any) in the answer's directory.
func BuildAnswer(ctx context.Context, env *Env, sub Submission) error {
	lang := env.Config.Languages[sub.Language]
	if len(lang.Build) == 0 {
		return nil
	}
	l := env.Challenge.Limits
	lim := Limits(env)
	lim.DirMB = cmp.Or(l.BuildDiskMB, build.DefaultDiskMB) // the build's directory, temporaries included
	if log, err := build.Build(ctx, env.Sandbox, env.Memo, lang, sub.Dir, lim, l.BuildTimeout.D(build.DefaultBuildTimeout)); err != nil {
		if errors.Is(err, build.ErrBuildHost) {
			return &engine.Fault{Outcome: engine.HostFault, Detail: err.Error()}
		}
		return fmt.Errorf("compile error: %w\n%s", err, log)
	}
	return nil
}

// AnswerName is the leaderboard name of a one-bot answer: its title.
func AnswerName(sub Submission) string {
	if name := strings.TrimSpace(sub.Title); name != "" {
		return name
	}
	return fmt.Sprintf("answer%d", sub.AnswerID)
}
