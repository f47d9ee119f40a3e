// Package control holds what the admin API observes and steers across every API: a bounded
// journal of recent requests, fault rules that make matching requests fail or slow down,
// and Prometheus metrics. The server's middleware feeds them; server/admin serves them.
package control
