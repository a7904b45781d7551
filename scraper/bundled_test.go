package scraper_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// TestBundledSnapshots extracts every answer of the five bundled snapshots
// (testdata/snapshot/codegolf/<qid>) under the rules config.yaml gives each challenge, the
// production path. Each line: answer id, title, language, files (name:bytes, "x" when
// executable), main file, and the rejection reason (or "ok").
func TestBundledSnapshots(t *testing.T) {
	cfg, err := config.Load("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"forty": {
			`177771 "GoTo20Bot" python3 [bot.py:374] bot.py ok`,
			`177786 "OptFor2X" python3 [bot.py:1138] bot.py ok`,
			`177790 "StopBot and PointsAreForNerdsBot" python3 [bot.py:213] bot.py ok`,
			`177812 "Stalker and AggressiveStalker" python3 [bot.py:716] bot.py ok`,
			`177834 "LastRound" python3 [bot.py:451] bot.py ok`,
			`177853 "BinaryBot" python3 [bot.py:509] bot.py ok`,
			`177870 "StepBot" python3 [bot.py:634] bot.py ok`,
			`177902 "FlipCoinRollDice" python3 [bot.py:170] bot.py ok`,
			`177915 "BlessRNG" python3 [bot.py:151] bot.py ok`,
			`177941 "BrainBot" python3 [bot.py:833] bot.py ok`,
			`177968 "EnsureLead" python3 [bot.py:613] bot.py ok`,
			`177990 "ThrowThriceBot" python3 [bot.py:141] bot.py ok`,
			`178011 "Chaser" python3 [bot.py:582] bot.py ok`,
			`178040 "" python3 [] - no code block in the answer`,
			`178066 "QuotaBot" python3 [bot.py:432] bot.py ok`,
			`178093 "GoTo20Bot" python3 [bot.py:299] bot.py ok`,
			`178120 "Roll6Timesv2" python3 [bot.py:505] bot.py ok`,
			`178141 "SafetyNet" python3 [bot.py:253] bot.py ok`,
			`178173 "Hesitate" python3 [bot.py:426] bot.py ok`,
			`178204 "FortyTeen" python3 [bot.py:685] bot.py ok`,
			`178236 "CopyCatBot" python3 [bot.py:715] bot.py ok`,
			`178260 "MatchLeaderBot" python3 [bot.py:333] bot.py ok`,
			`178301 "TakeFive" python3 [bot.py:427] bot.py ok`,
		},
		"whiteelephant": {
			`169241 "SampleBot" python3 [bot.py:416] bot.py ok`,
			`169244 "LastMinuteBot" python3 [bot.py:361] bot.py ok`,
			`169247 "RobinHood" python3 [bot.py:418] bot.py ok`,
			`169251 "OddTodd" python3 [bot.py:936] bot.py ok`,
			`169255 "ThresholdBot" python3 [bot.py:361] bot.py ok`,
			`169262 "BitterBot" python3 [bot.py:349] bot.py ok`,
			`169266 "Joueur" python3 [bot.py:271] bot.py ok`,
			`169270 "SecondPlaceBot" python3 [bot.py:395] bot.py ok`,
			`169274 "The steal limit is never enforced" python3 [] - no code block in the answer`,
			`169281 "MirrorBot" python3 [bot.py:301] bot.py ok`,
			`169288 "GoodSamaritan" python3 [bot.py:268] bot.py ok`,
			`169302 "ThresholdBot (tuned)" python3 [bot.py:325] bot.py ok`,
		},
		"ruins": {
			`183108 "GrabAndRun" python3 [bot.py:610] bot.py ok`,
			`183119 "DeepDiver" python3 [bot.py:1396] bot.py ok`,
			`183142 "Appraiser" python3 [bot.py:1324] bot.py ok`,
			`183160 "Opportunist" python3 [bot.py:627] bot.py ok`,
			`183177 "Homebody" python3 [bot.py:292] bot.py ok`,
			`183203 "LightFingers" python3 [bot.py:344] bot.py ok`,
			`183231 "Pickpocket" python3 [bot.py:326] bot.py ok`,
			`183268 "Cartographer" python3 [bot.py:248] bot.py ok`,
			`183290 "Some thoughts on bidding" python3 [] - no code block in the answer`,
			`183345 "GrabAndRun" python3 [bot.py:196] bot.py ok`,
		},
		"bankheist": {
			`115321 "PassivePanga" python3 [bot.py:128] bot.py ok`,
			`115334 "KaylorrCriterion" python3 [bot.py:939] bot.py ok`,
			`115398 "MonisAddiction" python2 [bot.py:270] bot.py ok`,
			`115412 "Lurker" bash [bot.sh:19x] bot.sh ok`,
			`115450 "HeCKuSumer" c [bot.c:272] bot.c ok`,
			`115502 "gunHeCK" python2 [bot.py:582] bot.py ok`,
			`115577 "HardHatUmar" bash [bot.sh:183x] bot.sh ok`,
			`115601 "LimeadeSneaktar" bash [bot.sh:147x] bot.sh ok`,
			`115680 "OC'sRandomTpyos" python2 [bot.py:406] bot.py ok`,
			`115744 "SnitcherKing" c [snitch.h:109 bot.c:213] bot.c ok`,
			`115790 "RaysFive01K" python3 [bot.py:558] bot.py ok`,
			`115853 "Overflower" c [bot.c:156] bot.c ok`,
			`115901 "Pacifist" python3 [] - no code block in the answer`,
			`116020 "Chatterbox" python3 [bot.py:102] bot.py ok`,
			`116187 "BrainBank" [] - unknown language: Brainfuck (known: Bash, C, C++, Go, Java, JavaScript, Python 2, Python 3)`,
		},
		"mafia": {
			`151356 "Randy" python2 [run:49x randy.py:549x] - ok`,
			`151402 "CopTrust" bash [run:2856x] - ok`,
			`151488 "Sheriff" python3 [run:34x sheriff.py:3984x] - ok`,
			`151523 "Blabbermouth" c [bot.c:1359 run:42x] bot.c ok`,
			`151610 "Parrot" bash [run:78x] - ok`,
			`151677 "Mastermind" python3 [run:54x] - ok`,
			`151734 "Megaphone" bash [run:126x] - ok`,
			`152015 "Coming soon" python3 [] - no code block in the answer`,
		},
	}
	snap := scraper.Snapshot{Dir: "../testdata/snapshot", Site: cfg.Site}
	for i := range cfg.Challenges {
		ch := &cfg.Challenges[i]
		t.Run(ch.Name, func(t *testing.T) {
			answers, err := snap.Answers(context.Background(), ch.QuestionID)
			if err != nil {
				t.Fatal(err)
			}
			subs := scraper.ExtractAll(answers, scraper.RulesFromConfig(cfg, ch))
			var got []string
			for _, s := range subs {
				got = append(got, describe(s))
				if s.Hash == "" || s.Author == "" || s.Created == 0 {
					t.Errorf("answer %d: hash %q author %q created %d", s.AnswerID, s.Hash, s.Author, s.Created)
				}
				for _, f := range s.Files {
					if strings.Contains(f.Content, "&lt;") || strings.Contains(f.Content, "&amp;") {
						t.Errorf("answer %d %s: entities left in the code", s.AnswerID, f.Name)
					}
				}
			}
			w := want[ch.Name]
			for j := 0; j < max(len(got), len(w)); j++ {
				var g, x string
				if j < len(got) {
					g = got[j]
				}
				if j < len(w) {
					x = w[j]
				}
				if g != x {
					t.Errorf("answer %d:\n got %s\nwant %s", j+1, g, x)
				}
			}
		})
	}
}

func describe(s scraper.Submission) string {
	var files []string
	for _, f := range s.Files {
		x := ""
		if f.Exec {
			x = "x"
		}
		files = append(files, fmt.Sprintf("%s:%d%s", f.Name, len(f.Content), x))
	}
	reject := s.Reject
	if reject == "" {
		reject = "ok"
	}
	lang := s.Language
	if lang != "" {
		lang += " "
	}
	return fmt.Sprintf("%d %q %s[%s] %s %s", s.AnswerID, s.Title, lang, strings.Join(files, " "), or(s.Main, "-"), reject)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestBundledSnapshotsThroughTheAPI serves the bundled snapshots from the fake API and
// checks that the client returns exactly what replay returns, one request per question.
func TestBundledSnapshotsThroughTheAPI(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	if err := api.LoadSnapshot("../testdata/snapshot", "codegolf"); err != nil {
		t.Fatal(err)
	}
	c, _ := newClient(api)
	snap := scraper.Snapshot{Dir: "../testdata/snapshot", Site: "codegolf"}
	ids := []int64{115303, 151341, 169235, 177765, 183101}
	ctx := context.Background()
	for _, id := range ids {
		live, err := c.Answers(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := snap.Answers(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(live) != fmt.Sprint(rec) {
			t.Errorf("question %d: API and replay differ", id)
		}
	}
	if api.Requests() != len(ids) {
		t.Errorf("%d requests for %d questions of fewer than 100 answers", api.Requests(), len(ids))
	}
	probed, err := c.Probe(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := snap.Probe(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i := range probed {
		if probed[i].AnswerCount != replayed[i].AnswerCount || probed[i].LastActivityDate != replayed[i].LastActivityDate {
			t.Errorf("probe %+v, snapshot probe %+v", probed[i], replayed[i])
		}
	}
}
