"""The runbook's deploy section (docs/operations.md, "Deploy") lists every Secret and ConfigMap the
manifests reference, as each overlay renders, and nothing they do not: an operator who creates what
the table says has every one a pod or the database cluster waits for."""
import os
import re

import yaml

from test_manifests import ROOT, render

OVERLAYS = ["base", "overlays/production", "overlays/production-recovery"]


def references(node):
    """(kind, name) of every Secret and ConfigMap a rendered document refers to: envFrom and env refs,
    volumes, and the database operator's fields (passwordSecret, s3Credentials, customQueriesConfigMap)."""
    found = set()
    if isinstance(node, dict):
        for key, value in node.items():
            kind = "ConfigMap" if "configmap" in key.lower() else "Secret" if "secret" in key.lower() else None
            if key == "s3Credentials":
                found |= {("Secret", ref["name"]) for ref in value.values() if isinstance(ref, dict) and "name" in ref}
            elif key == "secretName" and isinstance(value, str):
                found.add(("Secret", value))
            elif kind and isinstance(value, dict) and "name" in value:
                found.add((kind, value["name"]))
            elif kind and isinstance(value, list):
                found |= {(kind, ref["name"]) for ref in value if isinstance(ref, dict) and "name" in ref}
            found |= references(value)
    elif isinstance(node, list):
        for item in node:
            found |= references(item)
    return found


def listed_in_runbook():
    """(kind, name) of the rows of the table in docs/operations.md's "Deploy" section."""
    with open(os.path.join(ROOT, "docs", "operations.md")) as f:
        section = re.search(r"^## Deploy\n(.*?)^##", f.read(), re.M | re.S).group(1)
    return set(re.findall(r"^\| (Secret|ConfigMap) \| `([^`]+)` \|", section, re.M))


def test_the_runbook_lists_every_secret_and_config_map_the_manifests_reference():
    referenced = set()
    for overlay in OVERLAYS:
        referenced |= references([d for d in yaml.safe_load_all(render(overlay)) if d])
    assert ("Secret", "hotel-page-token-keys") in referenced  # the walk finds env refs
    assert ("Secret", "hotel-backup-s3") in referenced  # and the operator's fields
    listed = listed_in_runbook()
    missing = sorted(referenced - listed)
    unreferenced = sorted(listed - referenced)
    assert not missing, f"docs/operations.md (Deploy) does not list {missing}, which the manifests reference"
    assert not unreferenced, f"docs/operations.md (Deploy) lists {unreferenced}, which no manifest references"
