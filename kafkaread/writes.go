package kafkaread

// This is the one file of the product that sends a request which changes
// a cluster (see the package doc; internal/testkit/house keeps every other
// file to reads). Each function here says what it writes.

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FeatureUpdate is one feature of an UpdateFeatures request.
type FeatureUpdate struct {
	Feature string
	Level   int16
	// UpgradeType is the wire value: 1 UPGRADE, 2 SAFE_DOWNGRADE,
	// 3 UNSAFE_DOWNGRADE.
	UpgradeType int8
}

// FeatureResult is Kafka's answer for one feature.
type FeatureResult struct {
	Feature string `json:"feature"`
	// Error is Kafka's error name ("" when accepted) and Message its
	// message.
	Error   string `json:"error,omitempty"`
	Message string `json:"message,omitempty"`
}

// Accepted says whether Kafka accepted the feature's update.
func (r FeatureResult) Accepted() bool { return r.Error == "" }

// ChangeFeatures sends UpdateFeatures: with validateOnly the controller
// runs every check and writes nothing; without, it WRITES the new levels
// (FeatureLevelRecords, or kraft.version's control records). Results come
// per feature as Kafka answers them: v0–v1 per feature; v2 (3.9+) answers
// only with a top-level error, which then applies to every feature (Kafka
// applies a request whole or not at all). An error is returned only when
// the request could not be sent or answered.
func (c *Client) ChangeFeatures(ctx context.Context, updates []FeatureUpdate, validateOnly bool) ([]FeatureResult, error) {
	if err := c.need(57, 1); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.Version = min(c.APIs[57][1], req.MaxVersion())
	req.ValidateOnly = validateOnly
	req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
	for _, u := range updates {
		fu := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
		fu.Feature, fu.MaxVersionLevel, fu.UpgradeType = u.Feature, u.Level, u.UpgradeType
		req.FeatureUpdates = append(req.FeatureUpdates, fu)
	}
	send := c.request
	if c.cfg.Controllers {
		// A controller that is not the active one answers NOT_CONTROLLER:
		// send to the active controller, as Kafka's admin client does.
		to, err := c.activeController(ctx)
		if err != nil {
			return nil, err
		}
		if to != c {
			defer to.Close()
		}
		send = to.request
	}
	resp, err := send(ctx, req)
	if err != nil {
		return nil, err
	}
	r := resp.(*kmsg.UpdateFeaturesResponse)
	top, topMsg := "", ""
	if e := kerr.ErrorForCode(r.ErrorCode); e != nil {
		top = errName(e)
		if r.ErrorMessage != nil {
			topMsg = *r.ErrorMessage
		}
	}
	byName := map[string]FeatureResult{}
	for _, res := range r.Results {
		fr := FeatureResult{Feature: res.Feature}
		if e := kerr.ErrorForCode(res.ErrorCode); e != nil {
			fr.Error = errName(e)
			if res.ErrorMessage != nil {
				fr.Message = *res.ErrorMessage
			}
		}
		byName[res.Feature] = fr
	}
	out := make([]FeatureResult, 0, len(updates))
	for _, u := range updates {
		fr, ok := byName[u.Feature]
		if !ok {
			fr = FeatureResult{Feature: u.Feature}
		}
		if top != "" && fr.Error == "" {
			fr.Error, fr.Message = top, topMsg
		}
		out = append(out, fr)
	}
	return out, nil
}

func errName(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Message
	}
	return err.Error()
}

// activeController returns a client of the active controller: c itself
// when it is the one answering, else a new connection with the same
// settings (the caller closes it).
func (c *Client) activeController(ctx context.Context) (*Client, error) {
	nodes, active, err := c.describeCluster(ctx, 2)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if n.id != active {
			continue
		}
		if n.addr == c.Addr {
			return c, nil
		}
		cfg := c.cfg
		cfg.Bootstrap = []string{n.addr}
		return Dial(ctx, cfg)
	}
	if active < 0 {
		return c, nil
	}
	return nil, fmt.Errorf("%w: the active controller %d is not among the controllers %s lists", ErrUnreachable, active, c.Addr)
}
