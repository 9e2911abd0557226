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
