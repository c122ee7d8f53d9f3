"""The core stays pure: no Home Assistant, no reaching into the shell."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).parents[2] / "custom_components" / "overseer" / "core"


def test_no_module_under_the_core_imports_home_assistant_or_the_shell():
    offenders = []
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            else:
                continue
            offenders += [
                f"{path.name}: {n}"
                for n in names
                if n.startswith(("homeassistant", "..", "custom_components"))
            ]
    assert offenders == []


def test_the_core_imports_in_a_python_without_home_assistant():
    blocker = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('homeassistant', 'ollama', 'aiohttp'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        f"sys.path.insert(0, {str(CORE.parent)!r})\n"
        "import core.gate, core.policy, core.context, core.decision, core.memory, core.metrics, core.audit\n"
        "print('pure')\n"
    )
    result = subprocess.run([sys.executable, "-c", blocker], capture_output=True, text=True, check=False)
    assert result.stdout.strip() == "pure", result.stderr
