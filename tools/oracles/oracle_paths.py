"""Where the oracle tools keep what they make (spec-source oracles.md: paths come from ONEMODEL_HOME).

Nothing generated is committed: model files and reference outputs live under
$ONEMODEL_HOME (default ~/onemodel), the pins live in tools/models.json.
"""
import hashlib
import json
import os
import platform
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "tools" / "models.json"


def home() -> Path:
    return Path(os.environ.get("ONEMODEL_HOME", str(Path.home() / "onemodel"))).expanduser()


def models_dir() -> Path:
    return home() / "models"


def machine_class() -> str:
    """Reference outputs are per machine class (oracles.md): ONNX Runtime differs in the last bits
    between x64 and arm64."""
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    return f"{platform.system().lower()}-{arch}"


def reference_dir() -> Path:
    return home() / "reference" / machine_class()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_manifest() -> dict:
    with open(MANIFEST, encoding="utf-8") as f:
        return json.load(f)


def save_manifest(manifest: dict) -> None:
    text = json.dumps(manifest, indent=2, sort_keys=False) + "\n"
    MANIFEST.write_text(text, encoding="utf-8")
