"""The Kubernetes manifests render with kustomize and validate against the Kubernetes schemas,
without a cluster; the probes mean what docs/operations.md says; the database archives its WAL and
is backed up daily, and the recovery overlay brings it back from those backups."""
import os
import re
import subprocess
from datetime import datetime

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KUSTOMIZE = os.path.join(ROOT, "build", "bin", "kustomize")


def render(overlay):
    out = subprocess.run([KUSTOMIZE, "build", os.path.join(ROOT, "deploy", "k8s", overlay)],
                         check=True, capture_output=True, text=True)
    return out.stdout


@pytest.mark.parametrize("overlay", ["base", "overlays/production", "overlays/production-recovery"])
def test_renders_and_validates(overlay, tmp_path):
    rendered = tmp_path / "rendered.yaml"
    rendered.write_text(render(overlay))
    result = subprocess.run(["python3", "-m", "kubernetes_validate", "--strict", str(rendered)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "passed for resource deployment/hotel-data-service" in result.stdout


def documents(overlay):
    return {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(render(overlay)) if d}


def test_probes_and_sidecar():
    docs = documents("base")
    pod = docs[("Deployment", "hotel-data-service")]["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert set(containers) == {"server", "gateway"}
    server, gateway = containers["server"], containers["gateway"]
    assert server["startupProbe"]["grpc"]["port"] == 50051
    assert server["livenessProbe"]["grpc"]["service"] == "liveness"
    # The gateway is probed on its admin port, which API clients cannot fill.
    for probe, path in (("readinessProbe", "/health/ready"), ("livenessProbe", "/health/live")):
        assert gateway[probe]["httpGet"] == {"path": path, "port": "metrics"}
    for c in containers.values():
        assert c["resources"]["requests"] and c["resources"]["limits"]
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True


def test_production_overlay_uses_an_operator_managed_database():
    docs = documents("overlays/production")
    cluster = docs[("Cluster", "hotel-database")]
    assert cluster["apiVersion"] == "postgresql.cnpg.io/v1" and cluster["spec"]["instances"] >= 2
    assert docs[("HorizontalPodAutoscaler", "hotel-data-service")]["spec"]["minReplicas"] == 3
    assert all(d["metadata"].get("namespace") == "hotel" for d in docs.values())
    assert not any(kind == "StatefulSet" for kind, _ in docs)


def secret_env(container):
    return {e["name"]: e["valueFrom"]["secretKeyRef"]["name"] for e in container.get("env", [])
            if "secretKeyRef" in e.get("valueFrom", {})}


@pytest.mark.parametrize("overlay,owner_secret", [("base", "hotel-database-owner"),
                                                  ("overlays/production", "hotel-database-app")])
def test_the_owner_migrates_in_an_init_container_and_the_server_sees_only_the_runtime_role(overlay, owner_secret):
    pod = documents(overlay)[("Deployment", "hotel-data-service")]["spec"]["template"]["spec"]
    migrate, = pod["initContainers"]
    assert migrate["args"] == ["--migrate-only"]
    assert migrate["image"] == next(c["image"] for c in pod["containers"] if c["name"] == "server")
    assert secret_env(migrate) == {"MIGRATION_DATABASE_URL": owner_secret, "DATABASE_URL": "hotel-database-runtime"}
    assert migrate["securityContext"]["allowPrivilegeEscalation"] is False
    assert migrate["resources"]["requests"] and migrate["resources"]["limits"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert secret_env(containers["server"]) == {"DATABASE_URL": "hotel-database-runtime",
                                                "PAGE_TOKEN_KEYS": "hotel-page-token-keys"}
    assert secret_env(containers["gateway"]) == {}


def test_the_operator_keeps_a_runtime_role_without_attributes():
    cluster = documents("overlays/production")[("Cluster", "hotel-database")]["spec"]
    assert cluster["bootstrap"]["initdb"]["owner"] == "hotel"
    role, = cluster["managed"]["roles"]
    assert role["name"] == "hotel_runtime" and role["login"] is True and role["ensure"] == "present"
    for attribute in ("superuser", "createdb", "createrole", "inherit", "replication", "bypassrls"):
        assert role[attribute] is False, attribute
    assert role["passwordSecret"]["name"] == "hotel-database-runtime"


def seconds(value):
    assert value.endswith("s") and not value.endswith("ms"), value
    return float(value[:-1])


def test_termination_periods_match_what_the_processes_do():
    """Both processes keep serving for their delay after SIGTERM (readiness failing), the server
    longer than its gateway, and both finish draining before Kubernetes kills them."""
    docs = documents("base")
    config = docs[("ConfigMap", "hotel-config")]["data"]
    pod = docs[("Deployment", "hotel-data-service")]["spec"]["template"]["spec"]
    server_delay, gateway_delay = seconds(config["SHUTDOWN_DELAY"]), seconds(config["GATEWAY_SHUTDOWN_DELAY"])
    assert gateway_delay >= 2, "endpoint removal takes a second or more to reach every load balancer"
    assert server_delay > gateway_delay, "the gateway must never call a server that stopped accepting"
    grace = pod["terminationGracePeriodSeconds"]
    assert server_delay + seconds(config["SHUTDOWN_GRACE"]) < grace
    assert gateway_delay + seconds(config["SHUTDOWN_TIMEOUT"]) < grace
    for container in pod["containers"]:
        assert "preStop" not in container.get("lifecycle", {}), "the delay is in-process (docs/decisions.md)"
    # The Deployment rolls one new pod in before an old one goes.
    strategy = docs[("Deployment", "hotel-data-service")]["spec"]["strategy"]["rollingUpdate"]
    assert strategy["maxUnavailable"] == 0 and strategy["maxSurge"] >= 1


def pg_seconds(duration):
    """A PostgreSQL duration setting ("30s", "1min", "60") in seconds."""
    number, unit = re.fullmatch(r"(\d+)\s*(ms|s|min|h)?", duration).groups()
    return int(number) * {"ms": 0.001, None: 1, "s": 1, "min": 60, "h": 3600}[unit]


def test_production_archives_wal_within_the_rpo_and_backs_up_daily():
    docs = documents("overlays/production")
    cluster = docs[("Cluster", "hotel-database")]["spec"]
    # RPO <= 60 s: a WAL segment is closed and archived at least every archive_timeout.
    assert 0 < pg_seconds(cluster["postgresql"]["parameters"]["archive_timeout"]) <= 30
    backup = cluster["backup"]
    assert re.fullmatch(r"[1-9][0-9]*[dwm]", backup["retentionPolicy"])
    store = backup["barmanObjectStore"]
    assert store["destinationPath"].startswith("s3://")
    credentials = store["s3Credentials"]
    for key in ("accessKeyId", "secretAccessKey"):
        assert set(credentials[key]) == {"name", "key"}, "credentials come from a Secret, never inline"
    assert store["wal"]["compression"] and store["data"]["compression"]
    assert cluster["monitoring"]["enablePodMonitor"] is True  # the backup alerts' series
    scheduled = [d for (kind, _), d in docs.items() if kind == "ScheduledBackup"]
    assert len(scheduled) == 1
    spec = scheduled[0]["spec"]
    assert spec["cluster"]["name"] == "hotel-database" and spec["method"] == "barmanObjectStore"
    second, minute, hour, day, month, weekday = spec["schedule"].split()
    assert (day, month, weekday) == ("*", "*", "*") and hour.isdigit(), "daily"


def test_the_recovery_overlay_restores_the_same_cluster_from_the_production_backups():
    production = documents("overlays/production")
    recovery = documents("overlays/production-recovery")
    source = production[("Cluster", "hotel-database")]["spec"]
    cluster = recovery[("Cluster", "hotel-database")]["spec"]
    assert set(cluster["bootstrap"]) == {"recovery"}, "one bootstrap method: recovery, no initdb"
    restore = cluster["bootstrap"]["recovery"]
    assert (restore["database"], restore["owner"]) == ("hotel", "hotel")  # the operator's hotel-database-app Secret
    target = restore["recoveryTarget"]["targetTime"]  # kustomize drops the quotes; YAML 1.1 reads a timestamp
    target = target if isinstance(target, datetime) else datetime.strptime(target, "%Y-%m-%d %H:%M:%S.%f%z")
    assert target.tzinfo is not None, "the target time names its time zone"
    external, = [c for c in cluster["externalClusters"] if c["name"] == restore["source"]]
    store = source["backup"]["barmanObjectStore"]
    assert external["barmanObjectStore"]["destinationPath"] == store["destinationPath"]
    assert external["barmanObjectStore"]["serverName"] == store["serverName"]
    assert external["barmanObjectStore"]["s3Credentials"] == store["s3Credentials"]
    # The recovered cluster archives into a folder of its own, never over its history.
    assert cluster["backup"]["barmanObjectStore"]["serverName"] != store["serverName"]
    # The service points at it unchanged and starts only once the change log is moved on.
    deployment = recovery[("Deployment", "hotel-data-service")]["spec"]
    assert deployment["replicas"] == 0
    assert deployment["template"] == production[("Deployment", "hotel-data-service")]["spec"]["template"]
    assert set(recovery) == set(production)


def test_both_containers_are_pointed_at_a_trace_collector():
    """The OTLP endpoint (docs/operations.md, "Tracing") is one ConfigMap key that both containers read:
    empty (off) in the base, for the cluster's collector to be filled in."""
    docs = documents("base")
    config = docs[("ConfigMap", "hotel-config")]["data"]
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in config and config["OTEL_EXPORTER_OTLP_PROTOCOL"] == "http/protobuf"
    assert 0 < float(config["OTEL_TRACES_SAMPLER_ARG"]) <= 1
    pod = docs[("Deployment", "hotel-data-service")]["spec"]["template"]["spec"]
    for name in ("server", "gateway"):
        container = next(c for c in pod["containers"] if c["name"] == name)
        assert {"configMapRef": {"name": "hotel-config"}} in container["envFrom"], name


def test_production_acknowledges_a_commit_only_once_a_replica_has_it():
    """Zero-loss failover (docs/decisions.md, "Failover and replicas"): quorum synchronous replication to
    one of the two replicas, and writes wait rather than degrade to one copy when both are gone."""
    cluster = documents("overlays/production")[("Cluster", "hotel-database")]["spec"]
    replicas = cluster["instances"] - 1
    assert replicas == 2
    synchronous = cluster["postgresql"]["synchronous"]
    assert synchronous["method"] == "any", "a quorum (ANY n): either replica may confirm"
    assert 1 <= synchronous["number"] < replicas + 1, "a commit is on the primary and at least one replica"
    assert synchronous["number"] < replicas, "one replica may be lost (or restarted) without stopping writes"
    assert synchronous["dataDurability"] == "required", "never acknowledge a write held by one instance only"
    assert "synchronous_standby_names" not in cluster["postgresql"]["parameters"], "the operator sets it"
    assert cluster["failoverDelay"] == 0
    assert "minSyncReplicas" not in cluster and "maxSyncReplicas" not in cluster, "one way to say it"
