package scraper

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"strings"
	"testing"
)

func compress(t testing.TB, kind string, data []byte) []byte {
	var buf bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	switch kind {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "zlib":
		w = zlib.NewWriter(&buf)
	case "flate":
		w, _ = flate.NewWriter(&buf, flate.BestCompression)
	default:
		return data
	}
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

func TestDecodeBody(t *testing.T) {
	body := []byte(`{"items":[],"has_more":false,"quota_max":300,"quota_remaining":299}`)
	for _, kind := range []string{"gzip", "zlib", "flate", "plain"} {
		for _, header := range []string{"", "gzip", "deflate", "identity"} {
			got, err := decodeBody(compress(t, kind, body), header)
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("%s body with Content-Encoding %q: %q, %v", kind, header, got, err)
			}
		}
	}
	if _, err := decodeBody([]byte{0x1f, 0x8b, 1, 2, 3}, "gzip"); err == nil {
		t.Errorf("truncated gzip decoded")
	}
	if _, err := decodeBody([]byte("\x00\x01garbage"), ""); err == nil || !strings.Contains(err.Error(), "neither JSON nor") {
		t.Errorf("garbage: %v", err)
	}
}

// BenchmarkDecodeGzip inflates a 1 MB gzip body (a full page of long answers is ~0.3 MB).
func BenchmarkDecodeGzip(b *testing.B) {
	page := []byte(`{"items":[` + strings.Repeat(`{"body":"<pre><code>class A(Bot):\n    pass\n</code></pre>"},`, 20000) + `{}],"has_more":false}`)
	z := compress(b, "gzip", page)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := decodeBody(z, ""); err != nil {
			b.Fatal(err)
		}
	}
}
