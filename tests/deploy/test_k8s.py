"""k8s/ holds real manifests: every file of the base and each
overlay as `kubectl kustomize` renders it validate against the Kubernetes
schemas (kubernetes-validate, strict: no unknown fields), and the properties
the operators rely on hold in what is rendered: probes, resources, graceful
shutdown, HPA and PDB aimed at the API, SSE-friendly ingress, session-mode
pooler, AOF Redis, migrations before the API starts, and a NetworkPolicy that
lets only the worker out. CloudNativePG's `Cluster` and `Pooler` have no
schema in kubernetes-validate: they are the unchecked kinds of docs/operations.md, and
this test fails if any other kind goes unchecked."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from services.http.httpserver import forwarded_options

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
VERSION = "1.30.0"  # the oldest Kubernetes these manifests are for (autoscaling/v2, policy/v1, preStop exec)
UNCHECKED = {("postgresql.cnpg.io/v1", "Cluster"), ("postgresql.cnpg.io/v1", "Pooler")}
OVERLAYS = ["dev", "prod"]


def validate(docs: list[dict]) -> set[tuple[str, str]]:
    """Validate each document strictly; returns the kinds without a schema."""
    unchecked = set()
    for doc in docs:
        try:
            kubernetes_validate.validate(doc, VERSION, strict=True)
        except kubernetes_validate.SchemaNotFoundError:
            unchecked.add((doc["apiVersion"], doc["kind"]))
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{doc['kind']}/{doc['metadata']['name']}: {exc.message} at {list(exc.path)}")
    return unchecked


def render(overlay: str) -> list[dict]:
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed to render the overlays (Debian: apt-get install kubectl; .ci/run installs it)"
    out = subprocess.run(
        [kubectl, "kustomize", str(K8S / "overlays" / overlay)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def one(docs: list[dict], kind: str, name: str) -> dict:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} found"
    return found[0]


def test_every_base_manifest_validates():
    docs = []
    for path in sorted((K8S / "base").glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    assert len(docs) >= 15
    assert validate(docs) == UNCHECKED


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_overlay_renders_and_validates(overlay):
    docs = render(overlay)
    assert validate(docs) == UNCHECKED
    namespace = one(docs, "Namespace", "hanamichi-dev" if overlay == "dev" else "hanamichi")["metadata"]["name"]
    assert all(d["metadata"].get("namespace") == namespace for d in docs if d["kind"] != "Namespace")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_what_operators_rely_on_holds_in_each_overlay(overlay):
    docs = render(overlay)
    api = one(docs, "Deployment", "hanamichi-api")
    pod = api["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"
    assert container["lifecycle"]["preStop"]
    assert pod["terminationGracePeriodSeconds"] >= 15  # preStop 5 s + serve's own 5 s stop
    assert "--no-worker" in container["args"]
    # Migrations once per rollout, before the API takes traffic.
    assert [c["args"] for c in pod["initContainers"]] == [["hanamichi", "migrate"]]
    # The ingress terminates TLS: serve believes its X-Forwarded-Proto (Secure
    # cookies) only from these addresses (services/http/httpserver.py).
    env = {e["name"]: e.get("value") for e in container["env"]}
    trusted = forwarded_options(env["HANAMICHI_TRUSTED_PROXIES"])
    assert trusted["proxy_headers"] and trusted["forwarded_allow_ips"]
    for deployment in (d for d in docs if d["kind"] in ("Deployment", "StatefulSet")):
        for c in deployment["spec"]["template"]["spec"]["containers"]:
            assert c["resources"]["requests"] and c["resources"]["limits"]["memory"], deployment["metadata"]["name"]

    hpa = one(docs, "HorizontalPodAutoscaler", "hanamichi-api")
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "hanamichi-api"}
    pdb = one(docs, "PodDisruptionBudget", "hanamichi-api")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= api["spec"]["template"]["metadata"]["labels"].items()

    worker = one(docs, "Deployment", "hanamichi-worker")
    assert worker["spec"]["replicas"] >= 2  # jobs are idempotent: several workers

    ingress = one(docs, "Ingress", "hanamichi")
    notes = ingress["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600

    assert one(docs, "Pooler", "hanamichi-pg-pooler")["spec"]["pgbouncer"]["poolMode"] == "session"
    assert one(docs, "Cluster", "hanamichi-pg")["spec"]["instances"] >= 1
    redis = one(docs, "StatefulSet", "hanamichi-redis")["spec"]["template"]["spec"]["containers"][0]
    assert redis["args"][redis["args"].index("--appendonly") + 1] == "yes"


def _labels(doc: dict) -> dict:
    return doc["spec"]["template"]["metadata"]["labels"]


def _selects(policy: dict, labels: dict) -> bool:
    wanted = policy["spec"]["podSelector"].get("matchLabels", {})
    return wanted.items() <= labels.items()


def _leaves_namespace(rule: dict) -> bool:
    """An egress rule to somewhere outside the namespace other than DNS."""
    for peer in rule.get("to", [{}]):
        if "ipBlock" in peer:
            return True
        if (
            "namespaceSelector" in peer
            and peer["namespaceSelector"].get("matchLabels", {}).get("kubernetes.io/metadata.name") != "kube-system"
        ):
            return True
    return not rule.get("to")  # no `to`: anywhere


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_only_the_worker_reaches_the_internet(overlay):
    docs = render(overlay)
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    deny = one(docs, "NetworkPolicy", "hanamichi-default-deny")["spec"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"} and "egress" not in deny
    workloads = {d["metadata"]["name"]: _labels(d) for d in docs if d["kind"] in ("Deployment", "StatefulSet")}
    for name, labels in workloads.items():
        out = [rule for p in policies if _selects(p, labels) for rule in p["spec"].get("egress", [])]
        if name == "hanamichi-worker":
            public = [peer["ipBlock"] for rule in out for peer in rule.get("to", []) if "ipBlock" in peer]
            assert {"cidr": "0.0.0.0/0"}.items() <= public[0].items()
            assert {"10.0.0.0/8", "169.254.0.0/16"} <= set(public[0]["except"])  # no private or metadata addresses
        else:
            assert not [rule for rule in out if _leaves_namespace(rule)], f"{name} may leave the namespace"


def test_migrate_command_applies_nothing_twice(server_env):
    """What the init container runs: exit 0, and a second run has nothing left to apply."""
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-m", "services.cli", "migrate"],
            cwd=ROOT,
            env=server_env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
    assert "none, the schema is up to date" in out.stdout
