"""The Kubernetes manifests render with kustomize and validate against the Kubernetes schemas,
without a cluster; the probes mean what docs/operations.md says."""
import os
import subprocess

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KUSTOMIZE = os.path.join(ROOT, "build", "bin", "kustomize")


def render(overlay):
    out = subprocess.run([KUSTOMIZE, "build", os.path.join(ROOT, "deploy", "k8s", overlay)],
                         check=True, capture_output=True, text=True)
    return out.stdout


@pytest.mark.parametrize("overlay", ["base", "overlays/production"])
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
    assert gateway["readinessProbe"]["httpGet"]["path"] == "/api/v1/health"
    assert gateway["livenessProbe"]["httpGet"]["path"] == "/api/v1/health/live"
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
    assert migrate["args"] == ["--migrate_only"]
    assert migrate["image"] == next(c["image"] for c in pod["containers"] if c["name"] == "server")
    assert secret_env(migrate) == {"MIGRATION_DATABASE_URL": owner_secret, "DATABASE_URL": "hotel-database-runtime"}
    assert migrate["securityContext"]["allowPrivilegeEscalation"] is False
    assert migrate["resources"]["requests"] and migrate["resources"]["limits"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert secret_env(containers["server"]) == {"DATABASE_URL": "hotel-database-runtime"}
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
