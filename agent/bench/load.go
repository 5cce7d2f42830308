package bench

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine is how busy the machine was around a run. A ratio taken while
// other work runs is not a measurement: the bare echo suffers more from a
// loaded CPU than aoi does, so the ratio looks better than it is.
type Machine struct {
	Cores int `json:"cores"`
	// GOMAXPROCS is how many goroutines the process ran at once (aoi
	// runs one more than it has cores unless GOMAXPROCS is set).
	GOMAXPROCS int     `json:"gomaxprocs"`
	LoadBefore float64 `json:"load_avg_1m_before"` // -1 when unknown
	LoadAfter  float64 `json:"load_avg_1m_after"`  // -1 when unknown
	// DataFS is the filesystem the agents' data was on (ext4, tmpfs…;
	// empty when unknown). The aoi.query phase commits every request
	// there, and a disk's checkpoint writes cost it throughput that tmpfs
	// does not: compare figures taken on the same kind.
	DataFS string `json:"data_fs,omitempty"`
}

// Quiet reports whether the run counts as a measurement: the 1-minute load
// average stayed at or below the core count before and after the run.
func (m Machine) Quiet() bool {
	return m.LoadBefore >= 0 && m.LoadAfter >= 0 &&
		m.LoadBefore <= float64(m.Cores) && m.LoadAfter <= float64(m.Cores)
}

// Verdict says in words whether the ratio can be trusted, and where the
// agents' data was.
func (m Machine) Verdict() string {
	v := m.load()
	if m.DataFS != "" {
		v += "; data on " + m.DataFS
	}
	return v
}

// load says how busy the machine was, and so whether the ratio counts.
func (m Machine) load() string {
	if m.LoadBefore < 0 || m.LoadAfter < 0 {
		return "load average unknown on this system: check the machine is idle before trusting the ratio"
	}
	if m.Quiet() {
		return fmt.Sprintf("load average %.2f → %.2f on %d cores (GOMAXPROCS %d)", m.LoadBefore, m.LoadAfter, m.Cores, m.GOMAXPROCS)
	}
	return fmt.Sprintf("NOT A MEASUREMENT: load average %.2f → %.2f exceeds %d cores; rerun on an idle machine",
		m.LoadBefore, m.LoadAfter, m.Cores)
}

// loadAverage reads the 1-minute load average (Linux /proc/loadavg; -1
// elsewhere or when unreadable).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	return parseLoadAvg(string(b))
}

func parseLoadAvg(s string) float64 {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || v < 0 {
		return -1
	}
	return v
}

func numCores() int { return runtime.NumCPU() }
