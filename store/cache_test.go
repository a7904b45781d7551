package store

import (
	"context"
	"testing"
)

// The content cache survives reopening the database (it spans cycles and restarts) and
// keeps kinds apart.
func TestContentCache(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	if _, ok, err := s.Recall(ctx, "classes", "k1"); ok || err != nil {
		t.Fatalf("empty cache: ok %v, err %v", ok, err)
	}
	if err := s.Remember(ctx, "classes", "k1", []byte(`["A"]`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Remember(ctx, "build failure", "k1", []byte("log")); err != nil {
		t.Fatal(err)
	}
	if err := s.Remember(ctx, "classes", "k1", []byte(`["A","B"]`)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for kind, want := range map[string]string{"classes": `["A","B"]`, "build failure": "log"} {
		v, ok, err := s2.Recall(ctx, kind, "k1")
		if err != nil || !ok || string(v) != want {
			t.Errorf("Recall(%s) = %q, %v, %v; want %q", kind, v, ok, err, want)
		}
	}
	if _, ok, _ := s2.Recall(ctx, "classes", "k2"); ok {
		t.Error("a key never stored was found")
	}
}
