// Package bench holds kmeta's side-by-side benchmarks against Kafka's own
// tools. They are not timed tests: `make bench` runs them (KMETA_BENCH=1),
// they print figures, and they fail only when a tool cannot do the job
// (Kafka cannot read what kmeta wrote, outputs disagree).
package bench
