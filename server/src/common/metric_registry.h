// Where a module registers the series it reports on /metrics, without depending on how they are
// rendered: the observability layer's Metrics implements it, and each module (the change hub, the
// webhook sender, the read replicas, the exporter, the room blocks' pass) registers its own.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace hotel {

class MetricRegistry {
 public:
  virtual ~MetricRegistry() = default;
  // A gauge read at each scrape; value must be cheap and thread-safe. Registered before serving.
  virtual void AddGauge(std::string name, std::string help, std::function<double()> value) = 0;
  // A metric family with labels, read at each scrape: type is "gauge" or "counter"; samples are
  // pairs of a label set without braces (`state="ACTIVE"`, values already escaped with
  // LabelValue) and a value. Cheap and thread-safe, like AddGauge's.
  using Samples = std::vector<std::pair<std::string, double>>;
  virtual void AddFamily(std::string name, std::string help, std::string type, std::function<Samples()> samples) = 0;
};

// A label value escaped for the exposition format (backslash, quote, newline).
std::string LabelValue(absl::string_view value);

}  // namespace hotel
