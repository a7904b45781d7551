package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/internal/machine"
	"go.yaml.in/yaml/v3"
)

// kothd bench on two forty answers (the real sandbox, the real yardstick): every number it
// reports is there and positive, and the text shows each of them; --cpuprofile writes the
// games' profile.
func TestBenchReportsEveryMeasure(t *testing.T) {
	cfg := hostDir(t, "")
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	code, out, errOut := kothd(t, "bench", "forty", "--config", cfg, "--snapshot", oneBotSnapshot(t), "--games", "30", "--json", "--cpuprofile", prof)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// --cpuprofile: a profile of the games, in pprof's format (gzipped protocol buffers).
	if b, err := os.ReadFile(prof); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("--cpuprofile wrote no profile: %v, %d bytes", err, len(b))
	}
	var results []*benchResult
	if err := json.Unmarshal([]byte(out), &results); err != nil || len(results) != 1 {
		t.Fatalf("%v: %d results\n%s", err, len(results), out)
	}
	r := results[0]
	if r.Challenge != "forty" || r.Games != 30 || r.Bots < 2 {
		t.Errorf("played %q, %d games, %d bots", r.Challenge, r.Games, r.Bots)
	}
	// Each game seats every bot: a new instance per seat, a call per turn, an end per seat.
	if r.Decisions < int64(3*r.Bots*r.Games) {
		t.Errorf("%d decisions for %d games of %d bots", r.Decisions, r.Games, r.Bots)
	}
	positive := map[string]float64{
		"games/s": r.GamesPerSec, "decisions/s": r.DecisionsPerSec,
		"kothd CPU": r.KothdCPU, "bots CPU": r.BotsCPU,
		"kothd CPU per decision": r.KothdCPUPerDecision, "bots CPU per decision": r.BotsCPUPerDecision,
		"peak RSS": float64(r.PeakRSS),
	}
	if y := r.Yardstick; y == nil {
		t.Error("no yardstick")
	} else {
		if y.Games != r.Games {
			t.Errorf("the yardstick played %d games, kothd %d", y.Games, r.Games)
		}
		positive["yardstick games/s"], positive["ratio"], positive["CPU ratio"] = y.GamesPerSec, y.Ratio, y.CPURatio
		positive["ratio with loading"], positive["CPU ratio with loading"] = y.RatioWithLoad, y.CPURatioWithLoad
		positive["yardstick's loading"], positive["yardstick's loading CPU"] = y.LoadSeconds, y.LoadCPU
		// The ratio with loading divides the two sides' whole rates.
		if whole := per(float64(y.Games), y.Seconds+y.LoadSeconds); math.Abs(y.RatioWithLoad*whole/r.GamesPerSecWithLoad-1) > 1e-9 {
			t.Errorf("with loading: the yardstick %v, the ratio %v (games/s %v, with loading %v)", y.LoadSeconds, y.RatioWithLoad, r.GamesPerSec, r.GamesPerSecWithLoad)
		}
	}
	// forty's bots are loaded before its first game: the loading is timed apart, and its
	// CPU is part of the run's.
	positive["loading"], positive["loading's kothd CPU"] = r.LoadSeconds, r.LoadKothdCPU
	if r.BotsSource == botsByCgroups {
		positive["loading's bots CPU"] = r.LoadBotsCPU
	} else if r.LoadBotsCPU != -1 {
		t.Errorf("without cgroups the loading's bots CPU reads %v, not -1 (not told apart)", r.LoadBotsCPU)
	}
	if r.GamesPerSecWithLoad >= r.GamesPerSec || r.LoadKothdCPU > r.KothdCPU || r.LoadBotsCPU > r.BotsCPU {
		t.Errorf("games/s %v, with the loading %v; the loading's CPU %v and %v of the run's %v and %v",
			r.GamesPerSec, r.GamesPerSecWithLoad, r.LoadKothdCPU, r.LoadBotsCPU, r.KothdCPU, r.BotsCPU)
	}
	for what, v := range positive {
		if !(v > 0) {
			t.Errorf("%s = %v", what, v)
		}
	}
	if r.PeakRSS < 1<<20 || r.PeakRSS > 4<<30 {
		t.Errorf("peak RSS %d bytes", r.PeakRSS)
	}
	// With cgroups, every bot's answer has its part of the bots' CPU, and the parts add up
	// to the whole the cgroups counted.
	if r.BotsSource == botsByCgroups {
		var share, cpu float64
		named := 0
		for _, a := range r.Answers {
			share += a.Share
			cpu += a.CPU
			named += len(a.Bots)
			if !(a.Share > 0 && a.Share <= 1 && a.Decisions > 0) {
				t.Errorf("answer %+v", a)
			}
		}
		if named != r.Bots || share < 0.999 || share > 1.001 || cpu < 0.999*r.BotsCPU || cpu > 1.001*r.BotsCPU {
			t.Errorf("answers name %d of %d bots, shares add up to %v, CPU to %v s of %v s: %+v", named, r.Bots, share, cpu, r.BotsCPU, r.Answers)
		}
	}
	// forty plays in lockstep ticks: they carried every call the accounting counted.
	if tt := r.Tail; tt == nil {
		t.Error("no ticks")
	} else if int64(tt.Calls) != r.Decisions || tt.Ticks < 2 || tt.Fullest < 2 || tt.TailTicks >= tt.Ticks ||
		!(tt.TailCallsShare >= 0 && tt.TailCallsShare < 1 && tt.TailWallShare >= 0 && tt.TailWallShare < 1) {
		t.Errorf("ticks %+v for %d decisions", *tt, r.Decisions)
	}
	var text bytes.Buffer
	r.print(&text)
	for _, want := range []string{"games/s", "decisions/s", "CPU per decision", "kothd", "bots", "peak RSS", "yardstick", "ratio", "load average", "loading", "with loading", "ticks"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

// --yardstick-workers: forty's yardstick shares the games among worker processes, as the
// original controller's pool did, and the workers together play every game; a game whose
// original played one game at a time is not split.
func TestBenchYardstickWorkers(t *testing.T) {
	cfg := hostDir(t, "")
	code, out, errOut := kothd(t, "bench", "forty", "--config", cfg, "--snapshot", oneBotSnapshot(t), "--games", "31", "--json", "--yardstick-workers", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var results []*benchResult
	if err := json.Unmarshal([]byte(out), &results); err != nil || len(results) != 1 || results[0].Yardstick == nil {
		t.Fatalf("%v: %s", err, out)
	}
	y := results[0].Yardstick
	if y.Games != 31 || !strings.Contains(y.Cores, "3 worker processes") || !(y.Seconds > 0 && y.CPU > 0 && y.Ratio > 0) {
		t.Errorf("yardstick %+v", y)
	}
	if code, _, errOut := kothd(t, "bench", "forty", "--config", cfg, "--snapshot", t.TempDir(), "--yardstick-workers", "0"); code == 0 || !strings.Contains(errOut, "yardstick-workers") {
		t.Errorf("--yardstick-workers 0: exit %d, %s", code, errOut)
	}
}

// bench names its challenges as arguments, "all" for every one; a wrong name is refused
// before anything is played.
func TestBenchChallenges(t *testing.T) {
	cfg := testConfig(t, "")
	code, _, errOut := kothd(t, "bench", "forty", "fourty", "--config", cfg, "--snapshot", t.TempDir())
	if code != 1 || !strings.Contains(errOut, `no challenge named "fourty"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// --option sets a key of the challenge's options, adding it when missing, with YAML's
// types; a malformed flag is refused.
func TestBenchOverrideOptions(t *testing.T) {
	var node yaml.Node
	if err := yaml.Unmarshal([]byte("a: 1\nb: x\n"), &node); err != nil {
		t.Fatal(err)
	}
	if err := overrideOptions(&node, optionFlags{"a=50", "c=true"}); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := node.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"a": 50, "b": "x", "c": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("options %v, want %v", got, want)
	}
	var empty yaml.Node
	if err := overrideOptions(&empty, optionFlags{"games_per_tournament=30"}); err != nil || empty.Kind != yaml.MappingNode || len(empty.Content) != 2 {
		t.Errorf("empty options: %v, %+v", err, empty)
	}
	var o optionFlags
	if err := o.Set("noequals"); err == nil {
		t.Error("accepted an option without =")
	}
}

// bench --machine alone measures the machine (no snapshot needed) and, with --json, prints
// it as the object's "machine"; the text names the probe's lines.
func TestBenchMachineAlone(t *testing.T) {
	old := machineSizes
	machineSizes = machine.Sizes{Syscalls: 100, Pages: 16, RoundTrips: 20, Launches: 1, PythonStarts: 1, Spin: 1000}
	t.Cleanup(func() { machineSizes = old })
	cfg := testConfig(t, "")
	code, out, errOut := kothd(t, "bench", "--machine", "--json", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var got struct {
		Machine    *machine.Report `json:"machine"`
		Challenges []any           `json:"challenges"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Machine == nil || len(got.Challenges) != 0 {
		t.Fatalf("%v: %+v\n%s", err, got, out)
	}
	if !(got.Machine.SyscallUS > 0) || !(got.Machine.PythonStartMS > 0) {
		t.Errorf("machine %+v", got.Machine)
	}
	code, out, errOut = kothd(t, "bench", "--machine", "--config", cfg)
	if code != 0 || !strings.Contains(out, "machine:") || !strings.Contains(out, "pipe round trip") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}
