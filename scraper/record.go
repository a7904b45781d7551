package scraper

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Record writes a snapshot of the live API: for every question, the raw (decompressed)
// answer page bodies as <dir>/<site>/<question_id>/answers.<page>.json, the layout Snapshot
// replays. Each question is replaced atomically: its pages are written to a temporary
// directory that is renamed into place only when the last page arrived, so a failure
// (quota, network) leaves the previous recording of that question intact. It stops at the
// first question that fails; questions recorded before it are kept.
func Record(ctx context.Context, c *Client, dir, site string, ids []int64) error {
	if site == "" {
		site = cmp.Or(c.Site, "codegolf")
	}
	if c.Site != "" && c.Site != site {
		return fmt.Errorf("record: client is for site %q, not %q", c.Site, site)
	}
	siteDir := filepath.Join(dir, site)
	if err := os.MkdirAll(siteDir, 0o755); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	for _, id := range uniqueIDs(ids) {
		if err := recordQuestion(ctx, c, siteDir, id); err != nil {
			return fmt.Errorf("record question %d: %w", id, err)
		}
	}
	return nil
}

func recordQuestion(ctx context.Context, c *Client, siteDir string, id int64) error {
	name := strconv.FormatInt(id, 10)
	tmp, err := os.MkdirTemp(siteDir, "."+name+".recording-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed into place
	pages := 0
	err = c.answerPages(ctx, id, func(page int, body []byte) error {
		if _, _, err := decodeAnswersPage(body); err != nil {
			return fmt.Errorf("page %d: %w", page, err)
		}
		pages = page
		return os.WriteFile(filepath.Join(tmp, fmt.Sprintf("answers.%d.json", page)), body, 0o644)
	})
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	final := filepath.Join(siteDir, name)
	old := tmp + ".old"
	if err := os.Rename(final, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("move previous recording aside: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Rename(old, final) // put the previous recording back
		return fmt.Errorf("move recording into place: %w", err)
	}
	c.log().Info("recorded answers", "question", id, "pages", pages)
	return os.RemoveAll(old)
}
