"""`make deploy-check`: what `sam deploy` would stop on, checked here without an AWS account.

1. `sam validate --lint`: the SAM specification plus cfn-lint on template.yaml;
2. `sam build`: both layers and every function built for arm64 / python3.12 into .aws-sam/build
   (the dependencies layer's wheels are downloaded for manylinux aarch64 by SAM itself);
3. on an x86_64 machine, the built x86_64 layers of the MCP function run Code Mode's sandbox:
   python3.12 imports them and evaluates a script under V8 (so a wheel SAM picked for the wrong
   platform, or one the runtime's glibc cannot load, shows here rather than on the first run_code);
4. tests/infra/test_template.py: the offline SAM transform, cfn-lint of the transformed template
   and the routes/table/layer agreement tests.

The SAM CLI runs from its own venv (`.cache/sam-venv`, created on first use): aws-sam-cli pins
boto3 exactly, so it never joins the app's dependencies. `sam build` needs a `python3.12` on PATH
(SAM's builder looks for the function's runtime there); with pyenv, PYENV_VERSION=<default>:3.12.x
puts one there without changing the default `python3`.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAM_CLI_VERSION = "1.170.0"
SAM_VENV = REPO / ".cache" / "sam-venv"
STAMP = SAM_VENV / f".aws-sam-cli-{SAM_CLI_VERSION}"
BUILD_DIR = REPO / ".aws-sam" / "build"
REGION = "us-east-1"


def _run(title: str, cmd: list[str], env: dict[str, str] | None = None) -> None:
    started = time.monotonic()
    print(f"== {title}: {' '.join(cmd)}", flush=True)
    result = subprocess.run(cmd, cwd=REPO, env=env, check=False)
    if result.returncode != 0:
        raise SystemExit(f"deploy-check: {title} failed (exit {result.returncode})")
    print(f"== {title}: ok in {time.monotonic() - started:.0f} s", flush=True)


def ensure_sam_cli() -> Path:
    """The `sam` of the tool venv, installed (pinned) unless the stamp says it is there."""
    sam = SAM_VENV / "bin" / "sam"
    if STAMP.is_file() and sam.is_file():
        return sam
    if not (SAM_VENV / "bin" / "python").is_file():
        _run("create the SAM CLI venv", [sys.executable, "-m", "venv", str(SAM_VENV)])
    pip = [str(SAM_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run("install aws-sam-cli", [*pip, f"aws-sam-cli=={SAM_CLI_VERSION}"])
    STAMP.touch()
    return sam


def python312_env() -> dict[str, str]:
    """The environment `sam build` runs in: telemetry off, and python3.12 on PATH."""
    env = dict(os.environ, SAM_CLI_TELEMETRY="0", AWS_DEFAULT_REGION=REGION)
    if shutil.which("python3.12", path=env.get("PATH")) is None:
        raise SystemExit("deploy-check: sam build needs python3.12 on PATH (with pyenv: `pyenv install 3.12`)")
    if shutil.which("pyenv") and "PYENV_VERSION" not in env:
        # pyenv's shim only answers `python3.12` for a version listed in PYENV_VERSION.
        versions = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False)
        current = subprocess.run(["pyenv", "version-name"], capture_output=True, text=True, check=False)
        py312 = sorted(v for v in versions.stdout.split() if v.startswith("3.12."))
        if py312 and current.returncode == 0:
            env["PYENV_VERSION"] = f"{current.stdout.strip()}:{py312[-1]}"
    return env


#: Imports the built layers' mini-racer and runs one script in a fresh V8 context.
SANDBOX_SMOKE = (
    "from py_mini_racer import MiniRacer; "
    "assert MiniRacer().eval('[1, 2, 3].map(x => x * 2).join()') == '2,4,6'; "
    "print('V8 sandbox from the built layers: ok')"
)


def _python312(env: dict[str, str]) -> list[str]:
    # -S: no site-packages, so only the layers can provide what it imports.
    return [shutil.which("python3.12", path=env.get("PATH")) or "python3.12", "-S"]


def _mcp_layers_env(env: dict[str, str]) -> dict[str, str]:
    """PYTHONPATH = the MCP function's built layers, in the order Lambda stacks them (`/opt/python`)."""
    layers = ("DependenciesLayerX86", "SandboxLayer", "CoreLayer")
    return dict(env, PYTHONPATH=os.pathsep.join(str(BUILD_DIR / layer / "python") for layer in layers))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-build", action="store_true", help="validate and lint only (no sam build)")
    args = parser.parse_args(argv)
    sam = str(ensure_sam_cli())
    env = python312_env()
    template = str(REPO / "template.yaml")
    _run("sam validate --lint", [sam, "validate", "--lint", "--template", template, "--region", REGION], env)
    if not args.skip_build:
        _run(
            "sam build",
            [sam, "build", "--template", template, "--build-dir", str(BUILD_DIR), "--cached", "--parallel"],
            env,
        )
        if platform.machine() == "x86_64":
            _run("the MCP function's sandbox layer", [*_python312(env), "-c", SANDBOX_SMOKE], _mcp_layers_env(env))
    pytest_env = dict(os.environ, PYTHONPATH=str(REPO / "layers" / "core"))
    _run(
        "transformed-template cfn-lint",
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "tests/infra/test_template.py"],
        pytest_env,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
