package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Backup copies the database consistently while it is being written (SQLite's online
// backup API), into a file that opens as a kothd database with every committed row.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, filepath.Join(dir, "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.DB().Exec(`INSERT INTO challenges (name, question_id) VALUES ('forty', 1)`)
	for i := range 200 {
		if err := st.AddEvent(ctx, "forty", "test", 0, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	go func() { // writes go on during the backup
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
				st.AddEvent(ctx, "forty", "more", 0, fmt.Sprint(i))
			}
		}
	}()
	out := filepath.Join(dir, "copy.db")
	err = st.Backup(ctx, out)
	close(stop)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := OpenReadOnly(ctx, out)
	if err != nil {
		t.Fatalf("the backup does not open: %v", err)
	}
	defer cp.Close()
	var n int
	if err := cp.DB().QueryRow(`SELECT count(*) FROM events WHERE kind = 'test'`).Scan(&n); err != nil || n != 200 {
		t.Errorf("backup holds %d of 200 events (%v)", n, err)
	}
	if _, err := os.Stat(out + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
}

// Opening a database of an older schema keeps a backup of it before migrating; one of a
// newer schema is refused with the advice to use a newer kothd.
func TestMigrationBackupAndNewerSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "kothd.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Migrated != "" {
		t.Errorf("a new database was backed up: %s", st.Migrated)
	}
	// As the previous schema had it: without the last migration's tables and columns
	// (answer_comments, api_state, question_boards' edit dates; a new migration at the end
	// must change these lines).
	for _, q := range []string{`DROP TABLE answer_comments`, `DROP TABLE api_state`, `ALTER TABLE question_boards DROP COLUMN own_edit_date`,
		`ALTER TABLE question_boards DROP COLUMN site_edit_date`, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations)-1)} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Migrated == "" || !strings.HasPrefix(st.Migrated, "kothd.db.before-v") {
		t.Fatalf("no backup before the migration: %q", st.Migrated)
	}
	old, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, st.Migrated)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var v int
	old.QueryRow("PRAGMA user_version").Scan(&v)
	old.Close()
	if v != len(migrations)-1 {
		t.Errorf("the backup has schema version %d, want %d", v, len(migrations)-1)
	}
	st.DB().Exec(fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations)+1))
	st.Close()
	for _, open := range []func(context.Context, string) (*Store, error){Open, OpenReadOnly} {
		if s, err := open(ctx, path); err == nil || !strings.Contains(err.Error(), "use a newer kothd") {
			t.Errorf("a newer schema: %v", err)
			if s != nil {
				s.Close()
			}
		}
	}
}
