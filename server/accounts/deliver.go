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

	"github.com/understudy-dev/understudy/internal/store"
)

// Delivery is an event waiting to reach one destination. A destination's deliveries go in
// the order their events happened: the first one waiting holds back the others until it is
// delivered or given up.
type Delivery struct {
	Key         string // destination|sequence (deliveryKey): the primary key
	Destination string
	Event       string
	NextAttempt time.Time
	Attempts    int
	// LastStatus and LastError say how the last attempt went (status 0: no HTTP answer).
	LastStatus int
	LastError  string
}

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
	// tick is how often the deliverer looks for due deliveries and expired state when
	// nothing wakes it: it follows the server's clock, which the admin API moves.
	tick = 50 * time.Millisecond
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
	mu     sync.Mutex
	busy   map[string]bool // destinations with an attempt in flight
	once   sync.Once
	client *http.Client
	// ctx ends attempts in flight when the server closes (cancel).
	ctx    context.Context
	cancel context.CancelFunc
}

func newDeliverer() *deliverer {
	ctx, cancel := context.WithCancel(context.Background())
	return &deliverer{wakeCh: make(chan struct{}, 1), stop: make(chan struct{}), busy: map[string]bool{},
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
			if err := s.sweep(); err != nil {
				s.cfg.Log.Error("accounts: retention sweep", "err", err)
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
}

// due is a delivery to attempt, with what it needs.
type due struct {
	delivery Delivery
	event    Event
	url      string
	secret   string
}

// deliverDue starts an attempt for the first waiting delivery of each destination whose
// time has come and which has no attempt in flight.
func (s *Server) deliverDue() {
	ctx := context.Background()
	now := s.now()
	var list []due
	var orphans []string
	_ = s.db.View(ctx, func(tx *store.Tx) error {
		s.tables.Destinations.Each(tx, func(_ string, dest EventDestination) bool {
			if s.deliveries.isBusy(dest.ID) {
				return true
			}
			s.tables.Deliveries.Scan(tx, dest.ID+"|", dest.ID+"}", nil, func(_ store.Cursor, dl Delivery) bool {
				if dl.NextAttempt.After(now) {
					return false
				}
				ev, ok := s.tables.Events.Get(tx, dl.Event)
				if !ok {
					orphans = append(orphans, dl.Key) // its event went with retention
					return true
				}
				list = append(list, due{delivery: dl, event: ev, url: dest.URL, secret: dest.Secret})
				return false
			})
			return true
		})
		return nil
	})
	if len(orphans) > 0 {
		_ = s.db.Update(ctx, func(tx *store.Tx) error {
			for _, k := range orphans {
				s.tables.Deliveries.Delete(tx, k)
			}
			return nil
		})
	}
	for _, d := range list {
		if !s.deliveries.claim(d.delivery.Destination) {
			continue
		}
		s.deliveries.done.Add(1)
		go func() {
			defer s.deliveries.done.Done()
			defer s.deliveries.release(d.delivery.Destination)
			s.attempt(d)
		}()
	}
}

func (d *deliverer) isBusy(dest string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.busy[dest]
}

func (d *deliverer) claim(dest string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy[dest] {
		return false
	}
	d.busy[dest] = true
	return true
}

func (d *deliverer) release(dest string) {
	d.mu.Lock()
	delete(d.busy, dest)
	d.mu.Unlock()
	d.wake() // the destination's next event may be due
}

// attempt POSTs the event's notification to the endpoint, signed, and records the outcome:
// delivered (2xx) removes the delivery; otherwise the next attempt is scheduled, or the
// event is given up once the retry window has passed.
func (s *Server) attempt(d due) {
	payload := notification(d.event)
	start := s.now()
	status, errText := s.post(d.url, d.secret, payload, start)
	if s.deliveries.ctx.Err() != nil {
		return // cut short by Close: the delivery stays as it was, to be attempted again
	}
	took := s.now().Sub(start)
	a := DeliveryAttempt{Time: start, Destination: d.delivery.Destination, Event: d.event.ID, EventType: d.event.Type, URL: d.url,
		Attempt: d.delivery.Attempts + 1, Status: status, Error: errText, Duration: took, Delivered: status >= 200 && status < 300}
	err := s.db.Update(context.Background(), func(tx *store.Tx) error {
		cur, ok := s.tables.Deliveries.Get(tx, d.delivery.Key)
		if !ok {
			return nil // the destination was deleted meanwhile, or a reset ran
		}
		if a.Delivered {
			s.tables.Deliveries.Delete(tx, cur.Key)
			return nil
		}
		cur.Attempts++
		cur.LastStatus, cur.LastError = status, errText
		cur.NextAttempt = s.now().Add(backoff(cur.Attempts))
		if cur.NextAttempt.After(d.event.Created.Add(retryWindow)) {
			a.GaveUp = true
			s.tables.Deliveries.Delete(tx, cur.Key)
			return nil
		}
		return s.tables.Deliveries.Put(tx, cur.Key, cur)
	})
	if err != nil {
		s.cfg.Log.Error("accounts: recording a delivery attempt", "event", d.event.ID, "err", err)
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
	n := struct {
		ID            string         `json:"id"`
		Object        string         `json:"object"`
		Type          string         `json:"type"`
		Livemode      bool           `json:"livemode"`
		Created       string         `json:"created"`
		Context       *string        `json:"context"`
		Reason        any            `json:"reason"`
		RelatedObject *relatedObject `json:"related_object,omitempty"`
	}{ID: ev.ID, Object: "v2.core.event", Type: ev.Type, Livemode: ev.Livemode, Created: timestamp(ev.Created)}
	if r := renderEvent(ev).Reason; !r.IsNull() {
		n.Reason = r.MustGet()
	}
	if ev.RelatedID != "" {
		n.RelatedObject = &relatedObject{ID: ev.RelatedID, Type: ev.RelatedType, URL: ev.RelatedURL}
	}
	raw, _ := json.Marshal(n)
	return raw
}
