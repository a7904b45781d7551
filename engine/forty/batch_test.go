package forty

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// goBots is an Exchanger of Go bots: bot b keeps throwing while its turn's sum is below
// 6+b%15, so bots differ and every table is a function of the seed alone.
type goBots struct{ calls atomic.Int64 }

func (g *goBots) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	g.calls.Add(int64(len(calls)))
	out := make([]engine.Reply, len(calls))
	for i, c := range calls {
		v := true
		switch c.Method {
		case "start", "next":
			// Decoded from JSON as the harness would, whatever Go type the engine sends.
			raw, _ := json.Marshal(c.Args)
			var a struct{ Throws []int }
			json.Unmarshal(raw, &a)
			sum := 0
			for _, t := range a.Throws {
				sum += t
			}
			v = sum < 6+c.Bot%15
		}
		out[i] = engine.Reply{Result: json.RawMessage(fmt.Sprint(v))}
	}
	return out
}

func goField(n int) []engine.Entrant {
	bots := make([]engine.Entrant, n)
	for i := range bots {
		bots[i] = engine.Entrant{Name: fmt.Sprintf("Bot%02d", i)}
	}
	return bots
}

var errKilled = errors.New("killed")

// A run cut at a checkpoint and resumed from it ends with the tally (and so the table) of
// the same run played straight through, and the checkpoints a resumed run writes are the
// uninterrupted run's.
func TestResumeFromCheckpoint(t *testing.T) {
	ctx := context.Background()
	bots := goField(12)
	opts := Options{Games: 300, Seed: 42, Concurrency: 64}

	var straight []engine.Checkpoint
	o := opts
	o.Batches = &engine.Batches{Every: 30, Done: func(cp engine.Checkpoint, _ func() *engine.Result) (bool, error) {
		straight = append(straight, cp)
		return false, nil
	}}
	want, err := Run(ctx, &goBots{}, bots, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(straight) != 9 || straight[0].Done != 30 || straight[8].Done != 270 {
		t.Fatalf("checkpoints of the straight run: %d, want 9 at 30..270", len(straight))
	}
	plain, err := Run(ctx, &goBots{}, bots, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !sameTally(plain, want) {
		t.Fatal("a run with checkpoints differs from one without")
	}

	// Killed while writing the checkpoint after game 120: the one after 90 is the last saved.
	var saved engine.Checkpoint
	o.Batches = &engine.Batches{Every: 30, Done: func(cp engine.Checkpoint, _ func() *engine.Result) (bool, error) {
		if cp.Done == 120 {
			return false, errKilled
		}
		saved = cp
		return false, nil
	}}
	if _, err := Run(ctx, &goBots{}, bots, o); !errors.Is(err, errKilled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if saved.Done != 90 {
		t.Fatalf("last checkpoint after %d games, want 90", saved.Done)
	}

	ex := &goBots{}
	var resumed []engine.Checkpoint
	o.Batches = &engine.Batches{Resume: &saved, Every: 30, Done: func(cp engine.Checkpoint, _ func() *engine.Result) (bool, error) {
		resumed = append(resumed, cp)
		return false, nil
	}}
	got, err := Run(ctx, ex, bots, o)
	if err != nil {
		t.Fatal(err)
	}
	if !sameTally(got, want) {
		t.Errorf("resumed tally differs:\n got %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(Table(got, bots, 0).Rows, Table(want, bots, 0).Rows) {
		t.Error("resumed table differs")
	}
	if len(resumed) != 6 || resumed[0].Done != 120 {
		t.Fatalf("checkpoints after resuming: %d from %v, want 6 from 120", len(resumed), resumed)
	}
	for i, cp := range resumed {
		var a, b checkpoint
		json.Unmarshal(cp.State, &a)
		json.Unmarshal(straight[3+i].State, &b)
		if a.Tally == nil || !sameTally(a.Tally, b.Tally) {
			t.Errorf("checkpoint after %d differs from the straight run's", cp.Done)
		}
	}
	// The resumed run played only the games after the checkpoint.
	full := &goBots{}
	Run(ctx, full, bots, opts)
	if c, f := ex.calls.Load(), full.calls.Load(); c >= f*8/10 || c <= f*5/10 {
		t.Errorf("resumed run made %d calls, the whole run %d: want about 70%%", c, f)
	}
}

// Done asking to stop ends the run there: the tally is the games before the boundary,
// the table the one sofar gave.
func TestStopEarly(t *testing.T) {
	bots := goField(9)
	var table *engine.Result
	opts := Options{Games: 1000, Seed: 7, Concurrency: 32,
		Sofar: func(t *Tally, _ float64) *engine.Result { return Table(t, bots, 0) },
		Batches: &engine.Batches{Every: 50, Done: func(cp engine.Checkpoint, sofar func() *engine.Result) (bool, error) {
			if cp.Done == 250 {
				table = sofar()
				return true, nil
			}
			return false, nil
		}}}
	got, err := Run(context.Background(), &goBots{}, bots, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Games+got.Voided != 250 || table == nil || table.Games != got.Games {
		t.Fatalf("stopped at %d+%d games, sofar's table %+v", got.Games, got.Voided, table)
	}
	if !reflect.DeepEqual(Table(got, bots, 0).Rows, table.Rows) {
		t.Error("the run's table is not sofar's")
	}
	short, _ := Run(context.Background(), &goBots{}, bots, Options{Games: 250, Seed: 7, Concurrency: 5})
	if !sameTally(got, short) {
		t.Error("a run stopped after 250 games differs from a run of 250 games")
	}
}

// A checkpoint from another field is refused, not misread.
func TestResumeRefusesForeignCheckpoint(t *testing.T) {
	state, _ := json.Marshal(checkpoint{Tally: &Tally{WinHist: map[int]int{}, Bots: make([]BotTally, 3)}})
	b := &engine.Batches{Resume: &engine.Checkpoint{Done: 10, State: state}, Every: 10,
		Done: func(engine.Checkpoint, func() *engine.Result) (bool, error) { return false, nil }}
	if _, err := Run(context.Background(), &goBots{}, goField(5), Options{Games: 100, Batches: b}); err == nil {
		t.Error("a checkpoint of 3 bots resumed a run of 5")
	}
}

func sameTally(a, b *Tally) bool { return reflect.DeepEqual(a, b) }

// BenchmarkLongRunMemory plays a long run of Go bots and reports the peak live heap
// (heap-MB: the most the heap held after any GC, sampled) and the total allocated per
// game. Memory must stay flat in the number of games (issue 14: a 1,000,000-game run
// under 100 MB). Run with -benchtime=1x (FORTY_GAMES sets the
// number of games; 200,000 by default):
//
//	go test ./engine/forty -run '^$' -bench LongRunMemory -benchtime 1x
func BenchmarkLongRunMemory(b *testing.B) {
	games := 200_000
	if testing.Short() {
		games = 20_000
	}
	if v := os.Getenv("FORTY_GAMES"); v != "" {
		fmt.Sscan(v, &games)
	}
	bots := goField(48)
	for b.Loop() {
		peak := watchHeap()
		cps := 0
		opts := Options{Games: games, Seed: 1, Concurrency: 1024,
			Batches: &engine.Batches{Every: 1000, Done: func(engine.Checkpoint, func() *engine.Result) (bool, error) {
				cps++
				return false, nil
			}}}
		if _, err := Run(context.Background(), &goBots{}, bots, opts); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(peak())/(1<<20), "heap-MB")
		b.ReportMetric(float64(games), "games")
	}
}

// watchHeap samples the live heap every 10 ms until the returned function is called,
// which returns the largest sample.
func watchHeap() func() uint64 {
	runtime.GC()
	stop := make(chan struct{})
	var peak atomic.Uint64
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); return peak.Load() }
}
