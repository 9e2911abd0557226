"""What ships names the release: every image of the service that the manifests under deploy/k8s name,
in their files and as each overlay renders, carries the version CMakeLists.txt declares
(project(... VERSION x.y.z)); the tag is set once, in the base's kustomization `images:`."""
import glob
import os
import re

import pytest
import yaml

from test_manifests import ROOT, render

OVERLAYS = ["base", "overlays/production", "overlays/production-recovery"]
SERVICE_IMAGES = {"hotel-server", "hotel-gateway"}


def cmake_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"^project\(hotel_data_service VERSION ([0-9.]+)", f.read(), re.M).group(1)


def values(node, key):
    """Every value of `key` anywhere in a parsed YAML document."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                yield v
            yield from values(v, key)
    elif isinstance(node, list):
        for item in node:
            yield from values(item, key)


def service_image(reference):
    """(name, tag or None) of an image reference when it is one of the service's, else None."""
    name, _, tag = reference.split("@", 1)[0].rsplit("/", 1)[-1].partition(":")
    return (name, tag or None) if name in SERVICE_IMAGES else None


def wrong_tags(documents, where):
    """The service's images in documents whose tag is not the CMake version, as messages naming where."""
    version, wrong = cmake_version(), []
    for document in documents:
        for reference in values(document, "image"):
            image = service_image(str(reference))
            if image and image[1] is not None and image[1] != version:
                wrong.append(f"{where}: image {reference}, not {version}")
        for entry in document.get("images", []) if document.get("kind") == "Kustomization" else []:
            if entry.get("name") in SERVICE_IMAGES and "newTag" in entry and str(entry["newTag"]) != version:
                wrong.append(f"{where}: images {entry['name']} newTag {entry['newTag']}, not {version}")
    return wrong


def test_every_manifest_file_names_the_cmake_version():
    files = sorted(glob.glob(os.path.join(ROOT, "deploy", "k8s", "**", "*.yaml"), recursive=True))
    assert files
    wrong = []
    for path in files:
        with open(path) as f:
            wrong += wrong_tags([d for d in yaml.safe_load_all(f) if d], os.path.relpath(path, ROOT))
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_rendered_overlay_runs_the_cmake_version(overlay):
    documents = [d for d in yaml.safe_load_all(render(overlay)) if d]
    where = f"kustomize build deploy/k8s/{overlay}"
    assert not wrong_tags(documents, where), "\n".join(wrong_tags(documents, where))
    images = [service_image(str(r)) for d in documents for r in values(d, "image")]
    images = [i for i in images if i]
    assert {name for name, _ in images} == SERVICE_IMAGES, where
    untagged = sorted({name for name, tag in images if tag is None})
    assert not untagged, f"{where}: {', '.join(untagged)} without a tag (would pull :latest)"
