package config

import (
	"strings"
	"testing"
	"time"
)

func envOf(values map[string]string) func(string) string {
	return func(name string) string { return values[name] }
}

func TestConfigDefaultsFlagsAndEnvironment(t *testing.T) {
	c, err := Load(nil, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.RequestTimeout != 10*time.Second || c.MaxInFlight != 64 || c.MaxConnectionsClient != 256 ||
		c.MetricsListen != "127.0.0.1:9464" || c.MaxConnections != 1024 || c.BodyTimeout != 5*time.Second {
		t.Errorf("defaults: %+v", c)
	}
	c, err = Load([]string{"--request-timeout", "3s", "--max-in-flight", "10"},
		envOf(map[string]string{"REQUEST_TIMEOUT": "7s", "GATEWAY_MAX_STREAMS": "20", "GATEWAY_MAX_STREAMS_PER_CLIENT": "5"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.RequestTimeout != 3*time.Second || c.MaxInFlight != 10 || c.MaxStreamsClient != 5 || c.MaxStreams != 20 {
		t.Errorf("a flag wins over the environment, which wins over the default: %+v", c)
	}
}

func TestConfigRefusesBadValuesNamingThem(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, map[string]string{"REQUEST_TIMEOUT": "10"}, `REQUEST_TIMEOUT="10": time: missing unit`},
		{nil, map[string]string{"REQUEST_TIMEOUT": "-1s"}, "--request-timeout (env REQUEST_TIMEOUT) is -1s"},
		{nil, map[string]string{"GATEWAY_MAX_IN_FLIGHT": "many"}, `GATEWAY_MAX_IN_FLIGHT="many"`},
		{nil, map[string]string{"GATEWAY_MAX_IN_FLIGHT": "-1"}, "--max-in-flight (env GATEWAY_MAX_IN_FLIGHT) is -1"},
		{nil, map[string]string{"GATEWAY_TRUSTED_PROXY": "proxy.local"}, `is "proxy.local": it must be an IP address`},
		{[]string{"--request-timeout", "2m"}, nil, "--max-request-timeout 1m0s is below --request-timeout 2m0s"},
		{[]string{"--max-streams", "5", "--max-streams-per-client", "6"}, nil, "--max-streams-per-client 6 is above --max-streams 5"},
		{[]string{"--max-in-flight", "abc"}, nil, `invalid value "abc" for flag -max-in-flight`},
		{[]string{"--metrics-listen", "9464"}, nil, `--metrics-listen "9464"`},
		{[]string{"extra"}, nil, "unexpected arguments"},
	} {
		_, err := Load(tc.args, envOf(tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: error %v, want one containing %q", tc.args, tc.env, err, tc.want)
		}
	}
}

func TestConfigReportsEveryBadValueAtOnce(t *testing.T) {
	_, err := Load(nil, envOf(map[string]string{"REQUEST_TIMEOUT": "10", "GATEWAY_MAX_STREAMS": "x"}))
	if err == nil || !strings.Contains(err.Error(), "REQUEST_TIMEOUT") || !strings.Contains(err.Error(), "GATEWAY_MAX_STREAMS") {
		t.Errorf("error %v", err)
	}
}
