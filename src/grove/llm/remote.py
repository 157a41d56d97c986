"""What every remote provider shares: key and its variable, base URL, context window, profile, the transport
choice ("sdk": the provider's SDK, imported and built on first use; "http": grove.llm.http_transport), one
retry-free call per `complete`, and SDK errors mapped onto grove's taxonomy. Subclasses keep their wire format.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
from collections.abc import Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from grove.llm.errors import ErrorKind, ModelError
from grove.llm.http_errors import classify_sdk_status_error, classify_transport_error
from grove.llm.http_transport import TRANSPORTS, HTTPTransport, resolve_transport
from grove.llm.images import recent_images_only, refuse_if_blind
from grove.llm.profiles import ModelProfile, profile_for
from grove.llm.types import Completion, Message, ModelSettings, TextCallback, ToolSchema

if TYPE_CHECKING:
    from grove.config import Settings
    from grove.llm.spec import ModelSpec
    from grove.providers_table import Provider


class RemoteModel:
    """A chat model behind an HTTP API. A subclass names its format's constants and implements `request_params`,
    `parse` (a plain answer's JSON), `assemble` (a stream's event objects) and `sdk_client`."""

    API: ClassVar[str]  # the profile's API format: "openai", "anthropic"
    SDK: ClassVar[str]  # the SDK's module: "openai", "anthropic"
    PATH: ClassVar[str]  # appended to the base URL: "/chat/completions"
    DEFAULT_BASE_URL: ClassVar[str]
    BASE_URL_ENV: ClassVar[str]  # as the SDK does: no base URL means this variable, then DEFAULT_BASE_URL
    DEFAULT_KEY_ENV: ClassVar[str]
    # Fail before any request when there is no key and no base URL (a base URL may be a keyless proxy).
    KEY_REQUIRED: ClassVar[bool] = False

    def __init__(
        self,
        name: str,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        key_env: str | None = None,
        context_window: int | None = None,
        transport: str = "sdk",
        profile: ModelProfile | None = None,
    ) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")
        self.name = name  # the spec string: "openai:gpt-5.4-mini"
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.key_env = key_env or self.DEFAULT_KEY_ENV
        # Without a provider, the spec string's prefix names it (for provider-specific rules).
        self.profile = profile or profile_for(self.API, name.partition(":")[0], model)
        self.context_window = context_window or self.profile.context_window
        self.transport = transport
        self._client: Any = None
        self._http: HTTPTransport | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_spec(
        cls, spec: ModelSpec, provider: Provider, settings: Settings, *, long_lived: bool = False
    ) -> RemoteModel:
        """The model a parsed spec names, with the provider's settings (key variable, base URL, transport)."""
        from grove.llm.spec import api_key_for, provider_config

        cfg = provider_config(settings, provider.name)
        key, key_env = api_key_for(provider.name, cfg)
        return cls(
            name=str(spec),
            model=spec.model,
            base_url=cfg.base_url or spec.base_url,
            api_key=key,
            key_env=key_env,
            context_window=cfg.context_window,
            transport=resolve_transport(cfg.transport, long_lived),
            profile=profile_for(cls.API, provider.name, spec.model),
        )

    # --- what a format provides -------------------------------------------------------------------------------

    def request_params(
        self, messages: list[Message], tools: list[ToolSchema], settings: ModelSettings
    ) -> dict[str, Any]:
        raise NotImplementedError

    def auth_headers(self) -> dict[str, str]:
        """Headers of the stdlib transport (the SDK adds its own): the key, an API version."""
        raise NotImplementedError

    def stream_params(self) -> dict[str, Any]:
        """Fields that ask for a streamed answer."""
        return {"stream": True}

    def sdk_client(self, sdk: Any, timeout: float) -> Any:
        raise NotImplementedError

    def sdk_types(self, sdk: Any) -> tuple[Any, Any]:
        """(the answer's type, the stream's class) for the SDK's `client.post`."""
        raise NotImplementedError

    def parse(self, data: dict[str, Any]) -> Completion:
        raise NotImplementedError

    def assemble(self, events: Iterable[dict[str, Any]], on_text: TextCallback) -> Completion:
        raise NotImplementedError

    def stream_objects(self, events: Iterator[tuple[str, str]]) -> Generator[dict[str, Any], None, None]:
        """The objects of a stream's server-sent events (name, data), for `assemble`."""
        raise NotImplementedError

    def sdk_error(self, sdk: Any, error: Exception) -> ModelError | None:
        """A format's own reading of an SDK error (e.g. an error event in a 200 stream); None: the shared one."""
        return None

    # --- shared -----------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        base = self.base_url or os.environ.get(self.BASE_URL_ENV) or self.DEFAULT_BASE_URL
        return base.rstrip("/") + self.PATH

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        if self.KEY_REQUIRED and not self.api_key and not self.base_url:
            raise ModelError(
                ErrorKind.AUTH,
                f"no API key for {self.name}: export {self.key_env}=<your key> (grove never stores keys)",
                model=self.name,
            )
        refuse_if_blind(messages, self.profile.vision, self.name)
        body = self.request_params(recent_images_only(messages), tools, settings)
        if on_text is not None:
            body.update(self.stream_params())
        if self.transport == "http":
            return self._complete_http(body, settings.timeout, on_text)
        return self._complete_sdk(body, settings.timeout, on_text)

    def _get_http(self) -> HTTPTransport:
        with self._lock:
            if self._http is None:
                self._http = HTTPTransport(
                    self.url, self.auth_headers(), model=self.name, key_env=self.key_env
                )
            return self._http

    def _get_client(self, sdk: Any, timeout: float) -> Any:
        with self._lock:
            if self._client is None:
                self._client = self.sdk_client(sdk, timeout)
            return self._client

    def _complete_http(
        self, body: dict[str, Any], timeout: float, on_text: TextCallback | None
    ) -> Completion:
        http = self._get_http()
        if on_text is None:
            return self.parse(http.complete(body, timeout))
        # closing(): an error raised while assembling must not leave the connection open until garbage collection.
        with (
            contextlib.closing(http.stream(body, timeout)) as events,
            contextlib.closing(self.stream_objects(events)) as objects,
        ):
            return self.assemble(objects, on_text)

    def _complete_sdk(self, body: dict[str, Any], timeout: float, on_text: TextCallback | None) -> Completion:
        sdk = importlib.import_module(self.SDK)  # ~1-2 s the first time: only here, never at import
        client = self._get_client(sdk, timeout)
        answer_type, stream_cls = self.sdk_types(sdk)
        # client.post rather than the SDK's typed methods: it sends this body as it is, the very bytes the http
        # transport sends, where the typed methods reorder keys.
        options = {"timeout": timeout}
        try:
            if on_text is None:
                answer = client.post(self.PATH, body=body, cast_to=answer_type, options=options)
                return self.parse(answer.model_dump())
            stream = client.post(
                self.PATH, body=body, cast_to=answer_type, options=options, stream=True, stream_cls=stream_cls
            )
            with contextlib.closing(stream):
                return self.assemble((event.model_dump() for event in stream), on_text)
        except ModelError:
            raise
        except Exception as e:
            mapped = self.sdk_error(sdk, e) or self._shared_sdk_error(sdk, e)
            if mapped is None:
                raise
            raise mapped from e

    def _shared_sdk_error(self, sdk: Any, error: Exception) -> ModelError | None:
        if isinstance(error, sdk.APIStatusError):
            return classify_sdk_status_error(error, model=self.name, key_env=self.key_env)
        return classify_transport_error(error, self.name)
