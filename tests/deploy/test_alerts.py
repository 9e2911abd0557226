"""The alert rules deployed with the production overlay: promtool checks them and runs their unit
tests (alerts_test.yaml: synthetic series that fire and that stay quiet), and every alert links a
runbook section that exists in docs/operations.md."""
import os
import re
import shutil
import subprocess

import pytest
import yaml

from test_manifests import ROOT, documents

REQUIRED = {"HotelHighErrorRatio", "HotelHighLatencyP99", "HotelDatabaseUnavailable", "HotelDatabasePoolSaturated",
            "HotelInstanceDown", "HotelAllInstancesDown", "HotelShedding", "HotelWalArchiveFailing",
            "HotelBaseBackupTooOld", "HotelWebhookLagging", "HotelWebhookDisabled", "HotelReadReplicaLagging",
            "HotelNoSynchronousReplica"}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    """The PrometheusRule's spec as a plain Prometheus rule file, beside the unit tests."""
    docs = documents("overlays/production")
    rule = docs[("PrometheusRule", "hotel-data-service")]
    assert rule["apiVersion"] == "monitoring.coreos.com/v1" and rule["metadata"]["namespace"] == "hotel"
    directory = tmp_path_factory.mktemp("alerts")
    (directory / "rules.yaml").write_text(yaml.safe_dump(rule["spec"]))
    shutil.copy(os.path.join(ROOT, "tests", "deploy", "alerts_test.yaml"), directory / "alerts_test.yaml")
    return directory, rule["spec"]


def promtool(*args, cwd):
    promtool_bin = shutil.which("promtool")
    assert promtool_bin, "promtool is missing: run scripts/install-deps.sh"
    return subprocess.run([promtool_bin, *args], capture_output=True, text=True, cwd=cwd)


def test_promtool_checks_the_rules(rules):
    directory, _ = rules
    out = promtool("check", "rules", "rules.yaml", cwd=directory)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS: 13 rules found" in out.stdout + out.stderr


def test_promtool_unit_tests_pass(rules):
    directory, _ = rules
    out = promtool("test", "rules", "alerts_test.yaml", cwd=directory)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout + out.stderr


def test_every_alert_is_unit_tested_and_has_a_runbook(rules):
    _, spec = rules
    alerts = {r["alert"]: r for group in spec["groups"] for r in group["rules"] if "alert" in r}
    assert set(alerts) == REQUIRED
    tests = yaml.safe_load(open(os.path.join(ROOT, "tests", "deploy", "alerts_test.yaml")))
    tested = {t["alertname"] for case in tests["tests"] for t in case.get("alert_rule_test", [])}
    fired = {t["alertname"] for case in tests["tests"] for t in case.get("alert_rule_test", []) if t["exp_alerts"]}
    assert tested == REQUIRED and fired == REQUIRED
    operations = open(os.path.join(ROOT, "docs", "operations.md")).read()
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
               for h in re.findall(r"^#+ (.+)$", operations, re.M)}
    for name, rule in alerts.items():
        assert rule["labels"]["severity"] in ("warning", "critical"), name
        url = rule["annotations"]["runbook_url"]
        assert url == f"docs/operations.md#{name.lower()}", url
        assert name.lower() in anchors, f"docs/operations.md has no section '{name}'"


def test_the_service_monitor_scrapes_the_gateway_metrics_port():
    docs = documents("overlays/production")
    monitor = docs[("ServiceMonitor", "hotel-data-service")]
    service = docs[("Service", "hotel-data-service")]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    endpoint, = monitor["spec"]["endpoints"]
    assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]} and endpoint["path"] == "/metrics"
    assert endpoint["port"] == "metrics"  # not the API port (docs/operations.md, "Network policies")
