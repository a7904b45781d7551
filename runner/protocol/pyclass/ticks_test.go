package pyclass

import (
	"testing"
	"time"
)

// TestTickLogStops: a log records the exchanges noted while it is kept, and only those.
func TestTickLogStops(t *testing.T) {
	noteTick(9, time.Now()) // no log: nothing kept, nothing fails
	l := RecordTicks()
	noteTick(5, time.Now())
	noteTick(3, time.Now())
	got := l.Stop()
	noteTick(7, time.Now())
	if len(got) != 2 || got[0].Calls != 5 || got[1].Calls != 3 || got[0].End.Before(got[0].Start) {
		t.Fatalf("ticks %+v", got)
	}
	if again := l.Stop(); len(again) != 2 {
		t.Fatalf("a stopped log took another tick: %+v", again)
	}
	// A newer log replaces an older one, which a late Stop of the older leaves alone.
	older, newer := RecordTicks(), RecordTicks()
	older.Stop()
	noteTick(4, time.Now())
	if got := newer.Stop(); len(got) != 1 || got[0].Calls != 4 {
		t.Fatalf("the newer log has %+v", got)
	}
}
