package main

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// memoryLimitRatio is the share of the container's memory limit given to Go as its soft limit:
// the rest is headroom for what the runtime does not count (thread stacks outside the heap's
// accounting, the binary's text, page-cache of its own files) and for the lag between the heap
// passing the limit and the collector catching up. automemlimit's default, for the same reasons.
const memoryLimitRatio = 0.9

// unlimitedCgroup is the smallest value cgroup v1 reports for "no limit" (PAGE_COUNTER_MAX pages,
// rounded: 9223372036854771712 on 4 KiB pages); anything at or above it is no limit.
const unlimitedCgroup = 1 << 62

// cgroupMemoryLimit is the memory limit of the cgroup this process runs in, in bytes, read under
// root (the filesystem root: "/" in production, a temp dir in tests): cgroup v2's memory.max, or
// v1's memory.limit_in_bytes, the smallest along the path from the process's cgroup up to the
// hierarchy's root (a parent's limit binds its children). 0 and false when there is none.
func cgroupMemoryLimit(root string) (int64, bool) {
	v2, v1, err := ownCgroups(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0, false
	}
	if v1 != "" {
		if limit, ok := smallestLimit(filepath.Join(root, "sys/fs/cgroup/memory"), v1, "memory.limit_in_bytes"); ok {
			return limit, true
		}
	}
	if v2 != "" {
		return smallestLimit(filepath.Join(root, "sys/fs/cgroup"), v2, "memory.max")
	}
	return 0, false
}

// ownCgroups reads /proc/self/cgroup: the v2 path ("0::/path") and the v1 memory controller's
// ("N:memory:/path" or a list of controllers including memory).
func ownCgroups(path string) (v2, v1 string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		parts := strings.SplitN(scanner.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
			continue
		}
		for _, controller := range strings.Split(parts[1], ",") {
			if controller == "memory" {
				v1 = parts[2]
			}
		}
	}
	return v2, v1, scanner.Err()
}

// smallestLimit is the smallest limit in file along cgroup's path under mount, from the cgroup
// itself up to the mount's root. In a container with its own cgroup namespace the path is "/"
// and only the mount's own file exists; where the path is not mounted, the mount's root file is
// all there is to read.
func smallestLimit(mount, cgroup, file string) (int64, bool) {
	smallest, found := int64(math.MaxInt64), false
	dir := filepath.Clean("/" + cgroup)
	for {
		if limit, ok := readLimit(filepath.Join(mount, dir, file)); ok {
			smallest, found = min(smallest, limit), true
		}
		if dir == "/" {
			break
		}
		dir = filepath.Dir(dir)
	}
	if !found {
		return 0, false
	}
	return smallest, true
}

// readLimit reads one limit file: a byte count, or "max" (v2) / a huge number (v1) for none.
func readLimit(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	text := strings.TrimSpace(string(data))
	if text == "max" {
		return 0, false
	}
	limit, err := strconv.ParseInt(text, 10, 64)
	if err != nil || limit <= 0 || limit >= unlimitedCgroup {
		return 0, false
	}
	return limit, true
}

// softMemoryLimit is the Go soft memory limit for a container limit: memoryLimitRatio of it.
func softMemoryLimit(containerLimit int64) int64 {
	return int64(float64(containerLimit) * memoryLimitRatio)
}

// setMemoryLimit gives Go a soft memory limit below the container's own limit, so that the
// collector works harder before the kernel would kill the process, and sets none where the
// container has no limit: a soft limit far below what the container allows turned overload into
// back-to-back collections (issue 40: 53 % of the gateway's CPU at a 20 MiB limit). GOMEMLIMIT,
// when set, wins (the runtime has applied it already). It returns the limit set (0: none) and
// where it came from, for the startup log line.
func setMemoryLimit(root string) (int64, string) {
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		return debug.SetMemoryLimit(-1), "GOMEMLIMIT"
	}
	containerLimit, ok := cgroupMemoryLimit(root)
	if !ok {
		return 0, "none: no cgroup memory limit"
	}
	limit := softMemoryLimit(containerLimit)
	debug.SetMemoryLimit(limit)
	return limit, "cgroup"
}
