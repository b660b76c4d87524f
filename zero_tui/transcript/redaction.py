"""Secrets masked in an export, by Zero's own rules (`zero/internal/redaction`, v0.8.0).

The rules, re-expressed with Python's `re` (ASCII classes, as Go's regexp has):

* a PEM/OpenSSH private key block, header to footer;
* a JSON pair `"key": "value"` and an assignment `key=value` (`"…"`, `'…'` or a bare word)
  whose key is sensitive (`is_sensitive_key`): the value is masked, the key kept;
* an `Authorization:` / `Proxy-Authorization:` header: everything after it on the line
  (a known scheme such as `Bearer` is kept); `X-Api-Key:`, `Api-Key:`, `Cookie:`,
  `Set-Cookie:` headers likewise;
* the password of a URL (`https://user:password@host`) and a query parameter whose name is
  sensitive (`?token=…`);
* token shapes, wherever they stand: OpenAI (`sk-…`, a digit-free kebab phrase such as
  `sk-learn-machine-learning-model` excepted), Anthropic (`sk-ant-…`), GitHub
  (`ghp_…`, `github_pat_…`), GitLab (`glpat-…`), Google (`AIza…`), Slack (`xox?-…`), AWS
  access key ids (`AKIA…`, `ASIA…`) and JWTs.

Each is replaced by `[REDACTED]`, and counted. Beyond Zero's rules, the user's home folder
is written `~` (counted apart: it is a path, not a secret). In a decoded value (an event's
payload) every string is masked by the rules above and the whole value of a sensitive key
is masked, as Zero's `RedactValue` does.

Where Go's engine is linear in the text and Python's backtracks, a key is looked for only
up to `KEY_LIMIT` characters, so a hostile megabyte-long line costs what a plain one does.
No Textual or Rich import here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from typing import Any
from urllib.parse import urlsplit

from zero_tui.store import Metadata

REDACTED = "[REDACTED]"
KEY_LIMIT = 256
"""The longest key (of a JSON pair, an assignment or a query) that is looked at."""

_SENSITIVE_KEYS = frozenset(
    {
        "access_token",
        "anthropic_api_key",
        "api_key",
        "apikey",
        "auth_token",
        "authorization",
        "aws_secret_access_key",
        "aws_session_token",
        "bearer",
        "bearer_token",
        "client_secret",
        "cookie",
        "credential",
        "credentials",
        "gemini_api_key",
        "github_token",
        "gitlab_token",
        "google_api_key",
        "id_token",
        "jwt",
        "npm_token",
        "oauth_token",
        "openai_api_key",
        "passphrase",
        "password",
        "private_key",
        "proxy_authorization",
        "refresh_token",
        "secret",
        "session_token",
        "set_cookie",
        "token",
        "x_api_key",
        "zero_api_key",
    }
)
# a key with one of these `_` segments is sensitive (db_password, stripe_secret_key)
_SECRET_SEGMENTS = frozenset(
    {"password", "passwd", "passphrase", "secret", "credential", "credentials", "apikey"}
)
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def normalize_key(key: str) -> str:
    """Lower case, every run of other characters one `_`, none at either end (`X-Api-Key`
    is `x_api_key`, `apiKey` is `apikey`)."""
    return _NOT_ALNUM.sub("_", key.strip().lower()).strip("_")


def is_sensitive_key(key: str) -> bool:
    """Whether a value under this key is a secret: a known name, a secret segment, a
    trailing singular `token` (`csrf_token`, never `max_tokens` nor `token_count`), or
    `api_key` / `private_key` (never a bare `key`: `primary_key`, `cache_key`)."""
    normalized = normalize_key(key)
    if not normalized:
        return False
    if normalized in _SENSITIVE_KEYS:
        return True
    segments = normalized.split("_")
    for index, segment in enumerate(segments):
        if segment in _SECRET_SEGMENTS:
            return True
        if segment == "token" and 0 < index == len(segments) - 1:
            return True
        if segment == "key" and index > 0 and segments[index - 1] in ("api", "private"):
            return True
    return False


_A = re.ASCII
_JSON_PAIR = re.compile(
    rf'("((?:[^"\\]|\\.){{0,{KEY_LIMIT}}})"\s*:\s*)"([^"\\]*+(?:\\.[^"\\]*+)*+)"', _A
)
# Go's `\b` + key: a key starts at a word start; the run before it in the same word (digit
# led groups, `.` and `-`) cannot start one, so it is skipped, and each word is scanned once.
_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.-])(?:[0-9][A-Za-z0-9_]*+|[.-])*+"
    rf"([A-Za-z_][A-Za-z0-9_.-]{{0,{KEY_LIMIT}}}+)(\s*=\s*)"
    r"""(?:"([^"]*)"|'([^']*)'|([^\s&]+))""",
    _A,
)
_SCHEMES = "bearer|basic|token|apikey|api-key|digest|negotiate|oauth|aws4-hmac-sha256"
_AUTH_HEADER = re.compile(
    rf"\b(authorization|proxy-authorization)\s*:\s*(?:({_SCHEMES})\s+)?([^\r\n]+)",
    _A | re.IGNORECASE,
)
_SECRET_HEADER = re.compile(r"\b(x-api-key|api-key|cookie|set-cookie)\s*:\s*([^\r\n]+)", _A | re.I)
_URL = re.compile(r"\b(?:https?|wss?|ftp)://\S+", _A)
_QUERY = re.compile(rf"([?&])([^=&#\s]{{1,{KEY_LIMIT}}})=([^&#\s]+)", _A)
_OPENAI_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{20,}+", _A)
_OPENAI_PREFIXES = ("sk-proj-", "sk-svcacct-", "sk-admin-")
_TOKEN_SHAPES = tuple(
    re.compile(pattern, _A)
    for pattern in (
        r"\bsk-ant-(?:api\d{2}-)?[A-Za-z0-9_-]{20,}",
        r"\bgithub_pat_[A-Za-z0-9_]{22,}",
        r"\bgh[pousr]_[A-Za-z0-9]{36,}",
        r"\bglpat-[A-Za-z0-9_-]{12,}",
        r"\bAIza[0-9A-Za-z_-]{35,}",
        r"\bxox[baprs]-[A-Za-z0-9-]{10,}",
        r"\b(?:AKIA|ASIA)[A-Z0-9]{16}",
    )
)
_JWTS = tuple(
    re.compile(pattern, _A)
    for pattern in (
        r"eyJ[A-Za-z0-9_-]{10,}+\.eyJ[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}",
        r"eyJ[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}",
    )
)
_JWT_START = re.compile(r"\beyJ", _A)
_JWT_SEGMENT = re.compile(r"[A-Za-z0-9_-]*+", _A)
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----", _A)
_KEY_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----", _A)
_TOKEN_SHAPE_START = re.compile(r"(?:sk|gh[pousr]|github|glpat|AIza|xox|AKIA|ASIA|eyJ)", _A)


@dataclass(slots=True)
class RedactionCount:
    """What one export masked: secrets, and home folders written `~`."""

    secrets: int = 0
    home_paths: int = 0

    @property
    def total(self) -> int:
        return self.secrets + self.home_paths

    def note(self) -> str:
        """`3 values masked (2 secrets, 1 home path as ~)`, as every format says it."""
        secrets = f"{self.secrets} secret{'' if self.secrets == 1 else 's'}"
        homes = f"{self.home_paths} home path{'' if self.home_paths == 1 else 's'} as ~"
        values = f"{self.total} value{'' if self.total == 1 else 's'}"
        return f"{values} masked ({secrets}, {homes})"


@dataclass(slots=True)
class Redactor:
    """Masks text and decoded values by Zero's rules and the home folder, counting as it goes.

    `home` is the folder written `~` ("" or "/": none).
    """

    home: str = field(default_factory=lambda: os.path.expanduser("~"))
    count: RedactionCount = field(default_factory=RedactionCount)
    _home_pattern: re.Pattern[str] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        home = self.home.rstrip("/")
        if home and home != "~":
            # the folder itself, or a path inside it: never /home/alice2 for /home/alice
            self._home_pattern = re.compile(re.escape(home) + r"(?![\w-]|\.[\w.-])")

    def text(self, value: str) -> str:
        """The text with its secrets masked and the home folder as `~`."""
        masked = self._secrets(value)
        if self._home_pattern is not None and self.home.rstrip("/") in masked:
            masked, found = self._home_pattern.subn("~", masked)
            self.count.home_paths += found
        return masked

    def value(self, decoded: Any) -> Any:
        """A decoded JSON value with every string masked and every sensitive key's value
        masked whole; walked without recursion (a payload may nest 10,000 levels)."""
        if isinstance(decoded, str):
            return self.text(decoded)
        if not isinstance(decoded, dict | list):
            return decoded
        # each container is copied into its own new one: (copy, original) pairs to fill
        top: dict[str, Any] | list[Any] = {} if isinstance(decoded, dict) else []
        pending: list[tuple[Any, Any]] = [(top, decoded)]
        while pending:
            copy, original = pending.pop()
            if isinstance(original, list):
                for item in original:
                    copy.append(self._leaf(item, pending))
                continue
            for key, item in original.items():
                if is_sensitive_key(key):
                    copy[self.text(key)] = self._masked(item) if item != REDACTED else item
                else:
                    copy[self.text(key)] = self._leaf(item, pending)
        return top

    def _leaf(self, item: Any, pending: list[tuple[Any, Any]]) -> Any:
        """A masked string, a new empty container queued to be filled, or the item."""
        if isinstance(item, str):
            return self.text(item)
        if isinstance(item, dict | list):
            copy: dict[str, Any] | list[Any] = {} if isinstance(item, dict) else []
            pending.append((copy, item))
            return copy
        return item

    def metadata(self, meta: Metadata) -> Metadata:
        """The session's metadata with every text field masked (its title, its folder…)."""
        changes: dict[str, Any] = {
            item.name: self.text(getattr(meta, item.name))
            for item in fields(meta)
            if isinstance(getattr(meta, item.name), str)
        }
        if meta.goal is not None:
            goal = meta.goal
            changes["goal"] = replace(
                goal,
                objective=self.text(goal.objective),
                status_reason=self.text(goal.status_reason),
            )
        return replace(meta, **changes)

    # --- Zero's RedactString --------------------------------------------------------------

    def _masked(self, found: object) -> str:
        if found != REDACTED:
            self.count.secrets += 1
        return REDACTED

    def _secrets(self, value: str) -> str:
        text = value
        if "PRIVATE KEY-----" in text:
            text = self._private_keys(text)
        if '"' in text and ":" in text:
            text = _JSON_PAIR.sub(self._json_pair, text)
        if "=" in text:
            text = _ASSIGNMENT.sub(self._assignment, text)
        if ":" in text:
            text = _AUTH_HEADER.sub(self._auth_header, text)
            text = _SECRET_HEADER.sub(
                lambda match: f"{match.group(1)}: {self._masked(match.group(2))}", text
            )
        if "://" in text:
            text = _URL.sub(self._url_password, text)
        if "=" in text:
            text = _QUERY.sub(self._query, text)
        if _TOKEN_SHAPE_START.search(text) is None:
            return text
        text = _OPENAI_KEY.sub(self._openai_key, text)
        for shape in _TOKEN_SHAPES:
            text = shape.sub(lambda match: self._masked(match.group()), text)
        if "eyJ" in text:
            for jwt in _JWTS:
                text = self._jwts(jwt, text)
        return text

    def _private_keys(self, text: str) -> str:
        """Each key block, from its BEGIN line to the first END line after it (the regex
        `BEGIN.*?END` would scan to the end of the text again from every BEGIN with no END)."""
        out: list[str] = []
        position = 0
        while (begin := _KEY_BEGIN.search(text, position)) is not None:
            end = _KEY_END.search(text, begin.end())
            if end is None:
                break
            out += [text[position : begin.start()], self._masked(text[begin.start() : end.end()])]
            position = end.end()
        return "".join(out) + text[position:]

    def _jwts(self, jwt: re.Pattern[str], text: str) -> str:
        """`jwt` masked where it matches at a word start. A start later in the same segment as
        one that failed fails too, so it is not tried: each segment is scanned once."""
        out: list[str] = []
        position = skip_to = 0
        for start in _JWT_START.finditer(text):
            at = start.start()
            if at < max(position, skip_to):
                continue
            found = jwt.match(text, at)
            if found is None:
                skip_to = _JWT_SEGMENT.match(text, at).end()  # type: ignore[union-attr]
                continue
            out += [text[position:at], self._masked(found.group())]
            position = found.end()
        return "".join(out) + text[position:]

    def _json_pair(self, match: re.Match[str]) -> str:
        if not is_sensitive_key(match.group(2)):
            return match.group()
        return f'{match.group(1)}"{self._masked(match.group(3))}"'

    def _assignment(self, match: re.Match[str]) -> str:
        key, equals = match.group(1), match.group(2)
        if not is_sensitive_key(key):
            return match.group()
        start = match.start(1) - match.start()
        head = match.group()[:start] + key + equals
        double, single, bare = match.group(3), match.group(4), match.group(5)
        if double:
            return f'{head}"{self._masked(double)}"'
        if single:
            return f"{head}'{self._masked(single)}'"
        if bare is None:  # an empty quoted value: nothing to mask
            return match.group()
        return head + self._masked(bare)

    def _auth_header(self, match: re.Match[str]) -> str:
        name, scheme, credential = match.group(1), match.group(2), match.group(3)
        if scheme:
            return f"{name}: {scheme} {self._masked(credential)}"
        return f"{name}: {self._masked(credential)}"

    def _url_password(self, match: re.Match[str]) -> str:
        url = match.group()
        try:
            parts = urlsplit(url)
            password = parts.password
        except ValueError:
            return url
        if password is None:
            return url
        userinfo, at, _host = parts.netloc.rpartition("@")
        user, _colon, _password = userinfo.partition(":")
        netloc = f"{user}:{self._masked(password)}{at}{_host}"
        start = url.index(parts.netloc)
        return url[:start] + netloc + url[start + len(parts.netloc) :]

    def _query(self, match: re.Match[str]) -> str:
        if not is_sensitive_key(match.group(2)):
            return match.group()
        return f"{match.group(1)}{match.group(2)}={self._masked(match.group(3))}"

    def _openai_key(self, match: re.Match[str]) -> str:
        found = match.group()
        body = found[3:]
        kebab_phrase = "-" in body and not any(char.isdigit() for char in body)
        if kebab_phrase and not found.startswith(_OPENAI_PREFIXES):
            return found
        return self._masked(found)


def redact_text(value: str, home: str = "") -> str:
    """`value` masked by Zero's rules (and `home` as `~`); for tests and one-off use."""
    return Redactor(home=home).text(value)
