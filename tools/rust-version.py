#!/usr/bin/env python3
"""Checks that the workspace's `rust-version` is the true minimum: the highest `rust-version`
any locked dependency built for this platform declares (the workspace's own code is held to it
by clippy's `incompatible_msrv` lint, which reads the same field).

    python3 tools/rust-version.py          # exit 1, saying what to write, if it is not

Standard library only; runs `cargo metadata --locked` (no build)."""

import json
import subprocess
import sys


def version(text):
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main():
    host = next(
        line.split(":", 1)[1].strip()
        for line in subprocess.run(
            ["rustc", "-vV"], check=True, capture_output=True, text=True
        ).stdout.splitlines()
        if line.startswith("host:")
    )
    metadata = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--locked", "--format-version", "1", "--filter-platform", host],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    members = set(metadata["workspace_members"])
    built = {node["id"] for node in metadata["resolve"]["nodes"]}
    packages = [p for p in metadata["packages"] if p["id"] in built]
    declared = {p["rust_version"] for p in packages if p["id"] in members}
    needed = max(
        (p for p in packages if p["id"] not in members and p.get("rust_version")),
        key=lambda p: version(p["rust_version"]),
    )
    if len(declared) != 1 or None in declared:
        print(f"the workspace's crates must all declare one rust-version, not {sorted(map(str, declared))}")
        return 1
    (ours,) = declared
    if version(ours) != version(needed["rust_version"]):
        print(
            f"rust-version = \"{ours}\" is not true: the locked {needed['name']} {needed['version']} "
            f"needs Rust {needed['rust_version']}; set [workspace.package] rust-version to it"
        )
        return 1
    print(f"rust-version = \"{ours}\": the highest any locked dependency needs ({needed['name']} {needed['version']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
