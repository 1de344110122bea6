package kafkaread

import (
	"context"
	"fmt"

	"github.com/kmeta/kmeta/model"
)

// Image reads everything the admin API exposes into a model.Image.
// (Being built: this first version reads the cluster id only.)
func (c *Client) Image(ctx context.Context) (*model.Image, error) {
	return nil, fmt.Errorf("kafkaread: Image is not built yet")
}
