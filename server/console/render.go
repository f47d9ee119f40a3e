package console

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	"html/template"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
)

//go:embed templates/*.html
var templateFiles embed.FS

// templates are the console's pages, each its file of templates/ over layout.html (which
// the page fills in by defining "content") and parts.html (pieces pages share, and the
// live view sends: "row"): parsed on the first page shown, not at start.
var templates = sync.OnceValue(func() map[string]*template.Template {
	pages, err := templateFiles.ReadDir("templates")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, f := range pages {
		name := strings.TrimSuffix(f.Name(), ".html")
		if name == "layout" || name == "parts" {
			continue
		}
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/parts.html", "templates/"+f.Name()))
	}
	return out
})

// page is what every page's template is given.
type page struct {
	Title string
	// Nav is the section the page belongs to, marked in the navigation.
	Nav string
	// CSRF goes in every form that changes something; Nonce on every script.
	CSRF, Nonce string
	// LoggedIn says whether the page was served to a session (the log-out button).
	LoggedIn bool
	// Capturing is until when the journal keeps bodies.
	Capturing time.Time
	Data      any
}

// render executes the page's template with the request's CSRF token and script nonce.
func render(ctx context.Context, name string, p page) ([]byte, error) {
	t, ok := templates()[name]
	if !ok {
		return nil, fmt.Errorf("console: no page %q", name)
	}
	r := requestOf(ctx)
	p.CSRF, p.Nonce, p.LoggedIn = r.session.csrf, r.nonce, r.session.valid && !r.session.viaToken
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// renderPart executes one of parts.html's templates.
func renderPart(name string, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := templates()["error"].ExecuteTemplate(&b, name, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05.000")
	},
	"clock": func(t time.Time) string { return t.UTC().Format("15:04:05.000") },
	"ms":    func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) },
	"statusClass": func(status int) string {
		switch {
		case status == 0 || status >= 500:
			return "s5"
		case status >= 400:
			return "s4"
		case status >= 300:
			return "s3"
		}
		return "s2"
	},
	"pretty": pretty,
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err.Error()
		}
		return string(b)
	},
	"deref": func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	},
	"join": strings.Join,
	// related is what an event is about: "type id".
	"related": func(ev accountsgen.V2CoreEvent) string {
		if r, err := ev.RelatedObject.Get(); err == nil {
			return r.Type + " " + r.Id
		}
		return ""
	},
	// webhookURL is a destination's endpoint URL ("" for another kind).
	"webhookURL": func(d accountsgen.V2CoreEventDestination) string {
		if w, err := d.WebhookEndpoint.Get(); err == nil {
			if u, err := w.Url.Get(); err == nil {
				return u
			}
		}
		return ""
	},
	// base is a resource URL's last segment (its name), for tables: the whole URL goes in
	// the cell's title.
	"base": func(v any) string {
		s, ok := v.(string)
		if !ok {
			return ""
		}
		return path.Base(s)
	},
	"add": func(a, b int) int { return a + b },
	// plural is one when n is 1, else many: "1 account", "2 accounts".
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
	"mul": func(a, b int) int { return a * b },
}

// pretty is a body for reading: JSON indented, anything else as it came.
func pretty(data []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, data, "", "  ") == nil {
		return b.String()
	}
	return string(data)
}
