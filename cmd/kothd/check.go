package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/store"
)

// runCheck takes one answer through extraction, build and validation and prints what its
// author needs. It plays nothing and changes no board, store or bot directory.
func runCheck(ctx context.Context, cl *cli, args []string) error {
	flags := cl.flags()
	var c common
	c.register(flags, true)
	pos, err := cl.parse(flags, args)
	if err != nil {
		return err
	}
	answerID, err := strconv.ParseInt(pos[1], 10, 64)
	if err != nil || answerID <= 0 {
		return usageErr("ANSWER_ID is the number in the answer's link (…/a/177771), not %q", pos[1])
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	ch, err := cfg.Challenge(pos[0])
	if err != nil {
		return err
	}
	log := c.logger(cl.err, slog.LevelWarn)
	sb, err := sandbox.NewSandbox(cfg.Sandbox, log)
	if err != nil {
		return err
	}
	cy := &cron.Cycle{Config: cfg, Source: c.source(cfg, log), Sandbox: sb, Log: log, Out: io.Discard}
	// The store only tells which names earlier answers hold; a host without one yet has
	// none, and check does not create it.
	db := filepath.Join(cfg.DataDir, "kothd.db")
	if _, err := os.Stat(db); err == nil {
		if cy.Store, err = store.OpenReadOnly(ctx, db); err != nil {
			return err
		}
		defer cy.Store.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	rep, err := cy.Check(ctx, ch, answerID)
	if err != nil {
		return err
	}
	printCheck(cl.out, ch.Name, rep)
	return nil
}

func printCheck(w io.Writer, challenge string, r *cron.CheckReport) {
	// Everything of the answer's is printed inert (mdtext.Terminal): no escape sequence
	// reaches the host's terminal, no line of the reason starts at the margin.
	fmt.Fprintf(w, "answer %d by %s to %s: %q\n", r.AnswerID, mdtext.Terminal(r.Author), challenge, mdtext.Terminal(r.Title))
	fmt.Fprintf(w, "  language: %s\n", cmp.Or(mdtext.Terminal(r.Language), "(none)"))
	fmt.Fprintf(w, "  files:    %s\n", cmp.Or(mdtext.Terminal(strings.Join(r.Files, ", ")), "(none)"))
	if len(r.Build) > 0 {
		fmt.Fprintf(w, "  build:    %s\n", mdtext.Terminal(firstLine(strings.Join(r.Build, " "))))
	}
	if r.Reject != "" {
		fmt.Fprintln(w, "  NOT ENTERED:")
		for _, l := range strings.Split(strings.TrimRight(r.Reject, "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", mdtext.Terminal(l))
		}
		return
	}
	if len(r.Build) > 0 {
		fmt.Fprintln(w, "  built:    ok")
	}
	fmt.Fprintf(w, "  bots found: %d\n", len(r.Bots))
	for _, b := range r.Bots {
		if b.Status == cron.WouldEnter {
			fmt.Fprintf(w, "    %s: %s\n", mdtext.Terminal(b.Name), b.Status)
			continue
		}
		fmt.Fprintf(w, "    %s: NOT ENTERED: %s:\n", mdtext.Terminal(b.Name), b.Status)
		for _, l := range strings.Split(strings.TrimRight(b.Reason, "\n"), "\n") {
			fmt.Fprintf(w, "      %s\n", mdtext.Terminal(l))
		}
	}
}

func firstLine(s string) string {
	l, _, cut := strings.Cut(s, "\n")
	if cut {
		return l + " …"
	}
	return l
}
