"""The trust boundary the NetworkPolicies draw (docs/operations.md, "Network policies"), checked by
evaluating Kubernetes' ingress rules over the rendered production manifests: only namespaces of
internal clients reach the API ports, only the monitoring namespace the metrics port, and only the
service's pods (the server) PostgreSQL."""
import pytest

from test_manifests import documents

NAMESPACE = "hotel"
SERVICE_POD = {"app.kubernetes.io/name": "hotel-data-service"}
DATABASE_POD = {"cnpg.io/cluster": "hotel-database"}
INTERNAL_CLIENTS = {"kubernetes.io/metadata.name": "bookings", "hotel.internal/api-client": "true"}
MONITORING = {"kubernetes.io/metadata.name": "monitoring"}
OTHER = {"kubernetes.io/metadata.name": "guest-wifi"}
HOTEL = {"kubernetes.io/metadata.name": NAMESPACE}


def matches(selector, labels):
    """A label selector (matchLabels only, as the manifests use) against labels; {} selects all."""
    assert set(selector) <= {"matchLabels"}, selector
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def named_ports(docs):
    """Container port names of the pods the manifests run, name -> number."""
    pod = docs[("Deployment", "hotel-data-service")]["spec"]["template"]["spec"]
    return {p["name"]: p["containerPort"] for c in pod["containers"] for p in c.get("ports", [])}


def allowed(docs, source_namespace, source_pod, target_pod, port):
    """Whether ingress from a pod (labels) in a namespace (labels) to target_pod:port in the hotel
    namespace is allowed: not selected by any ingress policy, or allowed by one rule of one."""
    names = named_ports(docs)
    selecting = [p for (kind, _), p in docs.items() if kind == "NetworkPolicy"
                 and "Ingress" in p["spec"]["policyTypes"] and matches(p["spec"]["podSelector"], target_pod)]
    if not selecting:
        return True
    for policy in selecting:
        for rule in policy["spec"].get("ingress", []):
            ports = [names.get(p["port"], p["port"]) for p in rule.get("ports", [])]
            if ports and port not in ports:
                continue
            for peer in rule.get("from", []):
                namespace_ok = (matches(peer["namespaceSelector"], source_namespace) if "namespaceSelector" in peer
                                else source_namespace == HOTEL)
                pod_ok = matches(peer.get("podSelector", {}), source_pod)
                if namespace_ok and pod_ok:
                    return True
    return False


@pytest.fixture(scope="module")
def production():
    return documents("overlays/production")


@pytest.mark.parametrize("source,port,expected", [
    (INTERNAL_CLIENTS, 8080, True), (INTERNAL_CLIENTS, 50051, True), (INTERNAL_CLIENTS, 9464, False),
    (MONITORING, 9464, True), (MONITORING, 8080, False), (MONITORING, 50051, False),
    (OTHER, 8080, False), (OTHER, 50051, False), (OTHER, 9464, False),
])
def test_api_ports_for_internal_clients_and_metrics_for_monitoring(production, source, port, expected):
    assert allowed(production, source, {"app": "any"}, SERVICE_POD, port) is expected


@pytest.mark.parametrize("namespace,pod,expected", [
    (HOTEL, SERVICE_POD, True),  # the server (and its migrate init container)
    (HOTEL, {"app": "something-else"}, False),
    (INTERNAL_CLIENTS, SERVICE_POD, False),  # same labels in another namespace
    (INTERNAL_CLIENTS, {"app": "bookings"}, False),
    (MONITORING, {"app": "prometheus"}, False),
    (OTHER, {}, False),
])
def test_only_the_server_reaches_postgresql(production, namespace, pod, expected):
    assert allowed(production, namespace, pod, DATABASE_POD, 5432) is expected


def test_the_database_cluster_still_replicates_and_reaches_its_operator(production):
    assert allowed(production, HOTEL, DATABASE_POD, DATABASE_POD, 5432)
    assert allowed(production, {"kubernetes.io/metadata.name": "cnpg-system"}, {}, DATABASE_POD, 8000)


def test_the_metrics_port_is_the_service_monitors_and_not_the_apis(production):
    monitor = production[("ServiceMonitor", "hotel-data-service")]
    endpoint, = monitor["spec"]["endpoints"]
    assert named_ports(production)[endpoint["port"]] == 9464
    config = production[("ConfigMap", "hotel-config")]["data"]
    assert config["GATEWAY_METRICS_LISTEN"].endswith(":9464") and config["HTTP_LISTEN"].endswith(":8080")
