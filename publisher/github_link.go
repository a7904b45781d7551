package publisher

import (
	"net/url"
	"path"
)

// PageURL is where people read a published file on the web (the question's table links to
// the full board there): github.com for the public API, the same host as the API root for
// GitHub Enterprise.
func (g *GitHub) PageURL(name string) string {
	host := "https://github.com"
	if g.base != nil {
		host = (&url.URL{Scheme: g.base.Scheme, Host: g.base.Host}).String()
	}
	p := path.Join(g.Owner, g.Repo, "blob", g.Branch, g.Dir, name)
	return host + "/" + (&url.URL{Path: p}).EscapedPath()
}
