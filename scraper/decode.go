package scraper

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
)

// decodeBody returns the JSON text of a response body. The API compresses its responses,
// and not every proxy on the way keeps the Content-Encoding header, so the body itself
// decides: gzip magic, a zlib header, valid JSON, or else raw deflate (a raw deflate
// stream can start with '{', hence the validity check). contentEncoding only words errors.
func decodeBody(raw []byte, contentEncoding string) ([]byte, error) {
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		return inflate(zr, "gzip")
	}
	if isZlib(raw) {
		if zr, err := zlib.NewReader(bytes.NewReader(raw)); err == nil {
			if out, err := inflate(zr, "zlib"); err == nil {
				return out, nil
			}
		}
	}
	plain := looksLikeJSON(raw)
	if plain && json.Valid(raw) {
		return raw, nil
	}
	if out, err := inflate(flate.NewReader(bytes.NewReader(raw)), "deflate"); err == nil {
		return out, nil
	} else if !plain {
		return nil, fmt.Errorf("body is neither JSON nor gzip/deflate compressed (Content-Encoding %q, %d bytes): %w", contentEncoding, len(raw), err)
	}
	return raw, nil // let the JSON decoder say what is wrong with it
}

func inflate(r io.ReadCloser, what string) ([]byte, error) {
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s body: %w", what, err)
	}
	if len(out) > maxBody {
		return nil, fmt.Errorf("%s body inflates to more than %d bytes", what, maxBody)
	}
	return out, nil
}

// isZlib checks the two-byte zlib header: deflate method, window ≤ 32K, valid check bits.
func isZlib(b []byte) bool {
	return len(b) >= 2 && b[0]&0x0f == 8 && b[0]>>4 <= 7 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0
}

func looksLikeJSON(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}
