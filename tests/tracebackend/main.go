// The trace backend of the test run: an OpenTelemetry Collector with only what the tests need, an
// OTLP receiver (HTTP and gRPC) and the file exporter, so tests read exported spans as OTLP/JSON
// lines (tests/e2e/test_otlp_export.py). Built from the Go module proxy at the versions go.mod pins,
// by scripts/trace-backend.sh.
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func components() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{Receivers: receivers, Exporters: exporters, Telemetry: otelconftelemetry.NewFactory()}, nil
}

func main() {
	info := component.BuildInfo{Command: "hotel-trace-backend", Description: "OTLP receiver and file exporter for tests", Version: "test"}
	cmd := otelcol.NewCommand(otelcol.CollectorSettings{BuildInfo: info, Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{ResolverSettings: confmap.ResolverSettings{
			ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()}, DefaultScheme: "file"}}})
	if err := cmd.Execute(); err != nil {
		log.Fatal(err)
	}
}
