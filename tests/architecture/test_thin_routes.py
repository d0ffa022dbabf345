"""Route handlers only translate: decode the request, call one use
case in services/app, encode the answer. Held here as a size: at most
MAX_LINES lines of code per handler under services/http/routes, signature
included, docstring, comments and blank lines not counted. A handler that
needs more is doing a use case's work: move it to services/app."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TypeGuard

ROOT = Path(__file__).resolve().parents[2]
ROUTES = ROOT / "services" / "http" / "routes"
MAX_LINES = 15
_VERBS = {"get", "post", "put", "patch", "delete", "route"}


def _is_route(node: ast.AST) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name) and target.id in _VERBS:
            return True
    return False


def handler_sizes(source: str) -> dict[str, int]:
    """Each route handler's lines of code."""
    lines = source.splitlines()
    sizes = {}
    for node in ast.walk(ast.parse(source)):
        if not _is_route(node):
            continue
        first = node.body[0]
        docstring = (
            (first.lineno, first.end_lineno or first.lineno)
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            )
            else (0, -1)
        )
        sizes[node.name] = sum(
            1
            for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)
            if lines[number - 1].strip()
            and not lines[number - 1].strip().startswith("#")
            and not docstring[0] <= number <= docstring[1]
        )
    return sizes


def test_the_count_leaves_out_docstrings_comments_and_blank_lines():
    body = "".join(f"    x{i} = {i}\n" for i in range(15))
    source = f'@get("/a")\nasync def fat(state):\n    """Doc\n    more."""\n    # why\n\n{body}    return x0\n'
    assert handler_sizes(source) == {"fat": 17}
    assert handler_sizes("def helper():\n    return 1\n") == {}


def test_every_route_handler_is_thin():
    fat = []
    for path in sorted(ROUTES.glob("*.py")):
        for name, size in handler_sizes(path.read_text()).items():
            if size > MAX_LINES:
                fat.append(f"{path.relative_to(ROOT)}:{name} ({size} lines)")
    assert fat == [], "move the logic into a use case in services/app: " + ", ".join(fat)
