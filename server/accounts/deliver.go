package accounts

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// Delivery is an event waiting to reach one destination. A destination's deliveries go in
// the order their events happened: the first one waiting holds back the others until it is
// delivered or given up. The queue is the store's, so that any server on the database can
// deliver: an attempt claims its delivery with a lease, which another server waits out.
type Delivery struct {
	Key         string // destination|sequence (deliveryKey): the primary key
	Destination string
	Event       string
	NextAttempt time.Time
	Attempts    int
	// LastStatus and LastError say how the last attempt went (status 0: no HTTP answer).
	LastStatus int
	LastError  string
	// Lease is the claim of the attempt in flight (a token of the server that runs it),
	// until LeaseUntil; "" when none runs.
	Lease      string    `json:",omitempty"`
	LeaseUntil time.Time `json:",omitzero"`
}

// leased says an attempt of the delivery is in flight at wall, the machine's time: a lease
// times the attempt's HTTP call, which the sandbox clock (advanced at will) does not.
func (d Delivery) leased(wall time.Time) bool { return d.Lease != "" && wall.Before(d.LeaseUntil) }

func deliveryKey(destination string, seq uint64) string {
	return fmt.Sprintf("%s|%020d", destination, seq)
}

// DeliveryAttempt is one try to deliver an event, as Config.OnDelivery is told of it.
type DeliveryAttempt struct {
	Time        time.Time
	Destination string
	Event       string
	EventType   string
	URL         string
	Attempt     int // 1 for the first
	Status      int // the endpoint's HTTP status; 0 when it did not answer
	Error       string
	Duration    time.Duration
	// Delivered says the endpoint took the event (2xx); GaveUp says no attempt follows.
	Delivered, GaveUp bool
}

// Retries: while an endpoint fails, the next attempt waits retryBase, doubling each time up
// to retryMax; after retryWindow from the event's creation the event is given up.
const (
	retryBase   = time.Minute
	retryMax    = time.Hour
	retryWindow = 3 * 24 * time.Hour
	// attemptTimeout bounds one POST.
	attemptTimeout = 10 * time.Second
	// lease is how long an attempt holds its delivery: the attempt is over by then, or the
	// server that made it stopped and another may try.
	lease = attemptTimeout + 5*time.Second
	// tick is how often the deliverer looks for due deliveries and expired state when
	// nothing wakes it: it follows the server's clock, which the admin API moves.
	tick = 50 * time.Millisecond
	// sweepLease is the term of the lease on the retention sweep: a server that stops
	// renewing it (it died) is replaced by another within it.
	sweepLease = 10 * time.Second
)

// backoff is how long to wait after the nth failed attempt.
func backoff(n int) time.Duration {
	d := retryBase
	for i := 1; i < n && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// deliverer runs the deliveries and the retention sweep in the background.
type deliverer struct {
	wakeCh chan struct{}
	stop   chan struct{}
	done   sync.WaitGroup
	once   sync.Once
	client *http.Client
	// ctx ends attempts in flight when the server closes (cancel).
	ctx    context.Context
	cancel context.CancelFunc
}

func newDeliverer() *deliverer {
	ctx, cancel := context.WithCancel(context.Background())
	return &deliverer{wakeCh: make(chan struct{}, 1), stop: make(chan struct{}),
		client: &http.Client{Timeout: attemptTimeout}, ctx: ctx, cancel: cancel}
}

// wake makes the deliverer look at once.
func (d *deliverer) wake() {
	if d == nil {
		return
	}
	select {
	case d.wakeCh <- struct{}{}:
	default:
	}
}

// Start runs the background work: deliveries to event destinations and the removal of
// state past its retention. Close stops it.
func (s *Server) Start() {
	d := s.deliveries
	d.done.Add(1)
	go func() {
		defer d.done.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-d.stop:
				return
			case <-d.wakeCh:
			case <-t.C:
			}
			if s.sweepLease.Held(d.ctx) {
				if err := s.sweep(); err != nil {
					s.cfg.Log.Error("accounts: retention sweep", "err", err)
				}
			}
			s.deliverDue()
		}
	}()
}

// Close stops the background work and waits for attempts in flight.
func (s *Server) Close() {
	d := s.deliveries
	d.once.Do(func() { close(d.stop); d.cancel() })
	d.done.Wait()
	s.sweepLease.Release(context.Background()) // another server need not wait out its term
}

// due is a delivery to attempt, with what it needs.
type due struct {
	delivery Delivery
	event    Event
	url      string
	secret   string
}

// deliverDue starts an attempt for the first waiting delivery of each destination whose
// time has come and which no attempt holds.
func (s *Server) deliverDue() {
	ctx := context.Background()
	now := s.now()
	var list []Delivery
	var orphans []string
	_ = s.db.View(ctx, func(tx *store.Tx) error {
		// One destination at a time, from its first waiting delivery; past its keys (every
		// key is destination|digits) to the next one.
		for from := ""; ; {
			var first *Delivery
			s.tables.Deliveries.Scan(tx, from, "", nil, func(_ store.Cursor, dl Delivery) bool {
				if _, ok := s.tables.Events.Get(tx, dl.Event); !ok {
					orphans = append(orphans, dl.Key) // its event went with retention
					return true
				}
				first = &dl
				return false
			})
			if first == nil {
				return nil
			}
			if !first.leased(time.Now()) && !first.NextAttempt.After(now) {
				list = append(list, *first)
			}
			from = first.Destination + "|~"
		}
	})
	if len(orphans) > 0 {
		_ = s.db.Update(ctx, func(tx *store.Tx) error {
			for _, k := range orphans {
				s.tables.Deliveries.Delete(tx, k)
			}
			return nil
		})
	}
	for _, dl := range list {
		d, ok := s.claim(ctx, dl.Key, now)
		if !ok {
			continue
		}
		s.deliveries.done.Add(1)
		go func() {
			defer s.deliveries.done.Done()
			s.attempt(d)
		}()
	}
}

// claim leases a delivery for an attempt, if it is still its destination's first, due and
// free, and returns what the attempt needs.
func (s *Server) claim(ctx context.Context, key string, now time.Time) (due, bool) {
	var d due
	claimed := false
	token := s.random(16)
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		claimed = false
		dl, ok := s.tables.Deliveries.Get(tx, key)
		if !ok || dl.leased(time.Now()) || dl.NextAttempt.After(now) {
			return nil
		}
		first := ""
		s.tables.Deliveries.Scan(tx, dl.Destination+"|", dl.Destination+"}", nil, func(_ store.Cursor, x Delivery) bool {
			first = x.Key
			return false
		})
		ev, okEvent := s.tables.Events.Get(tx, dl.Event)
		dest, okDest := s.tables.Destinations.Get(tx, dl.Destination)
		if first != key || !okEvent || !okDest {
			return nil
		}
		w, _ := dest.Object.WebhookEndpoint.Get()
		dl.Lease, dl.LeaseUntil = token, time.Now().Add(lease)
		d = due{delivery: dl, event: ev, url: nullableValue(w.Url), secret: nullableValue(w.SigningSecret)}
		claimed = true
		return s.tables.Deliveries.Put(tx, key, dl)
	})
	return d, claimed && err == nil
}

// attempt POSTs the event's notification to the endpoint, signed, and records the outcome:
// delivered (2xx) removes the delivery; otherwise the next attempt is scheduled, or the
// event is given up once the retry window has passed.
func (s *Server) attempt(d due) {
	ctx := context.Background()
	defer s.deliveries.wake() // the destination's next event may be due
	payload := notification(d.event)
	start := s.now()
	status, errText := s.post(d.url, d.secret, payload, start)
	if s.deliveries.ctx.Err() != nil {
		// Cut short by Close: the delivery stays as it was, to be attempted again.
		_ = s.db.Update(ctx, func(tx *store.Tx) error {
			if cur, ok := s.tables.Deliveries.Get(tx, d.delivery.Key); ok && cur.Lease == d.delivery.Lease {
				cur.Lease, cur.LeaseUntil = "", time.Time{}
				return s.tables.Deliveries.Put(tx, cur.Key, cur)
			}
			return nil
		})
		return
	}
	took := s.now().Sub(start)
	a := DeliveryAttempt{Time: start, Destination: d.delivery.Destination, Event: d.event.ID(), EventType: d.event.Object.Type, URL: d.url,
		Attempt: d.delivery.Attempts + 1, Status: status, Error: errText, Duration: took, Delivered: status >= 200 && status < 300}
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		a.GaveUp = false
		cur, ok := s.tables.Deliveries.Get(tx, d.delivery.Key)
		if !ok || cur.Lease != d.delivery.Lease {
			return nil // the destination was deleted meanwhile, a reset ran, or another server took over
		}
		if a.Delivered {
			s.tables.Deliveries.Delete(tx, cur.Key)
			return nil
		}
		cur.Attempts++
		cur.LastStatus, cur.LastError = status, errText
		cur.Lease, cur.LeaseUntil = "", time.Time{}
		cur.NextAttempt = s.now().Add(backoff(cur.Attempts))
		if cur.NextAttempt.After(d.event.created().Add(retryWindow)) {
			a.GaveUp = true
			s.tables.Deliveries.Delete(tx, cur.Key)
			return nil
		}
		return s.tables.Deliveries.Put(tx, cur.Key, cur)
	})
	if err != nil {
		s.cfg.Log.Error("accounts: recording a delivery attempt", "event", d.event.ID(), "err", err)
	}
	if s.cfg.OnDelivery != nil {
		s.cfg.OnDelivery(a)
	}
}

// post sends one signed notification; the answer's body is read and dropped.
func (s *Server) post(url, secret string, payload []byte, at time.Time) (status int, errText string) {
	ctx, cancel := context.WithTimeout(s.deliveries.ctx, attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	req.Header.Set("Stripe-Signature", signature(secret, payload, at))
	resp, err := s.deliveries.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, ""
}

// signature is the Stripe-Signature header: t=<Unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<payload>" keyed by the destination's signing secret>.
func signature(secret string, payload []byte, at time.Time) string {
	t := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t))
	mac.Write([]byte("."))
	mac.Write(payload)
	return "t=" + t + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// notification is the thin event as a destination receives it: no data, the related
// object's id, type and URL to fetch it by.
func notification(ev Event) []byte {
	o := ev.Object
	n := struct {
		ID            string                  `json:"id"`
		Object        string                  `json:"object"`
		Type          string                  `json:"type"`
		Livemode      bool                    `json:"livemode"`
		Created       string                  `json:"created"`
		Context       *string                 `json:"context"`
		Reason        any                     `json:"reason"`
		RelatedObject *gen.EventRelatedObject `json:"related_object,omitempty"`
	}{ID: o.Id, Object: string(o.Object), Type: o.Type, Livemode: o.Livemode, Created: o.Created}
	if r, err := o.Reason.Get(); err == nil {
		n.Reason = r
	}
	if r, err := o.RelatedObject.Get(); err == nil {
		n.RelatedObject = &r
	}
	raw, _ := json.Marshal(n)
	return raw
}

// nullableValue is a nullable member's value ("" when null).
func nullableValue(n nullable.Nullable[string]) string {
	v, _ := n.Get()
	return v
}
