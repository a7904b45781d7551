package publisher

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func runFiles(n int) map[string][]byte {
	return map[string][]byte{
		"forty.md":                           []byte(fmt.Sprintf("# run %d\n", n)),
		"forty.json":                         []byte(fmt.Sprintf(`{"run":%d}`+"\n", n)),
		fmt.Sprintf("forty/runs/%d.json", n): []byte(fmt.Sprintf(`{"archive":%d}`, n)),
	}
}

// listing returns every file under dir, relative, with its content.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runSet is what the directory shows after the publications of runs 1..n.
func runSet(n int) map[string]string {
	want := map[string]string{}
	for i := 1; i <= n; i++ {
		for k, v := range runFiles(i) {
			want[k] = string(v)
		}
	}
	return want
}

// wantRun checks the directory holds exactly the files of runs 1..n's publications, the
// current ones from run n, and nothing temporary.
func wantRun(t *testing.T, dir string, n int) {
	t.Helper()
	want := runSet(n)
	got := listing(t, dir)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("directory holds\n%v\nwant run %d's publication:\n%v", got, n, want)
	}
}

func TestDirPublishesASet(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	for n := 1; n <= 2; n++ {
		if _, err := d.Publish(context.Background(), runFiles(n), "m"); err != nil {
			t.Fatal(err)
		}
		wantRun(t, d.Path, n)
	}
	for _, bad := range []string{"../escape", "/abs", "a/../../b", ""} {
		if _, err := d.Publish(context.Background(), map[string][]byte{bad: nil}, "m"); err == nil {
			t.Errorf("published %q", bad)
		}
	}
	wantRun(t, d.Path, 2)
}

func TestDirRepairRemovesLegacyTemporaries(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	if _, err := d.Publish(context.Background(), runFiles(1), "m"); err != nil {
		t.Fatal(err)
	}
	// What kothd before atomic publication left when killed: "forty.json.tmp".
	os.WriteFile(filepath.Join(d.Path, "forty.json.tmp"), []byte("half"), 0o644)
	if err := d.Repair(); err != nil {
		t.Fatal(err)
	}
	wantRun(t, d.Path, 1)
}

// The output directory may be shared (a web root, a checkout): a host's own "notes.tmp"
// beside "notes", or one in a folder, is not an earlier kothd's temporary and stays.
func TestDirRepairKeepsTheHostsTmpFiles(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	host := []string{"notes", "notes.tmp", "site/forty.md", "site/forty.md.tmp"}
	for _, n := range host {
		p := filepath.Join(d.Path, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("the host's"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Publish(context.Background(), runFiles(1), "m"); err != nil {
		t.Fatal(err)
	}
	for _, n := range host {
		if b, err := os.ReadFile(filepath.Join(d.Path, n)); err != nil || string(b) != "the host's" {
			t.Errorf("%s: %q, %v", n, b, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(d.Path, "forty.md")); err != nil || string(b) != "# run 1\n" {
		t.Errorf("forty.md: %q, %v", b, err)
	}
}

// TestDirCrashChild is the process the crash test kills: it publishes run 2 and stops
// for ever at the step named in KOTHD_DIR_CRASH_AT, after saying so.
func TestDirCrashChild(t *testing.T) {
	at := os.Getenv("KOTHD_DIR_CRASH_AT")
	if at == "" {
		t.Skip("the crash test's child process")
	}
	dirHook = func(step, name string) {
		if step+":"+name == at {
			fmt.Println("KILL ME")
			os.Stdout.Sync()
			select {}
		}
	}
	Dir{Path: os.Getenv("KOTHD_DIR_CRASH_DIR")}.Publish(context.Background(), runFiles(2), "run 2")
	t.Fatal("not stopped at " + at)
}

// A real process is SIGKILLed at each step of a publication; afterwards the directory
// holds one whole publication: the old one when the kill came before the journal, the
// new one after it.
func TestDirPublicationSurvivesKill(t *testing.T) {
	for _, tc := range []struct {
		at      string
		torn    bool // before repair, files of both runs are in place
		outcome int
	}{
		{"written:forty.md", false, 1},          // temporaries written, no journal
		{"journal:", false, 2},                  // journal committed, nothing renamed
		{"renamed:forty.json", true, 2},         // forty.json from run 2, forty.md from run 1
		{"renamed:forty.md", true, 2},           // one file left to rename
		{"renamed:forty/runs/2.json", false, 2}, // all renamed, journal left
	} {
		t.Run(tc.at, func(t *testing.T) {
			d := Dir{Path: t.TempDir()}
			if _, err := d.Publish(context.Background(), runFiles(1), "run 1"); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestDirCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "KOTHD_DIR_CRASH_AT="+tc.at, "KOTHD_DIR_CRASH_DIR="+d.Path)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line := make(chan string, 1)
			go func() {
				s := bufio.NewScanner(out)
				for s.Scan() {
					if s.Text() == "KILL ME" {
						line <- s.Text()
						return
					}
				}
				close(line)
			}()
			select {
			case l, ok := <-line:
				if !ok {
					cmd.Wait()
					t.Fatalf("child ended without reaching %s", tc.at)
				}
				_ = l
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatal("child did not reach the step")
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()

			before := listing(t, d.Path)
			visible := map[string]string{}
			for k, v := range before {
				if !strings.Contains(k, ".kothd") {
					visible[k] = v
				}
			}
			torn := fmt.Sprint(visible) != fmt.Sprint(runSet(1)) && fmt.Sprint(visible) != fmt.Sprint(runSet(2))
			if torn != tc.torn {
				t.Fatalf("killed at %s, torn = %v: %v", tc.at, torn, before)
			}
			if err := d.Repair(); err != nil {
				t.Fatal(err)
			}
			wantRun(t, d.Path, tc.outcome)
			// And the next publication goes on from there.
			if _, err := d.Publish(context.Background(), runFiles(3), "run 3"); err != nil {
				t.Fatal(err)
			}
			got := listing(t, d.Path)
			if got["forty.md"] != "# run 3\n" || got["forty.json"] != `{"run":3}`+"\n" || len(got) != 3+tc.outcome {
				t.Errorf("after run 3: %v", got)
			}
			for n := range got {
				if strings.Contains(n, ".kothd") {
					t.Errorf("left behind: %s", n)
				}
			}
		})
	}
}

func TestCheckWrite(t *testing.T) {
	ok := Dir{Path: filepath.Join(t.TempDir(), "new")}
	// A path under a regular file cannot be a directory, for root too.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g, gh, _, _ := newTestGitHub(t)
	if err := CheckWrite(context.Background(), []Sink{ok, g}); err != nil {
		t.Fatalf("writable sinks: %v", err)
	}
	if l := listing(t, ok.Path); len(l) != 0 {
		t.Errorf("the check left %v", l)
	}
	gh.SetPush(false)
	err := CheckWrite(context.Background(), []Sink{Dir{Path: filepath.Join(file, "out")}, g})
	if err == nil || !strings.Contains(err.Error(), "can read o/r but not write") || !strings.Contains(err.Error(), "output directory "+file) {
		t.Errorf("err = %v", err)
	}
}
