package main

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeRoot writes files (path under the root: content) into a temp dir standing for "/".
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for path, content := range files {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestTheContainerMemoryLimitIsReadFromCgroups(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64 // 0: no limit
	}{
		{"v2 in its own namespace", map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "134217728\n",
		}, 128 << 20},
		{"v2 unlimited", map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "max\n",
		}, 0},
		{"v2 nested: the parent's limit binds", map[string]string{
			"proc/self/cgroup": "0::/kubepods/pod1/gateway\n",
			"sys/fs/cgroup/kubepods/pod1/gateway/memory.max": "max\n",
			"sys/fs/cgroup/kubepods/pod1/memory.max":         "268435456\n",
			"sys/fs/cgroup/kubepods/memory.max":              "max\n",
		}, 256 << 20},
		{"v1", map[string]string{
			"proc/self/cgroup": "12:pids:/docker/abc\n4:memory:/docker/abc\n0::/\n",
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "134217728\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":            "9223372036854771712\n",
		}, 128 << 20},
		{"v1 unlimited, path not mounted", map[string]string{
			"proc/self/cgroup":                           "4:memory:/process_api/12387\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
		}, 0},
		{"v1 with controllers joined", map[string]string{
			"proc/self/cgroup":                           "3:cpu,memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "67108864\n",
		}, 64 << 20},
		{"no cgroup files at all", map[string]string{}, 0},
		{"garbage", map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "lots\n",
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := cgroupMemoryLimit(fakeRoot(t, c.files))
			if got != c.want || ok != (c.want != 0) {
				t.Errorf("got %d, %v; want %d", got, ok, c.want)
			}
		})
	}
}

func TestTheSoftLimitLeavesHeadroomBelowTheContainers(t *testing.T) {
	if got := softMemoryLimit(128 << 20); got < 110<<20 || got > 120<<20 {
		t.Errorf("soft limit for 128 MiB: %d MiB", got>>20)
	}
}

func TestNoSoftLimitWithoutAContainerLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	if limit, source := setMemoryLimit(t.TempDir()); limit != 0 {
		t.Errorf("set %d (%s) with no cgroup limit", limit, source)
	}
}
