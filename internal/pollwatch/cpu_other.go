//go:build !unix

package pollwatch

import "time"

// cpuMeasured: a stall cannot be told from an idle server here, so the watchdog never
// starts.
const cpuMeasured = false

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
