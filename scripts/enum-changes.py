#!/usr/bin/env python3
"""Lists the enum values the responses of an OpenAPI document gained or lost against a release
baseline (docs/versioning.md, "Enums"). Response enums are open (x-extensible-enum): adding a value
is allowed in a minor release and listed here for the release notes; removing one is breaking.

    enum-changes.py <baseline openapi.json> <openapi.json> <baseline version>

Prints one line per added value; exits 1 (naming them) when a response enum lost a value."""
import json
import sys


def response_enums(doc):
    """{"Schema.property": [values]} for every enum-valued property of the response schemas,
    whether it is open (x-extensible-enum) or, in documents before 1.2.0, a closed enum ($ref)."""
    schemas = doc["components"]["schemas"]
    request = set()

    def mark(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            name = ref.rsplit("/", 1)[-1]
            if ref and name not in request:
                request.add(name)
                mark(schemas.get(name))
            for child in node.values():
                mark(child)
        elif isinstance(node, list):
            for child in node:
                mark(child)

    for item in doc["paths"].values():
        for op in item.values():
            mark(op.get("requestBody"))

    def values(prop):
        if "x-extensible-enum" in prop:
            return prop["x-extensible-enum"]
        if "enum" in prop:
            return prop["enum"]
        if "$ref" in prop:
            return schemas.get(prop["$ref"].rsplit("/", 1)[-1], {}).get("enum")
        if isinstance(prop.get("items"), dict):
            return values(prop["items"])
        return None

    found = {}
    for name, schema in schemas.items():
        if name in request:
            continue
        for prop_name, prop in schema.get("properties", {}).items():
            v = values(prop)
            if v:
                found[f"{name}.{prop_name}"] = v
    return found


def main():
    base_path, doc_path, version = sys.argv[1:4]
    with open(base_path) as f:
        base = response_enums(json.load(f))
    with open(doc_path) as f:
        now = response_enums(json.load(f))
    removed = []
    for where, values in sorted(now.items()):
        for value in values:
            if where in base and value not in base[where]:
                print(f"enum value added since {version}: {where} {value}")
    with open(doc_path) as f:
        schemas = json.load(f)["components"]["schemas"]
    for where, values in sorted(base.items()):
        name, prop = where.split(".", 1)
        if where not in now and prop in schemas.get(name, {}).get("properties", {}):
            now[where] = []  # still there, but no longer lists its values
        lost = [v for v in values if where in now and v not in now[where]]
        if lost:
            removed.append(f"{where} {', '.join(lost)}")
    for r in removed:
        print(f"enum value removed since {version} (breaking): {r}", file=sys.stderr)
    return 1 if removed else 0


if __name__ == "__main__":
    sys.exit(main())
