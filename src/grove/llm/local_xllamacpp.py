"""The xllamacpp runtime of the embedded model (the `[local]` extra: prebuilt llama.cpp wheels). llama.cpp's own
server runs in-process: completions through its Python calls, while tokenizing, the chat template and slot
save/restore go over its HTTP API on a Unix socket in a private folder, with a random key."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.local_engine import Generation, GrammarRejected, OnPiece, common_prefix
from grove.llm.local_template import ChatTemplate

PROMPT_CACHE_FILES = 4  # each holds the KV of one system prompt (about 23 KB a token for SmolLM2-135M)
SLOT = 0  # grove's turns, serialized by the caller's lock
PROBE_SLOT = 1  # a few tokens that show whether llguidance took a grammar (see _grammar_holds)
PROBE = "Zq"


class _SocketConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=600)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


# llama.cpp's server feeds the prompt into the penalty's history too (llama-cpp-python only the reply), so with the
# usual 64-token window a reply was penalised for copying the path or value the user had just written: Qwen made
# 31/41 right decisions against llama-cpp-python's 32/41 (benchmarks/local_tools.py). Over 8 tokens, the prompt's
# share is the chat template's closing tokens and leaves the window as the reply grows, short loops are still
# penalised, and the decisions were the same 41 as llama-cpp-python's (2026-12-07).
PENALTY_WINDOW = 8


class XllamacppEngine:
    grammar_dialect = "lark"

    def __init__(self, path: Path, n_ctx: int, n_threads: int) -> None:
        import xllamacpp

        from grove.llm.local_cpu import cpu_has_amx

        native: Any = xllamacpp  # its names come from a compiled module (`import *`), which no stub lists

        # 0700: only this user reaches the socket; the key keeps out whatever else runs as this user by chance.
        self._dir = Path(tempfile.mkdtemp(prefix="grove-llama-"))
        self._socket = str(self._dir / "api.sock")
        self._key = secrets.token_hex(16)
        (self._dir / "slots").mkdir()
        params = native.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = 2  # SLOT and PROBE_SLOT, in one KV buffer: each may use the whole context
        params.kv_unified = True
        params.cache_ram_mib = 0  # no copies of old prompts in RAM (8 GB by default): one turn at a time
        params.n_batch = 512  # llama-cpp-python's default: the same prompt batches as the other runtime
        params.cpuparams.n_threads = n_threads
        params.cpuparams_batch.n_threads = n_threads
        params.warmup = False  # an empty decode at load: a second lost on a small CPU, nothing gained
        params.fit_params = (
            False  # no trial load to fit the context into free memory: a CPU context is sized as asked
        )
        params.no_extra_bufts = cpu_has_amx()  # see grove.llm.local_cpu: AMX matmul crashes on some VMs
        params.hostnames = [self._socket]
        params.api_keys = [self._key]
        params.slot_save_path = str(self._dir / "slots") + "/"  # llama.cpp joins it to a file name as is
        params.verbosity = -1
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.server: Any = native.Server(params)
        except (RuntimeError, ValueError, OSError) as e:
            shutil.rmtree(self._dir, ignore_errors=True)
            raise ModelError(ErrorKind.MODEL_NOT_FOUND, f"could not load {path}: {e}") from e
        finally:
            _restore_signals(handlers)
        props = self._http("GET", "/props")
        self.template = ChatTemplate(
            props.get("chat_template") or "", props.get("bos_token") or "", props.get("eos_token") or ""
        )
        self._held: list[int] = []  # the prompt the slot's KV cache holds (its generated tail is not counted)
        self._grammars: dict[str, bool] = {}
        self._endings: dict[str, str] = {}
        atexit.register(self.close)

    def close(self) -> None:
        """Stops llama.cpp's loop while the interpreter is whole, and removes the socket's folder."""
        self.__dict__.pop("server", None)
        shutil.rmtree(self._dir, ignore_errors=True)

    def _http(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        conn = _SocketConnection(self._socket)
        try:
            conn.request(
                method,
                path,
                body=json.dumps(body) if body is not None else None,
                headers={"Authorization": f"Bearer {self._key}", "Content-Type": "application/json"},
            )
            response = conn.getresponse()
            data = json.loads(response.read() or b"{}")
        finally:
            conn.close()
        if response.status != 200:
            message = (data.get("error") or {}).get("message") if isinstance(data, dict) else data
            raise ModelError(ErrorKind.UNKNOWN, f"llama.cpp {path}: {message or response.status}")
        return data

    def tokenize(self, text: str) -> list[int]:
        # Templates write their own BOS; special tokens such as <|im_end|> are one token each.
        data = self._http("POST", "/tokenize", {"content": text, "add_special": False, "parse_special": True})
        return list(data["tokens"])

    def cached_prefix(self, tokens: list[int]) -> int:
        return common_prefix(self._held, tokens)

    def reset(self) -> None:
        with contextlib.suppress(ModelError):
            self._http("POST", f"/slots/{SLOT}?action=erase")
        self._held = []

    def prefill(self, tokens: list[int]) -> None:
        self._complete({"prompt": tokens, "n_predict": 0, "temperature": 0.0})
        self._held = list(tokens)

    def prefix_from_disk(self, prefix: list[int], cache_dir: Path, key: str) -> bool:
        name = f"{hashlib.sha256((key + repr(prefix)).encode()).hexdigest()[:32]}.kv"
        path = cache_dir / name
        # llama.cpp reads and writes slot files in its own folder only: a link there points at the cache file.
        link = self._dir / "slots" / name
        link.unlink(missing_ok=True)
        if path.is_file():
            link.symlink_to(path)
            self.reset()
            try:
                restored = self._http("POST", f"/slots/{SLOT}?action=restore", {"filename": name})
            except ModelError:
                restored = {}
            finally:
                link.unlink(missing_ok=True)
            if restored.get("n_restored") == len(prefix):
                self._held = list(prefix)
                os.utime(path)  # most recently used
                return True
            self.reset()
            path.unlink(missing_ok=True)
            return False
        self.reset()
        self.prefill(prefix)
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        link.symlink_to(tmp)
        try:
            self._http("POST", f"/slots/{SLOT}?action=save", {"filename": name})
            os.replace(tmp, path)
        except (ModelError, OSError):
            tmp.unlink(missing_ok=True)
        finally:
            link.unlink(missing_ok=True)
        for old in sorted(cache_dir.glob("*.kv"), key=lambda f: f.stat().st_mtime)[:-PROMPT_CACHE_FILES]:
            old.unlink(missing_ok=True)
        return False

    def _ending(self, grammar: str, stop: str) -> str:
        """The grammar made to end with the end-of-turn token. llguidance lets a finished grammar end only with
        the tokenizer's own end token, which is not the chat template's (SmolLM2: <|endoftext|>, not <|im_end|>):
        without this the model could not stop after its answer and ran on to the token budget."""
        key = f"{stop}\0{grammar}"
        if key not in self._endings:
            ends = sorted(
                {
                    ids[0]
                    for text in (stop, self.template.eos_token)
                    if text and len(ids := self.tokenize(text)) == 1
                }
            )
            lines = grammar.split("\n")
            at = next(i for i, line in enumerate(lines) if line.startswith("start:"))
            if ends:
                tokens = " | ".join(f"<[{token}]>" for token in ends)
                lines[at] = f"start: ({lines[at][len('start:') :].strip()}) ({tokens})"
            self._endings[key] = "\n".join(lines)
        return self._endings[key]

    def _grammar_holds(self, grammar: str) -> bool:
        """Whether llguidance compiles `grammar`. One it cannot compile (a schema feature it lacks) is not an
        error in llama.cpp: generation runs unconstrained. So the grammar's start is made to write PROBE first,
        in a slot of its own, and the first tokens show whether it held."""
        if grammar not in self._grammars:
            lines = grammar.split("\n")
            at = next(i for i, line in enumerate(lines) if line.startswith("start:"))
            lines[at] = f'start: "{PROBE}" ({lines[at][len("start:") :].strip()})'
            result = self._complete(
                {
                    "prompt": self.tokenize("Hi"),
                    "n_predict": 1,  # the first token is a piece of PROBE only when the grammar holds
                    "temperature": 0.0,
                    "grammar": "\n".join(lines),
                },
                slot=PROBE_SLOT,
            )
            with contextlib.suppress(ModelError):
                self._http("POST", f"/slots/{PROBE_SLOT}?action=erase")
            first = str(result["choices"][0].get("text", ""))
            self._grammars[grammar] = bool(first) and PROBE.startswith(first)
        return self._grammars[grammar]

    def _complete(self, body: dict[str, Any], on_chunk: Any = None, slot: int = SLOT) -> Any:
        body = {**body, "cache_prompt": True, "id_slot": slot}
        if on_chunk is None:
            result = self.server.handle_completions(body)
        else:
            result = None
            self.server.handle_completions({**body, "stream": True}, on_chunk)
        if isinstance(result, dict) and "error" in result:
            self._fail(result["error"])
        return result

    def _fail(self, error: Any) -> None:
        message = error.get("message", "") if isinstance(error, dict) else str(error)
        if "grammar" in message:
            raise GrammarRejected(message)
        self._held = []
        raise ModelError(ErrorKind.UNKNOWN, f"llama.cpp: {message}")

    def generate(
        self,
        tokens: list[int],
        grammar: str | None,
        *,
        temperature: float,
        repeat_penalty: float,
        seed: int | None,
        limit: int,
        stop: str,
        on_piece: OnPiece,
    ) -> Generation:
        body: dict[str, Any] = {
            "prompt": tokens,
            "n_predict": limit,
            "temperature": temperature,
            "repeat_penalty": repeat_penalty,
            "repeat_last_n": PENALTY_WINDOW,
            "stop": [stop],
        }
        if grammar is not None:
            if grammar.startswith("%llguidance"):
                grammar = self._ending(grammar, stop)
                if not self._grammar_holds(grammar):
                    raise GrammarRejected(grammar)
            body["grammar"] = grammar
        if seed is not None:
            body["seed"] = seed
        parts: list[str] = []
        state: dict[str, Any] = {"finish": "length", "usage": None, "error": None, "n": 0}

        def on_chunk(chunk: dict[str, Any]) -> bool:
            # xllamacpp swallows a callback's exception (it just stops the stream): keep it to raise after
            try:
                return read_chunk(chunk)
            except BaseException as e:
                state["raised"] = e
                return True

        def read_chunk(chunk: dict[str, Any]) -> bool:
            if state["interrupted"]:
                return True  # Ctrl-C: stop here; the interrupt is raised once llama.cpp has let go
            if "error" in chunk or "choices" not in chunk:
                state["error"] = chunk.get("error", chunk)
                return True
            choice = chunk["choices"][0]
            piece = choice.get("text") or ""
            if chunk.get("usage"):
                state["usage"] = chunk["usage"]
            if choice.get("finish_reason"):
                state["finish"] = "stop" if choice["finish_reason"] == "stop" else "length"
            if not piece:
                return False
            parts.append(piece)
            state["n"] += 1
            return bool(on_piece(piece))

        estimate = self.cached_prefix(tokens)
        with _deferred_interrupts() as interrupted:
            state["interrupted"] = interrupted
            self._complete(body, on_chunk)
        if state.get("raised") is not None:
            raise state["raised"]
        if state["error"] is not None:
            self._fail(state["error"])
        self._held = list(tokens)
        usage = state["usage"] or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
        return Generation(
            text="".join(parts),
            # llama.cpp counts the end-of-turn token it stopped at; grove counts the reply's own tokens
            n_out=max(0, int(usage["completion_tokens"]) - (state["finish"] == "stop"))
            if "completion_tokens" in usage
            else state["n"],
            finish=state["finish"],
            cached=estimate if cached is None else int(cached),
        )


@contextlib.contextmanager
def _deferred_interrupts() -> Iterator[list[int]]:
    """While llama.cpp streams, Ctrl-C only marks the list (the caller stops the stream at the next token); on the
    way out the handler that was in place gets the signal. A KeyboardInterrupt raised inside xllamacpp's callback
    wrapper is printed and dropped, and generation ran on to its budget."""
    marks: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield marks
        return
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, lambda signum, frame: marks.append(signum))
    try:
        yield marks
    finally:
        signal.signal(signal.SIGINT, previous)
    if marks and callable(previous):
        previous(signal.SIGINT, None)
    elif marks and previous == signal.SIG_DFL:
        raise KeyboardInterrupt


def _restore_signals(handlers: dict[signal.Signals, Any]) -> None:
    """llama.cpp's server installs its own SIGINT/SIGTERM handlers; grove's (Ctrl-C ends a turn) come back."""
    for sig, handler in handlers.items():
        with contextlib.suppress(ValueError, TypeError):  # not the main thread: nothing was ours to restore
            signal.signal(sig, handler)
