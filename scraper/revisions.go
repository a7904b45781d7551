package scraper

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// methodRevisions is the API method that lists posts' revisions (edit histories).
const methodRevisions = "posts/{ids}/revisions"

// PostRevision is one revision of a post as /posts/{ids}/revisions returns it (the fields
// kothd uses). Revisions that are not edits of the post (vote-based ones: a closure, a
// lock) have no revision_number.
type PostRevision struct {
	PostID         int64  `json:"post_id"`
	RevisionNumber int    `json:"revision_number"`
	RevisionType   string `json:"revision_type"` // single_user, vote_based
	CreationDate   int64  `json:"creation_date"`
}

// Reviser tells answers' revision numbers on the site (the numbers of their edit
// histories). Client implements it; a snapshot does not, and the board then shows only
// the versions kothd has seen itself.
type Reviser interface {
	RevisionNumbers(ctx context.Context, ids []int64) (map[int64]int, error)
}

// revisionBatch is how many posts one revisions request asks about (the API's maximum).
const revisionBatch = 100

// maxRevisionPages bounds the pages of one batch: a hundred posts with fifty revisions each.
const maxRevisionPages = 50

// RevisionNumbers returns the current revision number of each post (answer) in ids: the
// highest revision_number of its revisions. A post the API does not return (deleted) is
// missing from the map. Callers ask only about answers that are new or changed, so a cycle
// whose answers stand still pays no request for it.
func (c *Client) RevisionNumbers(ctx context.Context, ids []int64) (map[int64]int, error) {
	ids = uniqueIDs(ids)
	out := map[int64]int{}
	for start := 0; start < len(ids); start += revisionBatch {
		batch := ids[start:min(start+revisionBatch, len(ids))]
		parts := make([]string, len(batch))
		for i, id := range batch {
			parts[i] = strconv.FormatInt(id, 10)
		}
		joined := strings.Join(parts, ";")
		for page := 1; ; page++ {
			if page > maxRevisionPages {
				return nil, fmt.Errorf("revisions of posts %s: the API still says has_more after page %d: stopping", joined, page-1)
			}
			q := c.params()
			q.Set("filter", "default")
			q.Set("pagesize", strconv.Itoa(revisionBatch))
			q.Set("page", strconv.Itoa(page))
			_, p, err := c.get(ctx, methodRevisions, "/posts/"+joined+"/revisions", q)
			if err != nil {
				return nil, fmt.Errorf("revisions of posts %s page %d: %w", joined, page, err)
			}
			var items []PostRevision
			if len(p.Items) > 0 {
				if err := json.Unmarshal(p.Items, &items); err != nil {
					return nil, fmt.Errorf("revisions of posts %s page %d: malformed items: %w", joined, page, err)
				}
			}
			for _, it := range items {
				if it.PostID != 0 && it.RevisionNumber > out[it.PostID] && containsID(batch, it.PostID) {
					out[it.PostID] = it.RevisionNumber
				}
			}
			if !p.HasMore {
				break
			}
			if len(items) == 0 {
				return nil, fmt.Errorf("revisions of posts %s: page %d is empty but says has_more: stopping", joined, page)
			}
		}
	}
	return out, nil
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
