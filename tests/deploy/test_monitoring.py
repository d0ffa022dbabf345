"""deploy/: the compose `monitoring` profile scrapes both kinds of process,
and the provisioned Grafana dashboard shows every figure an operator watches
(requests, actions, commits, fan-out, streams, jobs, agent calls, strikes)
with metric names /metrics really exposes (a renamed metric fails here, not on
an operator's empty panel)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from services.infra import metrics

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
# Read from PostgreSQL at scrape time (services/infra/metrics.py), not in the registry.
SCRAPE_TIME = {"hanamichi_live_tables", "hanamichi_tournaments"}


def exposed() -> set[str]:
    names = set(SCRAPE_TIME)
    for value in vars(metrics).values():
        if hasattr(value, "_name") and hasattr(value, "_type"):
            names |= {sample.name for family in value.collect() for sample in family.samples}
            base = value._name
            names |= {base, f"{base}_total", f"{base}_bucket", f"{base}_count", f"{base}_sum"}
    return names


def test_compose_monitoring_profile_scrapes_api_and_worker():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    for name in ("prometheus", "grafana"):
        assert services[name]["profiles"] == ["monitoring"]
    assert services["worker"]["environment"]["HANAMICHI_METRICS_PORT"] == "9100"
    scrape = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    targets = {t for job in scrape["scrape_configs"] for sc in job["static_configs"] for t in sc["targets"]}
    assert targets == {"api:8000", "worker:9100"}
    mounts = services["grafana"]["volumes"]
    for path in (m.split(":")[0] for m in mounts):
        assert (DEPLOY / path).is_dir(), path


def test_dashboard_shows_every_figure_with_real_metric_names():
    dashboard = json.loads((DEPLOY / "grafana" / "dashboards" / "hanamichi.json").read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    used = {name for expr in exprs for name in re.findall(r"\bhanamichi_[a-z_]+", expr)}
    known = exposed()
    assert used <= known, used - known
    families = {
        "hanamichi_http_request_seconds",
        "hanamichi_actions_accepted",
        "hanamichi_actions_refused",
        "hanamichi_group_commit_batch_size",
        "hanamichi_group_commit_seconds",
        "hanamichi_commit_to_publish_seconds",
        "hanamichi_publish_to_deliver_seconds",
        "hanamichi_sse_clients",
        "hanamichi_live_tables",
        "hanamichi_job_seconds",
        "hanamichi_job_failures",
        "hanamichi_agent_call_seconds",
        "hanamichi_strikes",
        "hanamichi_tournaments",
    }
    missing = {f for f in families if not any(name.startswith(f) for name in used)}
    assert not missing, f"no panel shows {sorted(missing)}"
