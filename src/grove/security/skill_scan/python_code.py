"""What bundled Python code does, read from its syntax tree: the shell commands and argument lists it runs, code it
decodes or downloads and executes, files it deletes, credentials or the environment it sends out, reverse shells.

Strings are followed through names, concatenation, f-strings, `getattr(__import__("os"), "system")` and the usual
decoders (base64, hex, rot13, zlib), so obfuscation shows the command it hides."""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import re
import zlib
from typing import Any

from grove.security.skill_scan.hits import (
    CREDENTIAL_PATH,
    PERSISTENCE_PATH,
    Hit,
    analyse,
    command_hits,
    excerpt,
    register,
    shell_words_hits,
)

_SHELL_STRING_CALLS = {
    "os.system",
    "os.popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "commands.getoutput",
    "pty.spawn",
}
_PROCESS_CALLS = {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output"}
_PROCESS_CALLS |= {"subprocess.Popen", "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell"}
_EXEC_CALLS = {"exec", "eval", "compile", "builtins.exec", "builtins.eval", "execfile", "runpy.run_path"}
_DECODERS = {
    "b64decode",
    "b32decode",
    "b85decode",
    "a85decode",
    "decodebytes",
    "urlsafe_b64decode",
    "fromhex",
}
_DECODERS |= {"unhexlify", "a2b_hex", "a2b_base64", "decompress"}
_DECODER_NAMES = {"codecs.decode", "marshal.loads", "pickle.loads", "chr"}
_NETWORK = re.compile(
    r"(?:^|\.)(?:urlopen|urlretrieve|Request|post|put|patch|get|request|send|sendall|sendto|sendmail|"
    r"create_connection|connect|upload|upload_file|HTTPSConnection|HTTPConnection|Session|AsyncClient|Client)$"
)
_NETWORK_MODULES = (
    "requests",
    "httpx",
    "urllib",
    "http.client",
    "aiohttp",
    "socket",
    "smtplib",
    "ftplib",
    "paramiko",
)
_DELETE_CALLS = {"shutil.rmtree": "rm -rf", "os.removedirs": "rm -rf", "os.remove": "rm", "os.unlink": "rm"}
_MAX_DEPTH = 12


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


_VISIT: dict[type, Any] = {}
# Fields that never hold a node worth reading: names, flags and the shared Load/Store/operator leaves.
_LEAF_FIELDS = {"ctx", "op", "ops", "id", "attr", "arg", "name", "asname", "module", "level", "simple"}
_LEAF_FIELDS |= {"is_async", "conversion", "type_comment", "kind", "tag"}
_NAMES = frozenset({ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign})
_SHALLOW = 100  # tree depth; the recursive visit spends two or three frames a level and fails near 330 levels


def _node_classes(base: type = ast.AST) -> list[type]:
    return [base] + [k for sub in base.__subclasses__() for k in _node_classes(sub)]


# Per node class, the fields that may hold nodes worth reading; _INNER: the classes worth reading at all (a
# Name or a Constant holds nothing, so it is never entered).
_CHILDREN: dict[type, tuple[str, ...]] = {
    k: () if k in (ast.Constant, ast.MatchSingleton) else tuple(f for f in k._fields if f not in _LEAF_FIELDS)
    for k in _node_classes()
}
_INNER = frozenset(k for k, fields in _CHILDREN.items() if fields or k is ast.Call or k in _NAMES)


def _subtree(root: ast.AST) -> list[ast.AST]:
    """ast.walk(root) as a list, in its order, without the Load/Store/operator leaves (which hold nothing)."""
    out = [root]
    for node in out:  # a queue: read while it grows
        for field in _CHILDREN[node.__class__]:
            value: Any = getattr(node, field, None)  # a node, a list of them, or a leaf
            if value.__class__ is list:
                out += [item for item in value if item.__class__ in _CHILDREN]
            elif value.__class__ in _CHILDREN:
                out.append(value)
    return out


def _walk(tree: ast.AST) -> tuple[list[ast.Call], list[ast.AST], int]:
    """The calls in the visit's (depth-first) order, the imports and assignments in ast.walk's (breadth-first)
    order, and the tree's depth: one pass instead of ast.walk's generators and a second, recursive one. It
    recurses one frame a level, so where it runs out of stack the visit (two or three a level) would have too."""
    calls: list[ast.Call] = []
    names: list[tuple[int, ast.AST]] = []
    deepest = 0
    add_call, add_name = calls.append, names.append
    # Closure cells, not globals: the hot loop's lookups.
    call_kind, name_kinds, children, inner = ast.Call, _NAMES, _CHILDREN, _INNER

    def read(node: ast.AST, depth: int) -> None:
        nonlocal deepest
        kind = node.__class__
        if kind is call_kind:
            # an ast.Call: pyright narrows no `__class__ is`, and isinstance would cost in this hot loop
            add_call(node)  # pyright: ignore[reportArgumentType]
        elif kind in name_kinds:
            add_name((depth, node))
        depth += 1
        if depth > deepest:
            deepest = depth
        for field in children[kind]:
            value: Any = getattr(node, field, None)  # a node, a list of them, or a leaf
            if value.__class__ is list:
                for item in value:
                    if item.__class__ in inner:
                        read(item, depth)
            elif value.__class__ in inner:
                read(value, depth)

    read(tree, 0)
    # Breadth-first order is depth-first order sorted (stably) by depth: both read each level left to right.
    names.sort(key=lambda n: n[0])
    return calls, [n for _, n in names], deepest


class _Analyser(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, depth: int) -> None:
        self.hits: list[Hit] = []
        self.depth = depth
        self.aliases: dict[str, str] = {}
        self.env: dict[str, ast.expr] = {}
        self.connects = False
        self.dup2 = False
        self.shell_spawned = False
        self.network = False
        self.calls, names, deepest = _walk(tree)
        # In ast.walk's (breadth-first) order, as before: the last import of a name wins, and its first binding.
        for node in names:
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0]
                    )
            elif isinstance(node, ast.ImportFrom):
                if node.module:
                    for a in node.names:
                        self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Assign):
                if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    self.env.setdefault(node.targets[0].id, node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                self.env.setdefault(node.target.id, node.value)
        # A tree this shallow cannot exhaust the stack in the recursive visit, so its calls are simply read in the
        # visit's order; a deeper one is visited as before, and falls back to _unparsed where that recursion fails.
        self.shallow = deepest <= _SHALLOW
        # Every name is known now, so each call's name is fixed: resolved once here, not again in its visit.
        self.callees = [self.callee(n.func) for n in self.calls]
        self.network = any(self._is_network(name) for name in self.callees)

    def read_calls(self) -> None:
        """The visit of a shallow tree: each call in the visit's order, its name resolved once."""
        for node, name in zip(self.calls, self.callees, strict=True):
            self.visit_Call(node, name)

    def visit(self, node: ast.AST) -> None:
        """NodeVisitor.visit with the method of each node class looked up once (the scan's hot loop)."""
        kind = type(node)
        method = _VISIT.get(kind)
        if method is None:
            method = _VISIT[kind] = getattr(type(self), "visit_" + kind.__name__, _Analyser.generic_visit)
        method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    # -- names ------------------------------------------------------------------------------------------------
    def callee(self, node: ast.AST, depth: int = 0) -> str:
        """The dotted name a call target stands for: aliases, `__import__(x)`, `getattr(m, "f")` resolved."""
        if depth > _MAX_DEPTH:
            return ""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            bound = self.env.get(node.id)
            if isinstance(bound, ast.Call | ast.Attribute) and depth < _MAX_DEPTH:
                resolved = self.callee(bound, depth + 1)
                if resolved:
                    return resolved
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.callee(node.value, depth + 1)
            return f"{base}.{node.attr}" if base else node.attr
        if isinstance(node, ast.Call):
            name = self.callee(node.func, depth + 1)
            if name in ("__import__", "importlib.import_module", "builtins.__import__") and node.args:
                mod = self.value(node.args[0], depth + 1)
                return mod if isinstance(mod, str) else ""
            if name == "getattr" and len(node.args) >= 2:
                attr = self.value(node.args[1], depth + 1)
                base = self.callee(node.args[0], depth + 1)
                return f"{base}.{attr}" if isinstance(attr, str) and base else ""
            return name  # requests.Session().post -> requests.Session.post
        if isinstance(node, ast.Subscript):  # vars(os)["system"], __builtins__["exec"]
            key = self.value(node.slice, depth + 1)
            inner = node.value
            base = self.callee(inner.args[0], depth + 1) if isinstance(inner, ast.Call) and inner.args else ""
            base = base or self.callee(inner, depth + 1)
            if isinstance(key, str):
                return f"{base}.{key}" if base and not base.startswith("__builtins__") else key
        return ""

    # -- values -----------------------------------------------------------------------------------------------
    def value(self, node: ast.AST | None, depth: int = 0) -> str | bytes | None:
        """The string a expression evaluates to when it can be known without running it; None when not."""
        if node is None or depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            return node.value
        if isinstance(node, ast.Name):
            return self.value(self.env.get(node.id), depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Div):
            left, right = self.value(node.left, depth + 1), self.value(node.right, depth + 1)
            if isinstance(node.op, ast.Div) and isinstance(left, str) and isinstance(right, str):
                return left.rstrip("/") + "/" + right  # pathlib's /
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            if isinstance(left, bytes) and isinstance(right, bytes):
                return left + right
            return None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    inner = self.value(v.value, depth + 1)
                    parts.append(inner if isinstance(inner, str) else self.placeholder(v.value))
                else:
                    parts.append(str(getattr(v, "value", "")))
            return "".join(parts)
        if isinstance(node, ast.Subscript):
            base = self.value(node.value, depth + 1)
            sl = node.slice
            if (
                isinstance(base, str | bytes)
                and isinstance(sl, ast.Slice)
                and sl.lower is None
                and sl.upper is None
            ):
                step = self.literal(sl.step)
                if step == -1:
                    return base[::-1]
            if _dotted(node.value) in ("os.environ", "environ") and self.value(sl, depth + 1) == "HOME":
                return "~"
            return None
        if isinstance(node, ast.Call):
            return self._call_value(node, depth)
        return None

    def _call_value(self, node: ast.Call, depth: int) -> str | bytes | None:
        name = self.callee(node.func, depth + 1)  # depth carried on: `x = f[x]()` resolves x through x
        args = node.args
        arg0 = self.value(args[0], depth + 1) if args else None
        short = name.rsplit(".", 1)[-1]
        try:
            if name in ("Path.home", "pathlib.Path.home", "os.path.expanduser", "os.getcwd") and not args:
                return "~" if short == "home" else None
            if name in (
                "os.path.expanduser",
                "os.path.expandvars",
                "str",
                "os.fspath",
                "Path",
                "pathlib.Path",
            ):
                return arg0 if len(args) == 1 else None
            if name in ("os.path.join", "posixpath.join"):
                parts = [self.value(a, depth + 1) for a in args]
                texts = [p for p in parts if isinstance(p, str)]
                return "/".join(p.rstrip("/") for p in texts) if len(texts) == len(parts) else None
            if name in ("os.getenv", "os.environ.get") and arg0 == "HOME":
                return "~"
            if short == "join" and isinstance(node.func, ast.Attribute) and args:
                sep = self.value(node.func.value, depth + 1)
                items = args[0].elts if isinstance(args[0], ast.List | ast.Tuple) else None
                if isinstance(sep, str) and items is not None:
                    vals = [self.value(e, depth + 1) for e in items]
                    texts = [v for v in vals if isinstance(v, str)]
                    return sep.join(texts) if len(texts) == len(vals) else None
            if short in ("decode", "encode") and isinstance(node.func, ast.Attribute):
                inner = self.value(node.func.value, depth + 1)
                if short == "decode" and isinstance(inner, bytes):
                    return inner.decode("utf-8", "replace")
                if short == "encode" and isinstance(inner, str):
                    return inner.encode()
            if name == "codecs.decode" and isinstance(arg0, str | bytes):
                enc = self.value(args[1], depth + 1) if len(args) > 1 else "utf-8"
                # codecs.decode takes a str too (rot13); typeshed's overloads know that only for literal names
                return codecs.decode(arg0, str(enc))  # pyright: ignore[reportCallIssue, reportArgumentType]
            if short in ("b64decode", "decodebytes", "urlsafe_b64decode", "a2b_base64") and arg0 is not None:
                return base64.b64decode(arg0 + "=" * (-len(arg0) % 4) if isinstance(arg0, str) else arg0)
            if short in ("fromhex", "unhexlify", "a2b_hex") and arg0 is not None:
                return binascii.unhexlify(arg0 if isinstance(arg0, bytes) else arg0.encode())
            if short == "decompress" and isinstance(arg0, bytes):
                return zlib.decompress(arg0)
            if short == "chr" and args:
                n = self.literal(args[0])
                return chr(n) if isinstance(n, int) else None
            if short in ("bytes", "bytearray") and args and isinstance(args[0], ast.List | ast.Tuple):
                nums = [self.literal(e) for e in args[0].elts]
                return bytes(nums) if all(isinstance(n, int) for n in nums) else None
        except (ValueError, TypeError, LookupError, zlib.error, binascii.Error):
            return None
        return None

    def literal(self, node: ast.AST | None) -> Any:
        try:
            return ast.literal_eval(node) if node is not None else None
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None

    def placeholder(self, node: ast.AST) -> str:
        """A value not known statically, as the shell would see an unknown variable (home stays home)."""
        src = ast.dump(node)
        if "'home'" in src or "'~" in src or "'HOME'" in src:
            return "~"
        name = _dotted(node) or "X"
        return f'"${re.sub(r"[^A-Za-z0-9]+", "_", name).upper()}"'

    def text(self, node: ast.AST) -> str:
        v = self.value(node)
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        return v if isinstance(v, str) else self.placeholder(node)

    # -- what flows where -------------------------------------------------------------------------------------
    def traits(self, node: ast.AST, depth: int = 0) -> set[str]:
        """What an expression is made of: "decoded" data, "network" data, the whole "environ", a "credential"."""
        out: set[str] = set()
        if depth > _MAX_DEPTH:
            return out
        for sub in _subtree(node):
            if isinstance(sub, ast.Name) and sub.id in self.env and self.env[sub.id] is not node:
                out |= self.traits(self.env[sub.id], depth + 1)
            elif isinstance(sub, ast.Call):
                name = self.callee(sub.func)
                short = name.rsplit(".", 1)[-1]
                if (
                    short in _DECODERS
                    or name in _DECODER_NAMES
                    or (
                        short in ("bytes", "bytearray")
                        and sub.args
                        and isinstance(sub.args[0], ast.List | ast.Tuple)
                    )
                ):
                    out.add("decoded")
                if self._is_network(name):
                    out.add("network")
                if self._reads_credential(sub):
                    out.add("credential")
            elif _dotted(sub) in ("os.environ", "environ") and self._whole_environ(sub, node):
                out.add("environ")
        return out

    def _whole_environ(self, sub: ast.AST, root: ast.AST) -> bool:
        for parent in _subtree(root):  # os.environ["KEY"] and os.environ.get("KEY") name one variable
            if isinstance(parent, ast.Subscript) and parent.value is sub:
                return False
            if (
                isinstance(parent, ast.Attribute)
                and parent.value is sub
                and parent.attr in ("get", "setdefault")
            ):
                return False
            if isinstance(parent, ast.Compare) and sub in parent.comparators:
                return False
        return True

    def _fetches(self, call: ast.Call) -> bool:
        return any(isinstance(n, ast.Call) and self._is_network(self.callee(n.func)) for n in ast.walk(call))

    def _is_network(self, name: str) -> bool:
        return bool(name) and name.startswith(_NETWORK_MODULES) and bool(_NETWORK.search(name))

    def _reads_credential(self, call: ast.Call, name: str | None = None) -> bool:
        name = self.callee(call.func) if name is None else name
        if name in ("open", "io.open", "Path", "pathlib.Path", "os.open", "codecs.open") or name.endswith(
            (".read_text", ".read_bytes", ".open")
        ):
            target = (
                call.args[0]
                if call.args
                else (call.func.value if isinstance(call.func, ast.Attribute) else None)
            )
            if target is not None:
                return bool(CREDENTIAL_PATH.search(self.text(target)))
        return False

    # -- calls ------------------------------------------------------------------------------------------------
    def add(self, hits: list[Hit]) -> None:
        self.hits += hits

    def visit_Call(self, node: ast.Call, name: str | None = None) -> None:
        name = self.callee(node.func) if name is None else name
        line = node.lineno
        args = node.args
        shell_kw = any(k.arg == "shell" and self.literal(k.value) is True for k in node.keywords)
        if name in _SHELL_STRING_CALLS and args:
            if name == "pty.spawn":
                self.shell_spawned = True
            self.add(self._run_value(args[0], line))
        elif name in _PROCESS_CALLS or name.startswith(("os.exec", "os.spawn", "os.posix_spawn")):
            first = (
                args[1]
                if name.startswith(("os.exec", "os.spawn", "os.posix_spawn")) and len(args) > 1
                else None
            )
            first = first or (args[0] if args else None)
            if first is not None:
                self.add(self._run_value(first, line, shell=shell_kw or name.endswith("_shell")))
        elif name in _EXEC_CALLS and args:
            self._exec(name, args[0], line)
        elif name in _DELETE_CALLS and args:
            self.add(command_hits(f"{_DELETE_CALLS[name]} {self.text(args[0])}", line))
        elif name.endswith(".rmtree") and isinstance(node.func, ast.Attribute):
            self.add(command_hits(f"rm -rf {self.text(node.func.value)}", line))
        elif name == "os.dup2":
            self.dup2 = True
        elif name.endswith((".connect", "create_connection")) and name.startswith("socket"):
            self.connects = True
        if self._is_network(name):
            flowing = (
                set().union(*(self.traits(a) for a in [*args, *(k.value for k in node.keywords)]))
                if (args or node.keywords)
                else set()
            )
            if "environ" in flowing:
                self.add([Hit("dangerous", "exfiltration: sends the whole environment to the network", line)])
            if "credential" in flowing:
                self.add([Hit("dangerous", "exfiltration: sends a credential file to the network", line)])
        if self._reads_credential(node, name if self.shallow else None):
            why = "credential access: reads keys, tokens or password files"
            self.add([Hit("caution", why, line, excerpt(self.text(node.args[0]) if node.args else name))])
        if self._writes_startup_file(node, name):
            self.add(
                [
                    Hit(
                        "dangerous",
                        "persistence: writes a shell startup file, SSH keys, cron or sudoers",
                        line,
                    )
                ]
            )
        if not self.shallow:  # a shallow tree's calls are read from the list, not by recursion
            self.generic_visit(node)

    def _writes_startup_file(self, node: ast.Call, name: str) -> bool:
        if name in ("open", "io.open") and node.args:
            mode = self.value(node.args[1]) if len(node.args) > 1 else None
            mode = mode or next((self.value(k.value) for k in node.keywords if k.arg == "mode"), "r")
            return (
                isinstance(mode, str)
                and bool(set(mode) & set("wa"))
                and bool(PERSISTENCE_PATH.search(self.text(node.args[0])))
            )
        if name.endswith((".write_text", ".write_bytes")) and isinstance(node.func, ast.Attribute):
            return bool(PERSISTENCE_PATH.search(self.text(node.func.value)))
        return False

    def _run_value(self, node: ast.AST, line: int, shell: bool = True) -> list[Hit]:
        if isinstance(node, ast.List | ast.Tuple):
            words = [self.text(e) for e in node.elts]
            if words and words[0].rsplit("/", 1)[-1] in ("sh", "bash", "zsh") and len(words) == 1:
                self.shell_spawned = True
            return shell_words_hits(words, line)
        traits = self.traits(node)
        out = []
        if "decoded" in traits:
            out.append(Hit("dangerous", "obfuscated payload: decoded data run as a command", line))
        if "network" in traits:
            out.append(Hit("dangerous", "runs a command downloaded from the network", line))
        command = self.text(node)
        if command.rsplit("/", 1)[-1] in ("sh", "bash", "zsh", "sh -i", "bash -i"):
            self.shell_spawned = True
        return out + [Hit(h.level, h.why, line, h.excerpt) for h in analyse("shell", command)]

    def _exec(self, name: str, node: ast.AST, line: int) -> None:
        traits = self.traits(node)
        if "decoded" in traits:
            self.add([Hit("dangerous", "obfuscated payload: decoded data run as code", line)])
        if "network" in traits:
            self.add([Hit("dangerous", "runs code downloaded from the network", line)])
        v = self.value(node)
        code = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
        if isinstance(code, str) and self.depth < 4:
            self.add([Hit(h.level, h.why, line, h.excerpt) for h in python_hits(code, self.depth + 1)])
        elif not traits and name != "compile":
            self.add([Hit("note", f"runs code built at run time ({name})", line)])

    def finish(self) -> list[Hit]:
        if self.connects and (self.dup2 or self.shell_spawned):
            self.hits.append(
                Hit("dangerous", "exfiltration: opens a reverse shell (socket wired to a shell)", 1)
            )
        reads = [h for h in self.hits if h.why.startswith("credential access: reads")]
        if reads and self.network:
            why = "exfiltration: reads credential files and uses the network in the same script"
            self.hits.append(Hit("dangerous", why, reads[0].line, reads[0].excerpt))
        return self.hits


def python_hits(code: str, depth: int = 0) -> list[Hit]:
    """Findings in Python source; source that does not parse is read for shell strings only."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _unparsed(code)
    try:
        analyser = _Analyser(tree, depth)  # resolving names recurses too
        if analyser.shallow:
            analyser.read_calls()
        else:
            analyser.visit(tree)
    except RecursionError:
        return _unparsed(code)
    return analyser.finish()


_SHELL_STRING = re.compile(
    r"(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen))\s*\(\s*(?:f|r|b)?([\"'])(.+?)\1"
)


def _unparsed(code: str) -> list[Hit]:
    out: list[Hit] = []
    for m in _SHELL_STRING.finditer(code):
        out += command_hits(m.group(2), code.count("\n", 0, m.start()) + 1)
    return out


register("python", python_hits)
