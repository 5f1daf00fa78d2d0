#!/usr/bin/env bash
# Checks the deployment files without a Docker engine: hadolint on the Dockerfile, and the
# promises the README makes about the image and docker-compose.yml.
# Usage: bash tools/lint-deploy.sh   (installs its tools into a venv under target/venvs once)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${PARLOUR_LINT_VENV:-$PWD/target/venvs/lint}
if [ ! -x "$venv/bin/hadolint" ] || [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r tools/deploy-requirements.txt
fi
"$venv/bin/hadolint" Dockerfile
"$venv/bin/python" - <<'PY'
import sys
import yaml

problems = []
dockerfile = open("Dockerfile").read()
for needed in ("HEALTHCHECK", "VOLUME", "CARGO_PROFILE_RELEASE_STRIP=symbols", "USER parlour", "--locked"):
    if needed not in dockerfile:
        problems.append(f"Dockerfile: no {needed}")
ignored = [line.strip() for line in open(".dockerignore") if line.strip() and not line.startswith("#")]
for needed in ("target/", ".git/"):
    if needed not in ignored:
        problems.append(f".dockerignore: {needed} would go into the build context")
compose = yaml.safe_load(open("docker-compose.yml"))
services = compose.get("services", {})
postgres, parlour = services.get("postgres", {}), services.get("parlour", {})
if "healthcheck" not in postgres:
    problems.append("compose: postgres has no healthcheck")
if parlour.get("depends_on", {}).get("postgres", {}).get("condition") != "service_healthy":
    problems.append("compose: parlour does not wait for a healthy postgres")
if "healthcheck" not in parlour:
    problems.append("compose: parlour has no healthcheck")
if not str(parlour.get("environment", {}).get("DATABASE_URL", "")).startswith("postgres://"):
    problems.append("compose: parlour is not on postgres")
for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
echo "deployment files: ok"
